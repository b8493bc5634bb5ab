package dev.retryagent.it.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.clients.ReactorNettyKit.Options;
import dev.retryagent.it.clients.ReactorNettyKit.Receive;
import dev.retryagent.it.clients.ReactorNettyKit.Send;
import dev.retryagent.it.clients.ReactorNettyWebClientKit.Exchange;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * {@link KitContract} for {@code reactor-netty} in this JVM (Reactor Netty 1.0, the kit's compile-time API), every
 * way of sending and receiving, the caller's and the per-request timeouts; {@code reactor-netty-webclient} likewise
 * ({@link WebClientInThisJvm}); and the whole contract again in a forked JVM with each client library set
 * ({@link OnReactorNetty10} ... {@link OnWebFlux62}), the 1.0 sets on the oldest JDK this run forks on.
 */
class ReactorNettyKitIT extends KitContract {
    private static final String NETTY_CLASS = "reactor.netty.http.client.HttpClient";
    private static final String WEBFLUX_CLASS = "org.springframework.web.reactive.function.client.WebClient";

    @Override
    String client() {
        return "reactor-netty";
    }

    @ParameterizedTest
    @EnumSource(Receive.class)
    void everyReceiveGivesTheReplyBlockingAndAsync(Receive receive) throws Exception {
        for (Send send : Send.values()) {
            Options options = Options.defaults().send(send).receive(receive);
            try (ScriptedServer server = ScriptedServer.start(
                    Step.status(503).header("X-Reply", "r1").body("busy"))) {
                ReactorNettyKit kit = new ReactorNettyKit(HttpClient.create(), options);
                KitRequest post = KitRequest.of("POST", server.url("/orders")).header("X-Call-Id", "c-1")
                        .body("{\"n\":1}".getBytes(StandardCharsets.UTF_8), "application/json");
                assertReply(kit.call(post), receive, options);
                assertReply(kit.callAsync(post).get(30, TimeUnit.SECONDS), receive, options);
                List<RecordedRequest> seen = server.awaitRequests(2, Duration.ofSeconds(10));
                for (RecordedRequest request : seen) {
                    assertEquals("POST", request.method(), options.toString());
                    assertEquals("{\"n\":1}", request.bodyUtf8(), options.toString());
                    assertEquals("c-1", request.header("X-Call-Id"), options.toString());
                    assertEquals("application/json", request.header("Content-Type"), options.toString());
                }
            }
        }
    }

    private static void assertReply(KitReply reply, Receive receive, Options options) {
        assertEquals(503, reply.status(), options.toString());
        assertEquals("r1", reply.header("X-Reply"), options.toString());
        assertEquals(receive.readsBody() ? "busy" : "", reply.bodyUtf8(), options.toString());
    }

    @Test
    void aResubscribedMonoSendsTheRequestAgainWithItsReplayableBody() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(Step.status(503), Step.ok().body("second"))) {
            KitRequest put = KitRequest.of("PUT", server.url("/again")).body(bytes("again"), "text/plain");
            Mono<KitReply> call = ReactorNettyKit.mono(HttpClient.create(), put, Options.defaults());
            assertEquals(503, call.block().status());
            assertEquals("second", call.block().bodyUtf8());
            List<RecordedRequest> seen = server.awaitRequests(2, Duration.ofSeconds(10));
            assertEquals("again", seen.get(0).bodyUtf8());
            assertEquals("again", seen.get(1).bodyUtf8());
        }
    }

    @Test
    void aResubscribedMonoCannotSendAOneShotBodyTwice() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(Step.status(503))) {
            KitRequest put = KitRequest.of("PUT", server.url("/once")).body(bytes("once"), "text/plain").oneShot();
            Mono<KitReply> call = ReactorNettyKit.mono(HttpClient.create(), put, Options.defaults());
            assertEquals(503, call.block().status());
            assertThrows(RuntimeException.class, call::block);
            assertEquals("once", server.awaitRequests(1, Duration.ofSeconds(10)).get(0).bodyUtf8());
        }
    }

    @Test
    void theCallersTimeoutCancelsTheRequest() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(Step.ok().delay(Duration.ofSeconds(5)))) {
            ReactorNettyKit kit = new ReactorNettyKit(HttpClient.create(),
                    Options.defaults().callerTimeout(Duration.ofMillis(300)));
            long start = System.nanoTime();
            RuntimeException e = assertThrows(RuntimeException.class,
                    () -> kit.call(KitRequest.get(server.url("/slow"))));
            assertTrue(Exceptions.unwrap(e) instanceof TimeoutException, String.valueOf(e));
            assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 3000);
        }
    }

    @Test
    void aPerRequestResponseTimeoutEndsTheCall() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(Step.ok().delay(Duration.ofSeconds(5)))) {
            ReactorNettyKit kit = new ReactorNettyKit(HttpClient.create(),
                    Options.defaults().responseTimeout(Duration.ofMillis(300)));
            long start = System.nanoTime();
            Exception e = assertThrows(Exception.class, () -> kit.call(KitRequest.get(server.url("/slow"))));
            assertTrue(Exceptions.unwrap(e).getClass().getName().endsWith("ReadTimeoutException"), String.valueOf(e));
            assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 3000);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** The contract for {@code reactor-netty-webclient} in this JVM: WebClient 5.3 over Reactor Netty 1.0. */
    @Nested
    class WebClientInThisJvm extends KitContract {
        @Override
        String client() {
            return "reactor-netty-webclient";
        }

        @ParameterizedTest
        @EnumSource(Exchange.class)
        void bothExchangesGiveAnErrorStatusWithItsBody(Exchange exchange) throws Exception {
            try (ScriptedServer server = ScriptedServer.start(Step.status(503).header("X-Reply", "r1").body("busy"))) {
                ReactorNettyWebClientKit kit = new ReactorNettyWebClientKit(HttpClient.create(), exchange);
                for (KitReply reply : List.of(kit.call(KitRequest.get(server.url("/busy"))),
                        kit.callAsync(KitRequest.get(server.url("/busy"))).get(30, TimeUnit.SECONDS))) {
                    assertEquals(503, reply.status(), exchange.toString());
                    assertEquals("r1", reply.header("X-Reply"), exchange.toString());
                    assertEquals("busy", reply.bodyUtf8(), exchange.toString());
                }
            }
        }
    }

    /**
     * The contract in a forked JVM with {@code libs}, whose client must be the version the set names: on the oldest JDK
     * this run forks on (Java 8 unless the run leaves it out) when {@code oldestJdk}, else on the test JDK.
     */
    abstract static class Forked extends KitContract {
        private final String client;
        private final ClientLibs libs;
        private final boolean oldestJdk;

        Forked(String client, ClientLibs libs, boolean oldestJdk) {
            this.client = client;
            this.libs = libs;
            this.oldestJdk = oldestJdk;
        }

        @Override
        String client() {
            return client;
        }

        @Override
        HttpKit newKit() {
            Jdks.Jdk jdk = oldestJdk
                    ? Jdks.of(Jdks.ALL).stream().min(Comparator.comparingInt(Jdks.Jdk::version)).orElseThrow()
                    : Jdks.testJdk();
            ForkedKit kit = ForkedKit.start(client, libs, jdk,
                    client.endsWith("webclient") ? WEBFLUX_CLASS : NETTY_CLASS);
            assertEquals(libs.version(), kit.appLine().get("version"), kit.appLine() + " with " + libs);
            return kit;
        }
    }

    @Nested
    class OnReactorNetty10 extends Forked {
        OnReactorNetty10() {
            super("reactor-netty", ClientLibs.REACTOR_NETTY_1_0, true);
        }
    }

    @Nested
    class OnReactorNetty11 extends Forked {
        OnReactorNetty11() {
            super("reactor-netty", ClientLibs.REACTOR_NETTY_1_1, false);
        }
    }

    @Nested
    class OnReactorNetty12 extends Forked {
        OnReactorNetty12() {
            super("reactor-netty", ClientLibs.REACTOR_NETTY_1_2, false);
        }
    }

    @Nested
    class OnReactorNetty13 extends Forked {
        OnReactorNetty13() {
            super("reactor-netty", ClientLibs.REACTOR_NETTY_1_3, false);
        }
    }

    @Nested
    class OnWebFlux53 extends Forked {
        OnWebFlux53() {
            super("reactor-netty-webclient", ClientLibs.SPRING_WEBFLUX_5_3, true);
        }
    }

    @Nested
    class OnWebFlux62 extends Forked {
        OnWebFlux62() {
            super("reactor-netty-webclient", ClientLibs.SPRING_WEBFLUX_6_2, false);
        }
    }
}
