package dev.retryagent.it.jdkhttp;

import static dev.retryagent.it.harness.Runs.logged;
import static dev.retryagent.it.harness.Runs.markers;
import static dev.retryagent.it.harness.Runs.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import org.junit.jupiter.api.Tag;

import dev.retryagent.it.contract.Batch;
import dev.retryagent.it.contract.ClientContract;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.H2Server;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import dev.retryagent.it.harness.TlsMaterial;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent on the JDK's {@code java.net.http.HttpClient}, {@code send} and {@code sendAsync}, in forked JVMs on Java
 * 17 and on Java 25 ({@link Jdks}), with {@code -javaagent} and nothing else: the driver of {@link ClientContract}
 * ({@link JdkHttpClientBatch}), and the checks only this client has in the same JVM: every {@code BodyHandler}
 * (only the final response reaches it), every body publisher (the ones that send the same bytes twice are retried,
 * the others never and unmarked), HTTPS, and a POST that the client alone would resend after a dropped connection.
 */
@Tag(Jdks.MATRIX)
class JdkHttpClientAgentIT extends ClientContract<JdkHttpClientAgentIT.Jvm> {
    static final List<String> MODES = List.of("sync", "async");
    static final List<String> HANDLERS = List.of("string", "bytes", "stream", "lines", "file");
    static final List<String> REPLAYABLE = List.of("string", "bytes", "file");
    static final List<String> ONE_SHOT = List.of("inputstream", "custom");

    /** One forked JVM on one JDK, making the calls of {@code modes}. */
    record Jvm(Jdks.Jdk jdk, List<String> modes) implements ClientContract.Target {

        @Override
        public ForkedApp app(String run) {
            return JdkHttpClientAgentIT.app(jdk, run);
        }

        @Override
        public String toString() {
            return jdk + " " + String.join("+", modes);
        }
    }

    /**
     * A JVM per JDK and mode: the contract bounds the first attempts of some calls (its deadline and Retry-After
     * checks), and every call of a JVM starts at once; the client hands each over between its selector and executor
     * threads, which on two loaded cores made the first attempts of sixty calls at once take over a second.
     */
    @Override
    protected Stream<Jvm> targets() {
        return Jdks.of(Jdks.JAVA_11_UP).stream().flatMap(jdk -> MODES.stream().map(m -> new Jvm(jdk, List.of(m))));
    }

    @Override
    protected Stream<Jvm> quietTargets() {
        return Jdks.of(Jdks.JAVA_11_UP).stream().map(jdk -> new Jvm(jdk, MODES));
    }

    @Override
    protected String clientName() {
        return "jdk-httpclient";
    }

    @Override
    protected List<String> modeParts(String mode, Run run) {
        return List.of("mode=" + mode);
    }

    @Override
    protected String nonReplayableBody(String mode) {
        return "publisher=inputstream"; // BodyPublishers.ofInputStream: the agent cannot know it gives the same bytes
    }

    /**
     * The driver's own calls start 1.5 s after the contract's: the contract bounds the first attempts of its deadline
     * calls (within 600 ms), and thirty more connections and TLS handshakes at the same moment on two loaded cores
     * took longer than that.
     */
    static final String LATER = "startAfterMs=1500";

    @Override
    protected void addOwnCalls(Jvm jvm, Run kind, Batch b) {
        if (kind != Run.CONTRACT) {
            return;
        }
        for (String m : jvm.modes()) {
            for (String h : HANDLERS) {
                b.add(m + "-handler-" + h, "/handler/" + h, List.of(LATER, "mode=" + m, "handler=" + h),
                        Step.status(503).body("busy-" + h), Step.status(503).body("again-" + h),
                        Step.ok().body("fine-" + h));
            }
            b.add(m + "-handler-discarding", "/handler/discarding", List.of(LATER, "mode=" + m, "handler=discarding"),
                    Step.status(503).body("busy"), Step.ok().body("fine"));
            for (String p : REPLAYABLE) {
                b.add(m + "-publisher-" + p, "/publisher/" + p, List.of(LATER, "mode=" + m, "method=PUT", "body=same-" + p,
                        "publisher=" + p), Step.status(503), Step.status(201).body("stored"));
            }
            for (String p : ONE_SHOT) {
                b.add(m + "-publisher-" + p, "/publisher/" + p, List.of(LATER, "mode=" + m, "method=PUT", "body=once-" + p,
                        "publisher=" + p), Step.status(503).body("busy"), Step.ok());
            }
            b.addTls(m + "-https", "/secure", List.of(LATER, "mode=" + m), Step.status(503), Step.ok().body("secure"));
            b.addTls(m + "-https-h2", "/secure/h2", List.of(LATER, "mode=" + m, "client=h2"), Step.status(503),
                    Step.ok().body("secure"));
            b.add(m + "-h1", "/h1", List.of(LATER, "mode=" + m, "client=h1"), Step.status(503), Step.ok().body("h1"));
            // the same connection: the first call is answered, the second read and dropped without an answer
            b.add(m + "-postDropReused", "/drop", List.of(LATER, "mode=" + m, "client=h1", "method=POST", "body=once",
                    "repeat=2"), Step.ok(), Step.dropAfterRequest(), Step.ok());
            if (m.equals("async")) {
                // one client executor thread: while one call waits 2 s to retry, another goes through at once
                b.add("async-exec1-slow", "/limited", List.of(LATER, "mode=async", "client=exec1"),
                        Step.status(429).retryAfterSeconds(2), Step.ok());
                b.add("async-exec1-fast", "/fast", List.of("mode=async", "client=exec1", "startAfterMs=2000"),
                        Step.ok().body("quick"));
            }
            b.add(m + "-getDropReused", "/drop", List.of(LATER, "mode=" + m, "client=h1", "repeat=2"), Step.ok(),
                    Step.dropAfterRequest(), Step.ok().body("recovered"));
        }
    }

    @Override
    protected void checkOwn(Jvm jvm, Run kind, Batch b, ForkedApp.Result run) {
        assertTrue(run.single("APP").get("java").startsWith(jvm.jdk().version() + "."), "ran on " + jvm + "\n" + run);
        if (kind != Run.CONTRACT) {
            return;
        }
        assertFalse(String.join(" ", run.command()).contains("--add-opens"), "no flag besides -javaagent");
        assertFalse(run.stderr().contains("internal-error"), run.describe());
        if (jvm.modes().contains("async")) {
            assertTheExecutorIsNotHeld(b, run);
        }
        for (String m : jvm.modes()) {
            // every BodyHandler gets the final response only: the discarded bodies never reach it
            for (String h : HANDLERS) {
                String id = m + "-handler-" + h;
                ReportLine r = result(run, id);
                assertEquals(200, r.getInt("status"), id + "\n" + run.describe());
                assertEquals("fine-" + h, r.get("body"), id);
                assertEquals(List.of("1", "2", "3"), markers(b.server(id).requests()), id);
            }
            ReportLine discarding = result(run, m + "-handler-discarding");
            assertEquals(200, discarding.getInt("status"), run.describe());
            assertEquals(2, b.server(m + "-handler-discarding").requestCount());
            // publishers that send the same bytes at every subscription: retried, byte-identical, marked
            for (String p : REPLAYABLE) {
                String id = m + "-publisher-" + p;
                assertEquals(201, result(run, id).getInt("status"), id + "\n" + run.describe());
                List<RecordedRequest> seen = b.server(id).requests();
                assertEquals(List.of("same-" + p, "same-" + p), seen.stream().map(RecordedRequest::bodyUtf8).toList(), id);
                assertEquals(List.of("1", "2"), markers(seen), id);
            }
            // the others: sent once, unmarked, the 503 goes back to the caller
            for (String p : ONE_SHOT) {
                String id = m + "-publisher-" + p;
                assertEquals(503, result(run, id).getInt("status"), id + "\n" + run.describe());
                List<RecordedRequest> seen = b.server(id).requests();
                assertEquals(1, seen.size(), id);
                assertEquals("once-" + p, seen.get(0).bodyUtf8());
                assertNull(seen.get(0).header("Retry-Attempt"), id);
                assertTrue(logged(run, "give up", "path=/publisher/" + p + " ", "reason=body-not-replayable"),
                        run.describe());
            }
            for (String id : List.of(m + "-https", m + "-https-h2", m + "-h1")) {
                assertEquals(200, result(run, id).getInt("status"), id + "\n" + run.describe());
                assertEquals(List.of("1", "2"), markers(b.server(id).requests()), id);
            }
            // a POST read and dropped on a reused connection: the client's own resend is gone under replace, the
            // caller gets the failure; a GET is retried by the agent, marked 1, 2
            List<RecordedRequest> post = b.server(m + "-postDropReused").requests();
            assertEquals(2, post.size(), "the first call, then the dropped POST once: " + post);
            assertTrue(result(run, m + "-postDropReused").get("failure") != null, run.describe());
            ReportLine get = result(run, m + "-getDropReused");
            assertEquals(200, get.getInt("status"), run.describe());
            assertEquals("recovered", get.get("body"));
            List<RecordedRequest> gets = b.server(m + "-getDropReused").requests();
            assertEquals(List.of("1", "1", "2"), markers(gets), "the first call, then the dropped GET and its retry");
        }
    }

    /**
     * HTTP/2 over TLS (ALPN) on loopback, sync and async, GET and a PUT with a replayable body: every attempt is an
     * HTTP/2 stream, retried and marked as over HTTP/1.1; the caller gets the HTTP/2 response.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void http2OverTls(Jdks.Jdk jdk) throws Exception {
        try (H2Server server = new H2Server(2)) {
            List<String> args = new ArrayList<>();
            for (String m : MODES) {
                args.addAll(List.of("--call", "id=" + m + "-h2-get;url=" + server.url("/h2/get/" + m) + ";mode=" + m
                        + ";client=h2"));
                args.addAll(List.of("--call", "id=" + m + "-h2-put;url=" + server.url("/h2/put/" + m) + ";mode=" + m
                        + ";client=h2;method=PUT;body=same;header=Idempotency-Key: k-9"));
            }
            ForkedApp.Result run = app(jdk, "h2").policy(POLICY).agentArg("log", "debug").args(args).run()
                    .assertExitCode(0);
            for (String m : MODES) {
                for (String kind : List.of("get", "put")) {
                    ReportLine r = result(run, m + "-h2-" + kind);
                    assertEquals(200, r.getInt("status"), run.describe());
                    assertEquals("fine", r.get("body"));
                    assertEquals("HTTP_2", r.get("version"), r.toString());
                    List<H2Server.Seen> seen = server.seen("/h2/" + kind + "/" + m);
                    assertEquals(List.of("1", "2", "3"), seen.stream().map(H2Server.Seen::marker).toList(), m + kind);
                    assertTrue(seen.stream().allMatch(s -> s.protocol().equals("HTTP/2.0")), seen.toString());
                    if (kind.equals("put")) {
                        assertEquals(List.of("same", "same", "same"), seen.stream().map(H2Server.Seen::body).toList());
                    }
                }
            }
            assertFalse(run.stderr().contains("internal-error"), run.describe());
        }
    }

    /**
     * A refused connection, alone and with the agent (3 attempts, 10 ms apart), a POST without key in each mode: the
     * client retries a refused connection once by itself (its debug log says so: "ConnectException (async):
     * retrying"); with the agent, which retries a request that never left itself, only its last attempt keeps that
     * retry, so one layer retries. Counted from the client's own debug log.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void theClientsOwnConnectRetryIsLeftToTheAgent(Jdks.Jdk jdk) {
        List<String> args = new ArrayList<>();
        for (String m : MODES) {
            args.addAll(List.of("--call", "id=" + m + "-refused;url=http://127.0.0.1:"
                    + ScriptedServer.refusingPort() + "/never/" + m + ";mode=" + m
                    + ";method=POST;body=once"));
        }
        String policy = "version: 1\ndefaults:\n  maxAttempts: 3\n  backoff: { base: 10ms, cap: 10ms, jitter: none }\n";
        // alone: the client's one retry per call; the agent: the same, on its last attempt; the agent keeping the
        // clients' own retries (builtInRetries: keep): one per attempt
        for (String variant : List.of("alone", "agent", "keep")) {
            ForkedApp app = app(jdk, "connect-retry-" + variant).sysProp("jdk.internal.httpclient.debug", "true")
                    .args(args);
            boolean agent = !variant.equals("alone");
            if (agent) {
                app.policy(variant.equals("keep") ? policy + "builtInRetries: keep\n" : policy).agentArg("log", "debug");
            }
            ForkedApp.Result run = app.run().assertExitCode(0);
            for (String m : MODES) {
                assertTrue(result(run, m + "-refused").get("failure").contains("ConnectException"), run.describe());
            }
            long clientRetries = run.stderrLines().stream()
                    .filter(l -> l.contains("ConnectException (async): retrying")).count();
            assertEquals(MODES.size() * (variant.equals("keep") ? 3 : 1), clientRetries, variant + "\n"
                    + run.describe());
            if (agent) {
                for (String m : MODES) {
                    assertTrue(logged(run, "give up", "path=/never/" + m + " ", "attempt=3/3",
                            "cause=failure:connect sent=no", "reason=attempts"), run.describe());
                }
            }
        }
    }

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.of(Jdks.JAVA_11_UP).stream();
    }

    static void assertTheExecutorIsNotHeld(Batch b, ForkedApp.Result run) {
        List<RecordedRequest> slow = b.server("async-exec1-slow").awaitRequests(2, WAIT);
        RecordedRequest fast = b.server("async-exec1-fast").awaitRequests(1, WAIT).get(0);
        assertTrue(slow.get(1).millisAfter(slow.get(0)) >= 2000, slow.toString());
        assertTrue(fast.arrivalNanos() < slow.get(1).arrivalNanos(), "the fast call was not held up");
        assertTrue(result(run, "async-exec1-fast").getLong("elapsedMs") < Bounds.AT_ONCE_MS, run.describe());
        assertEquals("quick", result(run, "async-exec1-fast").get("body"));
        assertEquals(200, result(run, "async-exec1-slow").getInt("status"), run.describe());
    }

    static ForkedApp app(Jdks.Jdk jdk, String name) {
        return ForkedApp.batch("jdk-httpclient").name("jdkhttp-" + name + "-" + jdk).java(jdk.java())
                .classpath(ForkedApp.testClasses()).sysProps(TlsMaterial.shared().clientSystemProperties());
    }
}
