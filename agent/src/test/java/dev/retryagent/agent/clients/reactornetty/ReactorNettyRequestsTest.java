package dev.retryagent.agent.clients.reactornetty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.bootloader.runtime.CarriedFailure;
import dev.retryagent.policy.FailureKind;
import io.netty.buffer.Unpooled;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.timeout.ReadTimeoutException;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.PrematureCloseException;
import reactor.util.retry.Retry;

class ReactorNettyRequestsTest {
    @Test
    void aBodyIsReplayableWhenItsChainStartsAtASourceThatGivesEverySubscriberTheSameItems() {
        assertTrue(ReactorNettyRequests.replayable(ByteBufFlux.fromString(Mono.just("a"))));
        assertTrue(ReactorNettyRequests.replayable(Flux.just("a", "b").map(s -> s.getBytes(StandardCharsets.UTF_8))));
        assertTrue(ReactorNettyRequests.replayable(Flux.fromIterable(List.of("a")).map(String::length)));
        assertTrue(ReactorNettyRequests.replayable(Mono.fromCallable(() -> "a").map(String::length)));
        assertTrue(ReactorNettyRequests.replayable(Mono.defer(() -> Mono.just("a"))));
    }

    @Test
    void aSinkABufferOrAForeignPublisherIsOneShot() {
        Sinks.Many<byte[]> once = Sinks.many().unicast().onBackpressureBuffer();
        assertFalse(ReactorNettyRequests.replayable(once.asFlux().map(Unpooled::wrappedBuffer)));
        // a buffer is released once written: the same Mono.just cannot send it again
        assertFalse(ReactorNettyRequests.replayable(Mono.just(Unpooled.copiedBuffer("a", StandardCharsets.UTF_8))));
        assertFalse(ReactorNettyRequests.replayable(Flux.from(s -> { })));
    }

    @Test
    void failuresAreClassifiedByNettysAndReactorNettysTypes() {
        assertEquals(FailureKind.CONNECT, ReactorNettyRequests.classify(new ConnectException("refused")));
        assertEquals(FailureKind.CONNECT, ReactorNettyRequests.classify(new ConnectTimeoutException("slow")));
        assertEquals(FailureKind.RESET, ReactorNettyRequests.classify(PrematureCloseException.TEST_EXCEPTION));
        assertEquals(FailureKind.RESET, ReactorNettyRequests.classify(new IOException("Connection reset by peer")));
        assertEquals(FailureKind.TIMEOUT, ReactorNettyRequests.classify(new CarriedFailure(ReadTimeoutException.INSTANCE)));
        assertEquals(FailureKind.OTHER, ReactorNettyRequests.classify(new CarriedFailure(new IllegalStateException())));
        assertTrue(ReactorNettyRequests.isResponseTimeout(new CarriedFailure(ReadTimeoutException.INSTANCE)));
        assertFalse(ReactorNettyRequests.isResponseTimeout(new IOException("Read timed out")));
    }

    @Test
    void aUrlIsTakenApartWithoutItsQuery() {
        ReactorNettyRequests.Url url = ReactorNettyRequests.Url.parse("http://127.0.0.1:8080/items/1?token=s3cr3t");
        assertEquals("http", url.scheme);
        assertEquals("127.0.0.1", url.host);
        assertEquals(8080, url.port);
        assertEquals("/items/1", url.path);
        ReactorNettyRequests.Url https = ReactorNettyRequests.Url.parse("HTTPS://user@[::1]?q");
        assertEquals("::1", https.host);
        assertEquals(443, https.port);
        assertEquals("/", https.path);
        assertNull(ReactorNettyRequests.Url.parse("/relative"));
        assertNull(ReactorNettyRequests.Url.parse("http://host:port/"));
    }

    @Test
    void aRetryOperatorDownstreamIsFoundAndNoneWhereThereIsNone() {
        assertSame(ReactorNettyRequests.REACTOR_RETRY, subscriberOf(m -> m.retryWhen(Retry.backoff(3, Duration.ZERO))));
        assertSame(ReactorNettyRequests.REACTOR_RETRY, subscriberOf(m -> m.map(String::length).retry(2)));
        assertNull(subscriberOf(m -> m.map(String::length).timeout(Duration.ofSeconds(1))));
    }

    /** What the retry-operator lookup says of the subscriber a source at the top of {@code chain} is subscribed by. */
    private static Object subscriberOf(java.util.function.Function<Mono<String>, Mono<?>> chain) {
        AtomicReference<Object> found = new AtomicReference<>();
        Mono<String> source = new Mono<String>() {
            @Override
            public void subscribe(CoreSubscriber<? super String> actual) {
                found.set(ReactorNettyRequests.retryOperatorAbove(actual));
                actual.onSubscribe(reactor.core.publisher.Operators.emptySubscription());
                actual.onComplete();
            }
        };
        chain.apply(source).subscribe(new BaseSubscriber<Object>() { });
        return found.get();
    }
}
