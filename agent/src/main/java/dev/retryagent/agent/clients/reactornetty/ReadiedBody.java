package dev.retryagent.agent.clients.reactornetty;

import org.reactivestreams.Publisher;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A request's body that readies its request (the call's facts, the marker) when it is subscribed, then is the body: a
 * {@code Mono} stays a {@code Mono}, which Reactor Netty writes with the request's head.
 */
final class ReadiedBody {
    private ReadiedBody() {
    }

    static final class OfMono<T> extends Mono<T> {
        private final Runnable ready;
        private final Mono<?> body;

        OfMono(Runnable ready, Mono<?> body) {
            this.ready = ready;
            this.body = body;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void subscribe(CoreSubscriber<? super T> actual) {
            ready.run();
            ((Mono<T>) body).subscribe(actual);
        }
    }

    static final class OfFlux<T> extends Flux<T> {
        private final Runnable ready;
        private final Publisher<?> body;

        OfFlux(Runnable ready, Publisher<?> body) {
            this.ready = ready;
            this.body = body;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void subscribe(CoreSubscriber<? super T> actual) {
            ready.run();
            Flux.from((Publisher<T>) body).subscribe(actual);
        }
    }
}
