package dev.retryagent.it.reactornetty;

import static dev.retryagent.it.harness.Runs.assertOneCallbackEach;
import static dev.retryagent.it.harness.Runs.logged;
import static dev.retryagent.it.harness.Runs.markers;
import static dev.retryagent.it.harness.Runs.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.contract.Batch;
import dev.retryagent.it.contract.ClientContract;
import dev.retryagent.it.deploy.AppLoader;
import dev.retryagent.it.deploy.SpringBootJar;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.H2Server;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import dev.retryagent.it.harness.TlsMaterial;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The agent on Reactor Netty's {@code HttpClient} (1.0 to 1.3) and on Spring's {@code WebClient} over it (5.3 and
 * 6.2): the driver of {@link ClientContract} for Reactor Netty, in forked JVMs that run a plain reactive application
 * ({@link ReactorNettyBatch}), on its own or inside a Spring Boot executable jar ({@link SpringBootJar}: Boot's class
 * loader, the versions Boot resolved), and the checks only this client has: a response received without its body
 * ({@code response()}), the request's own {@code responseTimeout}, the caller's {@code timeout(..)} and an interrupted
 * {@code block()} (both of which cancel the call), callbacks on the event loop, and no response body left unreleased.
 *
 * <p>A mode's name spells how its calls are made: {@code sync|async-RECEIVE-SEND} for {@code HttpClient}
 * ({@code sync-response-flux-outbound}: {@code block()}, {@code response((response, body) -> ..)},
 * {@code send((request, outbound) -> ..)}) and {@code webclient-sync|async-EXCHANGE} for WebClient
 * ({@code webclient-async-exchange-to-mono}). A sync call waits in {@code block()}, an async one is a subscription;
 * either way the waits between attempts are never on the caller's thread, so no mode is interrupted as the contract
 * interrupts (an interrupt of {@code block()} disposes the subscription: {@link #addOwnCalls}), and an async call is
 * cancelled by disposing its subscription, between attempts and during one.
 */
@Tag(Jdks.MATRIX)
class ReactorNettyAgentIT extends ClientContract<ReactorNettyAgentIT.Jvm> {
    private static final String WEBCLIENT = "webclient";
    private static final String RETRIEVE = "retrieve";
    /** What a Spring Boot target runs: the batch application whose calls are WebClient's, and the class it starts from. */
    private static final String BOOT_CLIENT = "reactor-netty-webclient";
    private static final String BOOT_CLIENT_CLASS = "org.springframework.web.reactive.function.client.WebClient";
    /** The caller's {@code timeout(..)} of {@code -callTimeout}: well inside the 5 s wait of {@code /cancel/**}. */
    private static final long CALL_TIMEOUT_MS = 2000;
    /** The request's own {@code responseTimeout} of {@code -readTimeout}, and how long its first answer is held. */
    private static final long READ_TIMEOUT_MS = 500;
    private static final Duration HELD = Duration.ofSeconds(3);

    /**
     * One forked JVM: a library set (Reactor Netty's, or WebFlux's over it) on a JDK, making its modes' calls; or a
     * Spring Boot executable jar ({@code libs} null), whose {@code BOOT-INF/lib} brings the WebFlux and Reactor Netty
     * its Boot version manages, loaded by Boot's own class loader.
     */
    record Jvm(ClientLibs libs, List<String> modes, Jdks.Jdk jdk, AppLoader loader) implements ClientContract.Target {
        Jvm(ClientLibs libs, List<String> modes, Jdks.Jdk jdk) {
            this(libs, modes, jdk, AppLoader.CLASS_PATH);
        }

        @Override
        public ForkedApp app(String run) {
            ForkedApp app = switch (loader) {
                case CLASS_PATH -> ForkedApp.batch("reactor-netty").clientLibs(libs);
                case SPRING_BOOT, SPRING_BOOT_2 -> loader.springBootJar().app(BOOT_CLIENT);
                default -> throw new IllegalStateException("no Reactor Netty target in " + loader);
            };
            // every buffer tracked, so that a response body nobody released is reported (the app looks at its end);
            // the test certificate trusted through the JDK's trust store properties, which Reactor Netty's TLS reads
            return app.name("reactor-netty-" + run + "-" + (libs == null ? loader : libs) + "-" + jdk)
                    .java(jdk.java()).sysProp("io.netty.leakDetection.level", "paranoid")
                    .sysProps(TlsMaterial.shared().clientSystemProperties());
        }

        boolean webFlux() {
            return libs == null || reactorNetty() != libs;
        }

        /** The Reactor Netty set whose jars this set has: itself, or the one its WebFlux runs over. */
        ClientLibs reactorNetty() {
            return switch (libs) {
                case SPRING_WEBFLUX_5_3 -> ClientLibs.REACTOR_NETTY_1_0;
                case SPRING_WEBFLUX_6_2 -> ClientLibs.REACTOR_NETTY_1_2;
                default -> libs;
            };
        }

        /** The reactor-netty-http this JVM runs: its set's, or the one Boot resolved into the jar. */
        String reactorNettyVersion() {
            return libs == null ? loader.springBootJar().libraryVersion("reactor-netty-http")
                    : reactorNetty().version();
        }

        /** The spring-webflux this JVM runs (see {@link #webFlux()}): its set's, or the one Boot resolved. */
        String webFluxVersion() {
            return libs == null ? loader.springBootJar().libraryVersion("spring-webflux") : libs.version();
        }

        @Override
        public String toString() {
            return (libs == null ? "" : libs + " ") + String.join("+", modes) + " " + jdk
                    + (loader == AppLoader.CLASS_PATH ? "" : " " + loader);
        }
    }

    /**
     * Reactor Netty 1.1, 1.2 and 1.3 and WebClient 6.2 on the test JDK, each set alone, two modes each (sync and
     * async); over them every receive kind and both send kinds come sync and async (with {@code response()}, the one
     * that drops the body, in {@link #addOwnCalls}). On each other JDK one JVM with the WebFlux set, whose Reactor
     * Netty serves two {@code HttpClient} modes beside WebClient's two: 1.0 and WebClient 5.3 on Java 8 and 11, 1.2 and
     * WebClient 6.2 on Java 25. A WebFlux application from a Spring Boot executable jar, WebClient sync and async:
     * Boot 3 on the test JDK, Boot 2.7 (WebFlux 5.3 over Reactor Netty 1.0) on Java 8.
     */
    @Override
    protected Stream<Jvm> targets() {
        Jdks.Jdk own = Jdks.testJdk();
        Stream<Jvm> onTheTestJdk = Stream.of(
                new Jvm(ClientLibs.REACTOR_NETTY_1_1, List.of("sync-single-publisher", "async-content-outbound"), own),
                new Jvm(ClientLibs.REACTOR_NETTY_1_2, List.of("sync-response-flux-outbound",
                        "async-connection-publisher"), own),
                new Jvm(ClientLibs.REACTOR_NETTY_1_3, List.of("sync-connection-outbound", "async-single-publisher"),
                        own),
                new Jvm(ClientLibs.SPRING_WEBFLUX_6_2, List.of("webclient-sync-retrieve",
                        "webclient-async-exchange-to-mono"), own),
                new Jvm(null, List.of("webclient-sync-retrieve", "webclient-async-exchange-to-mono"), own,
                        AppLoader.SPRING_BOOT));
        Stream<Jvm> onLegacyJdks = Jdks.besides(8, 11).stream().map(jdk -> new Jvm(ClientLibs.SPRING_WEBFLUX_5_3,
                List.of("sync-content-publisher", "async-response-flux-outbound", "webclient-sync-exchange-to-mono",
                        "webclient-async-retrieve"), jdk));
        Stream<Jvm> onJava25 = Jdks.besides(25).stream().map(jdk -> new Jvm(ClientLibs.SPRING_WEBFLUX_6_2,
                List.of("sync-single-outbound", "async-content-publisher", "webclient-sync-retrieve",
                        "webclient-async-exchange-to-mono"), jdk));
        Stream<Jvm> onJava8 = Jdks.besides(8).stream().map(jdk -> new Jvm(null,
                List.of("webclient-sync-exchange-to-mono", "webclient-async-retrieve"), jdk, AppLoader.SPRING_BOOT_2));
        return Stream.of(onTheTestJdk, onLegacyJdks, onJava25, onJava8).flatMap(s -> s);
    }

    /** One JVM: WebFlux 6.2's set carries Reactor Netty 1.2, so both APIs run there. */
    @Override
    protected Stream<Jvm> quietTargets() {
        return Stream.of(new Jvm(ClientLibs.SPRING_WEBFLUX_6_2, List.of("sync-single-publisher",
                "async-connection-outbound", "webclient-sync-retrieve", "webclient-async-exchange-to-mono"),
                Jdks.testJdk()));
    }

    @Override
    protected String clientName() {
        return "reactor-netty";
    }

    /** The parts a mode's name spells (see the class comment). */
    @Override
    protected List<String> modeParts(String mode, Run run) {
        List<String> words = List.of(mode.split("-"));
        if (words.get(0).equals(WEBCLIENT)) {
            return List.of("api=webclient", "mode=" + words.get(1),
                    "exchange=" + String.join("-", words.subList(2, words.size())));
        }
        return List.of("api=client", "mode=" + words.get(0),
                "receive=" + String.join("-", words.subList(1, words.size() - 1)),
                "send=" + words.get(words.size() - 1));
    }

    private static boolean isAsync(String mode) {
        return List.of(mode.split("-")).contains(ASYNC);
    }

    private static boolean isWebClient(String mode) {
        return mode.startsWith(WEBCLIENT + "-");
    }

    /** The kit's one-shot body: a unicast sink's publisher, which refuses a second subscriber. */
    @Override
    protected String nonReplayableBody(String mode) {
        return "oneShot=true";
    }

    /** An async call: its future's cancel disposes the subscription. */
    @Override
    protected boolean cancels(String mode) {
        return isAsync(mode);
    }

    /** No wait is on the caller's thread, and an interrupt of {@code block()} is no InterruptedIOException. */
    @Override
    protected boolean interrupts(String mode) {
        return false;
    }

    @Override
    protected boolean cancelsInFlight(String mode) {
        return isAsync(mode);
    }

    @Override
    protected String retryAfterField() {
        return "retryAfter";
    }

    /**
     * Per {@code HttpClient} mode: {@code response()} (status and headers, the body dropped unread) through a GET
     * answered 503, 503, 200; the request's own {@code responseTimeout} (sent the outbound way) against a first answer
     * held past it; the caller's {@code timeout(..)} firing in a 5 s wait between attempts. Per sync mode (WebClient's
     * too): the caller's thread interrupted in {@code block()} during such a wait.
     */
    @Override
    protected void addOwnCalls(Jvm jvm, Run kind, Batch b) {
        if (kind != Run.CONTRACT) {
            return;
        }
        for (String m : jvm.modes()) {
            if (!isWebClient(m)) {
                b.add(m + "-responseOnly", "/bare/" + m, parts(m, "receive=response-only"),
                        Step.status(503).body("busy"), Step.status(503).body("busy"), Step.ok().body("fine"));
                b.add(m + "-readTimeout", "/held/" + m, parts(m, "send=outbound", "readTimeoutMs=" + READ_TIMEOUT_MS),
                        Step.ok().body("late").delay(HELD), Step.ok().body("fine"));
                b.add(m + "-callTimeout", "/cancel/timeout/" + m, parts(m, "callTimeoutMs=" + CALL_TIMEOUT_MS),
                        Step.status(503));
            }
            if (!isAsync(m)) {
                b.add(m + "-blockInterrupted", "/interrupt/block/" + m, parts(m,
                        "interruptAfterMs=" + Bounds.INTERRUPT_AFTER_MS), Step.status(503).body("busy"));
            }
            // over TLS: the same retries, each attempt a new request on the client's TLS connections
            b.addTls(m + "-https", "/secure/" + m, parts(m), Step.status(503), Step.ok().body("secure"));
            // a connection closed before the response: a GET goes again, a POST without a key does not
            b.add(m + "-dropped", "/dropped/" + m, parts(m), Step.dropAfterRequest(), Step.ok().body("fine"));
            b.add(m + "-droppedPost", "/dropped/post/" + m, parts(m, "method=POST", "body=order-9"),
                    Step.dropAfterRequest(), Step.ok());
            // each retry starts on the agent's scheduler thread when its wait is over, never waited for on an event
            // loop: waits of 1 s (Retry-After), by whose end the event loop has long released the 503 (an attempt
            // that finishes after its wait starts the next one from where it finishes)
            b.add(m + "-scheduled", "/scheduled/" + m, parts(m, "connectThreads=true"),
                    Step.status(503).retryAfterSeconds(1), Step.status(503).retryAfterSeconds(1),
                    Step.ok().body("fine"));
            if (!isWebClient(m)) {
                // a POST with a key whose body is another call's answer, made while each attempt sends: that call is
                // nested in the attempt (found through the attempt's Reactor Context), sent once with its number
                ScriptedServer inner = b.serverOnly(m + "-nestedBody-inner", Step.status(503).body("inner-1"),
                        Step.status(503).body("inner-2"), Step.status(503).body("inner-3"));
                b.add(m + "-nestedBody", "/outer/" + m, parts(m, "method=POST", "header=Idempotency-Key: k-9",
                        "bodyFrom=" + inner.url("/inner/" + m)), Step.status(503), Step.status(503), Step.ok());
            }
            if (m.endsWith("-" + RETRIEVE)) {
                // inside Reactor's own retryWhen(Retry.max(2)): the operator's 3 requests, not 3 x 3
                b.add(m + "-retryWhen", "/retry-when/" + m, parts(m, "retryWhen=2"), Step.status(503),
                        Step.status(503), Step.status(503), Step.ok());
            }
        }
    }

    private List<String> parts(String mode, String... more) {
        List<String> parts = new ArrayList<>(modeParts(mode, Run.CONTRACT));
        parts.addAll(List.of(more));
        return parts;
    }

    @Override
    protected void checkOwn(Jvm jvm, Run kind, Batch b, ForkedApp.Result run) {
        ReportLine app = run.single("APP");
        if (jvm.libs() == null && kind == Run.CONTRACT) {
            System.out.println("REACTOR-NETTY-BOOT target=" + jvm.loader() + " reactor-netty=" + app.get("version")
                    + " webflux=" + app.get("webflux") + " java=" + app.get("java"));
        }
        assertEquals(jvm.reactorNettyVersion(), app.get("version"), "the intended Reactor Netty ran\n" + run);
        if (jvm.webFlux()) {
            assertEquals(jvm.webFluxVersion(), app.get("webflux"), "the intended WebFlux ran\n" + run);
        }
        assertTrue(app.get("java").startsWith(jvm.jdk().javaVersionPrefix()), app.toString());
        assertOneCallbackEach(run);
        assertFalse(run.stderr().contains("internal-error"), run.describe());
        // a response the agent did not hand on (a 503 it retried) had its body released like any other
        assertFalse(run.stderr().contains("LEAK:"), run.describe());
        if (kind != Run.CONTRACT) {
            return;
        }
        jvm.loader().assertLoaded(run, "reactor-netty", BOOT_CLIENT_CLASS);
        for (String m : jvm.modes()) {
            if (isAsync(m)) {
                ReportLine called = run.lines("CALLBACKS").stream().filter(l -> l.get("id").equals(m + "-get"))
                        .findFirst().orElseThrow(() -> new AssertionError("no CALLBACKS for " + m + "-get\n" + run));
                assertTrue(called.get("kinds").startsWith("completed:200@reactor-http-"),
                        "called back on an event loop thread: " + called);
            }
            if (!isWebClient(m)) {
                checkOwnCalls(m, b, run);
            }
            if (!isAsync(m)) {
                checkBlockInterrupted(m, b, run);
            }
            checkDroppedAndScheduled(m, b, run);
            if (!isWebClient(m)) {
                checkNestedBody(m, b, run);
            }
            if (m.endsWith("-" + RETRIEVE)) {
                checkRetryWhen(m, b, run);
            }
        }
    }

    /**
     * HTTP/2 over TLS (ALPN) on loopback, Reactor Netty 1.3 blocked and subscribed: every attempt of a GET is a stream of
     * its own, retried and marked as over HTTP/1.1; the retried 503s' streams end as the server sent them.
     */
    @Test
    void http2OverTls() throws Exception {
        Jvm jvm = new Jvm(ClientLibs.REACTOR_NETTY_1_3, List.of(), Jdks.testJdk());
        try (H2Server server = new H2Server(2)) {
            List<String> args = new ArrayList<>();
            for (String m : List.of("sync", ASYNC)) {
                args.addAll(List.of("--call", "id=" + m + "-h2-get;url=" + server.url("/h2/get/" + m) + ";mode=" + m
                        + ";protocol=h2"));
            }
            ForkedApp.Result run = jvm.app("h2").policy(POLICY).agentArg("log", "debug").args(args).run()
                    .assertExitCode(0);
            for (String m : List.of("sync", ASYNC)) {
                ReportLine r = result(run, m + "-h2-get");
                assertEquals(200, r.getInt("status"), run.describe());
                assertEquals("fine", r.get("body"));
                List<H2Server.Seen> seen = server.seen("/h2/get/" + m);
                assertEquals(List.of("1", "2", "3"), seen.stream().map(H2Server.Seen::marker).toList(), m);
                assertTrue(seen.stream().allMatch(s -> s.protocol().equals("HTTP/2.0")), seen.toString());
            }
            assertFalse(run.stderr().contains("internal-error"), run.describe());
            assertFalse(run.stderr().contains("LEAK:"), run.describe());
        }
    }

    private static void checkDroppedAndScheduled(String m, Batch b, ForkedApp.Result run) {
        ReportLine r = result(run, m + "-https");
        assertEquals(200, r.getInt("status"), run.describe());
        assertEquals("secure", r.get("body"));
        assertEquals(List.of("1", "2"), markers(b.server(m + "-https").requests()), m);

        r = result(run, m + "-dropped");
        assertEquals(200, r.getInt("status"), run.describe());
        assertEquals(List.of("1", "2"), markers(b.server(m + "-dropped").requests()), m);
        assertTrue(logged(run, "retry ", "path=/dropped/" + m + " ", "cause=failure:reset"), run.describe());

        r = result(run, m + "-droppedPost");
        assertTrue(r.toString().contains("PrematureCloseException"), "the client's own failure: " + r);
        assertEquals(1, b.server(m + "-droppedPost").requestCount(), m);
        assertTrue(logged(run, "give up", "path=/dropped/post/" + m + " ", "reason=not-idempotent"), run.describe());

        r = result(run, m + "-scheduled");
        assertEquals(200, r.getInt("status"), run.describe());
        ReportLine connects = run.lines("CONNECTS").stream().filter(l -> l.get("id").equals(m + "-scheduled"))
                .findFirst().orElseThrow(() -> new AssertionError("no CONNECTS for " + m + "-scheduled\n" + run));
        List<String> threads = List.of(connects.get("threads").split(","));
        assertEquals(3, threads.size(), connects.toString());
        assertFalse(threads.get(0).startsWith("reactor-http-"), "the first attempt on the caller's thread: " + connects);
        assertEquals(List.of("retry-agent-scheduler", "retry-agent-scheduler"), threads.subList(1, 3),
                "each retry started by the agent's scheduler, after its wait: " + connects);
    }

    /** Each attempt of the outer POST made the inner GET once, nested in it: marked with its number, not retried. */
    private static void checkNestedBody(String m, Batch b, ForkedApp.Result run) {
        ReportLine r = result(run, m + "-nestedBody");
        assertEquals(200, r.getInt("status"), run.describe());
        List<RecordedRequest> inner = b.server(m + "-nestedBody-inner").requests();
        assertEquals(List.of("1", "2", "3"), markers(inner), "the inner call of each outer attempt: " + inner);
        assertEquals(List.of("inner-1", "inner-2", "inner-3"),
                b.server(m + "-nestedBody").requests().stream().map(RecordedRequest::bodyUtf8).toList(), m);
        assertEquals(List.of("1", "2", "3"), markers(b.server(m + "-nestedBody").requests()), m);
        assertTrue(logged(run, "give up", "path=/inner/" + m + " ", "reason=nested"), run.describe());
    }

    private static void checkRetryWhen(String m, Batch b, ForkedApp.Result run) {
        ReportLine r = result(run, m + "-retryWhen");
        assertEquals(503, r.getInt("status"), r.toString());
        List<RecordedRequest> seen = b.server(m + "-retryWhen").requests();
        assertEquals(3, seen.size(), "the operator's 1 + 2 requests: " + seen);
        for (RecordedRequest q : seen) {
            assertNull(q.header("Retry-Attempt"), "deferred to the operator: unmarked, a layer below may retry");
        }
        assertTrue(logged(run, "give up", "path=/retry-when/" + m + " ", "reason=upper-layer", "layer=reactor-retry"),
                run.describe());
    }

    private static void checkOwnCalls(String m, Batch b, ForkedApp.Result run) {
        // response(): the caller gets status and headers only; the 503s before them were retried as any other
        ReportLine r = result(run, m + "-responseOnly");
        assertEquals(200, r.getInt("status"), run.describe());
        assertEquals("", r.get("body"), r.toString());
        assertEquals(List.of("1", "2", "3"), markers(b.server(m + "-responseOnly").requests()), m);

        // the request's own responseTimeout is the attempt's read timeout: the held answer is given up and retried
        r = result(run, m + "-readTimeout");
        assertEquals(200, r.getInt("status"), run.describe());
        assertEquals("fine", r.get("body"));
        assertTrue(r.getLong("elapsedMs") < HELD.toMillis(), "did not wait for the held answer: " + r);
        assertEquals(List.of("1", "2"), markers(b.server(m + "-readTimeout").requests()), m);
        assertTrue(logged(run, "retry ", "path=/held/" + m + " ", "cause=failure:timeout"), run.describe());

        // the caller's timeout(..) fires during the wait: it cancels the call, which ends then, with no further attempt
        r = result(run, m + "-callTimeout");
        String timeout = "java.util.concurrent.TimeoutException";
        assertTrue(timeout.equals(r.getOrNull("failure")) || timeout.equals(r.getOrNull("cause")), r.toString());
        assertTrue(r.getLong("elapsedMs") < CALL_TIMEOUT_MS + Bounds.INTERRUPT_MS, r.toString());
        assertEquals(1, b.server(m + "-callTimeout").requestCount(),
                b.server(m + "-callTimeout").requests().toString());
        assertTrue(logged(run, "retry ", "path=/cancel/timeout/" + m + " ", "wait=5000ms"), run.describe());
    }

    /**
     * Interrupted in {@code block()} during the 5 s wait: Reactor disposes the subscription and throws its
     * {@code ReactiveException} around the {@code InterruptedException}, the flag set; the call ends then, with no
     * further attempt.
     */
    private static void checkBlockInterrupted(String m, Batch b, ForkedApp.Result run) {
        ReportLine r = result(run, m + "-blockInterrupted");
        assertEquals("java.lang.InterruptedException", r.getOrNull("cause"), r.toString());
        assertTrue(r.getBoolean("interrupted"), "the interrupt flag is kept: " + r);
        assertTrue(r.getLong("sinceInterruptUs") < Bounds.INTERRUPT_MS * 1000,
                "returned long after the interrupt: " + r);
        assertEquals(1, b.server(m + "-blockInterrupted").requestCount(),
                b.server(m + "-blockInterrupted").requests().toString());
        assertTrue(logged(run, "retry ", "path=/interrupt/block/" + m + " ", "wait=5000ms"), run.describe());
    }
}
