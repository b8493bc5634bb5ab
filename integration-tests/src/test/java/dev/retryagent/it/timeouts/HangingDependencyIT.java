package dev.retryagent.it.timeouts;

import static dev.retryagent.it.harness.Runs.logged;
import static dev.retryagent.it.harness.Runs.markers;
import static dev.retryagent.it.harness.Runs.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import org.junit.jupiter.api.Tag;

import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.RawServer;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A dependency that accepts the connection and never answers, against a legacy HttpURLConnection call that sets no
 * timeout (the JDK's default: wait forever). Without the agent the call hangs; with {@code attemptTimeout} each
 * attempt is cut at its limit through the connection's own timeouts, retried when the request may be retried, and the
 * deadline ends the call. The servers hold a hanging answer for 60 s: a call that was not cut would take that long.
 */
@Tag(Jdks.MATRIX)
@Timeout(180)
class HangingDependencyIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration HANG = Duration.ofSeconds(60);
    /** What a loaded 2-core machine may add to a call's time beyond what the policy allows it. */
    private static final long MARGIN_MS = 1000;
    /** HttpCore's {@code IOReactorConfig} select interval (4 and 5): how often a reactor looks at timeouts. */
    private static final long REACTOR_SELECT_MS = 1000;

    static final String POLICY = """
            version: 1
            defaults:
              maxAttempts: 3
              backoff: { base: 20ms, cap: 50ms }
              attemptTimeout: 500ms
              deadline: 2s
            rules:
              - match: { path: "/long/**" }
                attemptTimeout: 1500ms
            """;

    /**
     * One client in one mode on one JDK: its batch application, with the parts that spell the mode. Whether the body
     * of a response is read with the application's own timeouts afterwards ({@code ownBodyTimeouts}) is the
     * client's: HttpURLConnection gets them back; OkHttp reads the whole exchange with the attempt's. How late a
     * timeout may fire ({@code granularityMs}) is the client's too: the async I/O reactors of HttpClient 5 and
     * HttpAsyncClient 4 look at their timeouts once per select interval (1 s), the others' sockets at once.
     */
    record Target(String client, ClientLibs libs, Jdks.Jdk jdk, List<String> parts,
                  boolean ownBodyTimeouts, long granularityMs, String timeoutException) {
        Target(String client, ClientLibs libs, Jdks.Jdk jdk, List<String> parts,
               boolean ownBodyTimeouts) {
            this(client, libs, jdk, parts, ownBodyTimeouts, 0);
        }

        Target(String client, ClientLibs libs, Jdks.Jdk jdk, List<String> parts,
               boolean ownBodyTimeouts, long granularityMs) {
            this(client, libs, jdk, parts, ownBodyTimeouts, granularityMs, "java.net.SocketTimeoutException");
        }

        ForkedApp app(String name) {
            ForkedApp app = ForkedApp.batch(client);
            return app.name("hang-" + client + "-" + name + "-" + jdk).clientLibs(libs).java(jdk.java());
        }

        @Override
        public String toString() {
            return client + " " + libs + " " + parts + " on " + jdk;
        }
    }

    static Stream<Target> targets() {
        Stream<Target> huc = Jdks.of(Jdks.ALL).stream().map(jdk -> new Target("httpurlconnection",
                ClientLibs.NONE, jdk, List.of(), true));
        Stream<Target> okhttp = Stream.of(ClientLibs.OKHTTP_4, ClientLibs.OKHTTP_5).flatMap(libs -> Stream.of("sync",
                "async").map(mode -> new Target("okhttp", libs, Jdks.testJdk(),
                List.of("mode=" + mode), false)));
        Stream<Target> httpClient5 = Stream.of(
                new Target("httpclient5", ClientLibs.HTTPCLIENT5_NEWEST,
                        Jdks.testJdk(), List.of("api=classic", "client=pool5"), false),
                new Target("httpclient5", ClientLibs.HTTPCLIENT5_NEWEST,
                        Jdks.testJdk(), List.of("api=async", "client=pool5"), false, REACTOR_SELECT_MS),
                new Target("httpclient5", ClientLibs.HTTPCLIENT5_NEWEST,
                        Jdks.testJdk(), List.of("api=fluent"), false),
                new Target("httpclient5", ClientLibs.HTTPCLIENT5_OLDEST,
                        Jdks.testJdk(), List.of("api=classic", "client=pool5"), false),
                new Target("httpclient5", ClientLibs.HTTPCLIENT5_OLDEST,
                        Jdks.testJdk(), List.of("api=async", "client=pool5"), false, REACTOR_SELECT_MS));
        Stream<Target> httpClient4 = Stream.of(ClientLibs.HTTPCLIENT4_OLDEST, ClientLibs.HTTPCLIENT4_NEWEST)
                .flatMap(libs -> Stream.of(
                        new Target("httpclient4", libs, Jdks.testJdk(),
                                List.of("api=classic", "client=pool5"), false),
                        new Target("httpclient4", libs, Jdks.testJdk(),
                                List.of("api=async", "client=pool5"), false, REACTOR_SELECT_MS)));
        // The request's own timeout (30 s) ends at the response head: the body is the application's
        Stream<Target> jdkHttp = Jdks.of(Jdks.JAVA_11_UP).stream().flatMap(jdk -> Stream.of("sync", "async")
                .map(mode -> new Target("jdk-httpclient", ClientLibs.NONE, jdk,
                        List.of("mode=" + mode), true, 0, "java.net.http.HttpTimeoutException")));
        // The request's responseTimeout (the agent's bound, and the application's own readTimeoutMs, which is set
        // where the request is sent: send=outbound) times the response, body included.
        Stream<Target> reactorNetty = Stream.of("sync", "async").map(mode -> reactorNetty(ClientLibs.REACTOR_NETTY_1_3,
                Jdks.testJdk(), mode));
        // the legacy JDKs, a mode of each library client
        Stream<Target> legacy = Jdks.besides(8, 11).stream().flatMap(jdk -> Stream.of(
                new Target("okhttp", ClientLibs.OKHTTP_4, jdk, List.of("mode=sync"), false),
                new Target("httpclient5", ClientLibs.HTTPCLIENT5_NEWEST, jdk,
                        List.of("api=classic", "client=pool5"), false),
                new Target("httpclient4", ClientLibs.HTTPCLIENT4_NEWEST, jdk,
                        List.of("api=async", "client=pool5"), false, REACTOR_SELECT_MS),
                reactorNetty(ClientLibs.REACTOR_NETTY_1_0, jdk, "sync")));
        return Stream.of(huc, okhttp, httpClient5, httpClient4, jdkHttp, reactorNetty, legacy).flatMap(t -> t);
    }

    private static Target reactorNetty(ClientLibs libs, Jdks.Jdk jdk, String mode) {
        return new Target("reactor-netty", libs, jdk, List.of("mode=" + mode, "send=outbound"), false, 0,
                "io.netty.handler.timeout.ReadTimeoutException");
    }

    private static String call(Target target, String id, ScriptedServer server, String path, String... more) {
        return call(target, id, server.url(path), more);
    }

    private static String call(Target target, String id, String url, String... more) {
        StringBuilder spec = new StringBuilder("id=" + id + ";url=" + url + ";read=code");
        for (String part : target == null ? List.<String>of() : target.parts()) {
            spec.append(';').append(part);
        }
        for (String part : more) {
            spec.append(';').append(part);
        }
        return spec.toString();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void attemptsAreCutAndTheDeadlineEndsTheCall(Target t) throws Exception {
        List<AutoCloseable> closer = new ArrayList<>();
        try {
            ScriptedServer recovers = open(closer, Step.ok().body("late").delay(HANG), Step.ok().body("fine"));
            ScriptedServer hangs = open(closer, hanging(), hanging(), hanging(), hanging());
            ScriptedServer post = open(closer, hanging(), Step.ok());
            ScriptedServer own = open(closer, hanging(), Step.ok().body("fine"));
            ScriptedServer longer = open(closer, hanging(), hanging(), hanging());
            RawServer lateBody = new RawServer(RawServer.Fault.LATE_BODY);
            closer.add(lateBody);
            ForkedApp app = t.app("agent").policy(POLICY).agentArg("log", "debug")
                    .args("--call", call(t, "recovers", recovers, "/items/recovers"))
                    .args("--call", call(t, "hangs", hangs, "/items/hangs"))
                    .args("--call", call(t, "post", post, "/orders", "method=POST", "body=pay"))
                    .args("--call", call(t, "own", own, "/items/own", "readTimeoutMs=200"))
                    .args("--call", call(t, "long", longer, "/long/items"));
            if (t.ownBodyTimeouts()) {
                app.args("--call", call(t, "body", lateBody.url("/items/body"), "read=stream"));
            }
            ForkedApp.Result run = app.run().assertExitCode(0);

            // The first attempt hangs, is cut at 500 ms, and the second is answered at once.
            ReportLine r = result(run, "recovers");
            assertEquals(200, r.getInt("status"), run.describe());
            assertEquals("fine", r.get("body"));
            assertEquals(List.of("1", "2"), markers(recovers.awaitRequests(2, WAIT)));
            assertTrue(r.getLong("elapsedMs") < 2000, "cut at 500 ms, not held 60 s: " + r);
            assertTrue(logged(run, "retry ", "path=/items/recovers ", "attempt=2/3", "cause=attempt-timeout"),
                    run.describe());

            // Always hanging: attempts of 500 ms (three, unless the client's granularity leaves time for two only
            // before the deadline), then the client's own timeout exception.
            r = result(run, "hangs");
            long late = t.granularityMs();
            assertEquals(t.timeoutException(), r.get("failure"), r.toString());
            assertTrue(r.getLong("elapsedMs") >= 3 * 500, r.toString());
            assertTrue(r.getLong("elapsedMs") < 2000 + late + MARGIN_MS, r.toString());
            List<String> sent = markers(hangs.awaitRequests(late == 0 ? 3 : 2, WAIT));
            assertEquals(List.of("1", "2", "3").subList(0, sent.size()), sent);
            assertTrue(logged(run, "give up ", "path=/items/hangs ", "cause=attempt-timeout",
                    sent.size() == 3 ? "reason=attempts" : "reason=deadline"), run.describe());

            // A POST without a key: sent once, unmarked, cut at 500 ms; the caller gets the timeout.
            r = result(run, "post");
            assertEquals(t.timeoutException(), r.get("failure"), r.toString());
            assertTrue(r.getLong("elapsedMs") >= 500, r.toString());
            assertTrue(r.getLong("elapsedMs") < 500 + late + MARGIN_MS, r.toString());
            assertEquals(1, post.requestCount());
            assertNull(post.requests().get(0).header("Retry-Attempt"));
            assertTrue(logged(run, "give up ", "path=/orders ", "cause=attempt-timeout", "reason=not-idempotent"),
                    run.describe());

            // The application's own read timeout (200 ms) is below the limit: it applies, and it is its timeout.
            // (java.net.http's request timeout times the whole call, as the client alone times its send: a deadline)
            r = result(run, "own");
            if (t.client().equals("jdk-httpclient")) {
                assertEquals(t.timeoutException(), r.get("failure"), r.toString());
                assertTrue(logged(run, "give up ", "path=/items/own ", "cause=failure:timeout", "reason=deadline"),
                        run.describe());
                assertEquals(1, own.requestCount());
            } else {
                assertEquals(200, r.getInt("status"), run.describe());
                assertTrue(logged(run, "retry ", "path=/items/own ", "cause=failure:timeout"), run.describe());
            }
            assertFalse(logged(run, "path=/items/own ", "cause=attempt-timeout"), run.describe());

            // attemptTimeout 1.5 s under a 2 s deadline: the second attempt gets what is left, and the call ends by 2 s.
            r = result(run, "long");
            assertEquals(t.timeoutException(), r.get("failure"), r.toString());
            assertTrue(r.getLong("elapsedMs") >= 2000 - 100, r.toString());
            assertTrue(r.getLong("elapsedMs") < 2000 + late + MARGIN_MS, r.toString());
            List<RecordedRequest> seen = longer.awaitRequests(late == 0 ? 2 : 1, WAIT);
            assertTrue(seen.size() <= 2, seen.toString());
            assertTrue(logged(run, "give up ", "path=/long/items ", "reason=deadline"), run.describe());

            if (t.ownBodyTimeouts()) {
                // A response head within the limit is the application's: its body, 1.2 s later, is read with its own
                // timeouts (none), not cut at the attempt's 500 ms.
                r = result(run, "body");
                assertEquals(200, r.getInt("status"), run.describe());
                assertEquals("x".repeat(RawServer.TRICKLE_BYTES), r.get("body"), r.toString());
                assertEquals(1, lateBody.requests());
            }
            // Nothing held: every connection of the pool is back (or closed), none leased to a cut attempt
            List<ReportLine> pools = run.lines("POOL");
            if (t.client().equals("okhttp") || t.parts().contains("client=pool5")) {
                assertTrue(!pools.isEmpty(), run.describe());
            }
            for (ReportLine pool : pools) {
                assertEquals("0", pool.has("leased") ? pool.get("leased") : pool.get("inUse"), pool.toString());
            }
            System.out.printf("HANGING client=%s libs=%s parts=%s java=%s recovers=%sms hangs=%sms post=%sms long=%sms%n",
                    t.client(), t.libs(), t.parts(), t.jdk().version(), result(run, "recovers").get("elapsedMs"),
                    result(run, "hangs").get("elapsedMs"), result(run, "post").get("elapsedMs"),
                    result(run, "long").get("elapsedMs"));
        } finally {
            closeAll(closer);
        }
    }

    /**
     * Without the agent the same call waits for the answer: after the request arrived, it still has no result when
     * the agent's deadline (2 s) and a margin have passed. The test ends it.
     */
    @Test
    void withoutTheAgentTheCallHangs() throws Exception {
        try (ScriptedServer hangs = ScriptedServer.start(hanging());
             ForkedApp.Running app = ForkedApp.batch("httpurlconnection").name("hang-alone")
                     .args("--await-go").args("--call", call(null, "hangs", hangs, "/items/hangs")).start()) {
            app.awaitStdoutLine(l -> l.equals("READY"), WAIT);
            app.writeLine("go");
            hangs.awaitRequests(1, WAIT);
            long since = System.nanoTime();
            // A bound of the test, not of the product: the call would go on for the server's 60 s.
            while (System.nanoTime() - since < Duration.ofMillis(2000 + MARGIN_MS).toNanos()) {
                assertFalse(app.stdoutSoFar().contains("RESULT"), app.stdoutSoFar());
                Thread.sleep(100);
            }
            assertTrue(app.isAlive());
        }
    }

    /**
     * A legacy call with no timeouts whose first attempt hangs past the deadline and then loses its connection
     * without a response, while the next request is answered at once. The JDK alone resends it once and the caller
     * gets the 200; the agent, which switched that resend off to be the only layer, makes that one resend itself
     * rather than give up at the deadline.
     */
    @Test
    void nothingTheJdkAloneRecoversIsLostToTheDeadline() {
        String policy = "version: 1\ndefaults:\n  backoff: { base: 20ms, cap: 50ms }\n  deadline: 1s\n";
        for (boolean agent : new boolean[] {false, true}) {
            try (ScriptedServer dropsLate = ScriptedServer.start(Step.dropAfterRequest().delay(Duration.ofMillis(1500)),
                    Step.ok().body("fine"))) {
                ForkedApp app = ForkedApp.batch("httpurlconnection").name("hang-drop-" + agent)
                        .args("--call", call(null, "legacy", dropsLate, "/items/legacy"));
                if (agent) {
                    app.policy(policy).agentArg("log", "debug");
                }
                ForkedApp.Result run = app.run().assertExitCode(0);
                ReportLine r = result(run, "legacy");
                assertEquals(200, r.getInt("status"), run.describe());
                assertEquals("fine", r.get("body"));
                List<RecordedRequest> seen = dropsLate.awaitRequests(2, WAIT);
                assertEquals(2, seen.size(), seen.toString());
                if (agent) {
                    assertEquals(List.of("1", "2"), markers(seen));
                    assertTrue(logged(run, "retry ", "path=/items/legacy ", "attempt=2/3", "cause=failure:reset",
                            "wait=0ms past=deadline"), run.describe());
                } else {
                    assertNull(seen.get(1).header("Retry-Attempt"), "the JDK's own resend");
                }
            }
        }
    }

    private static Step hanging() {
        return Step.ok().body("too late").delay(HANG);
    }

    private static ScriptedServer open(List<AutoCloseable> closer, Step... steps) {
        ScriptedServer server = ScriptedServer.start(steps);
        closer.add(server);
        return server;
    }

    private static void closeAll(List<AutoCloseable> closer) {
        for (AutoCloseable c : closer) {
            try {
                c.close();
            } catch (Exception ignored) {
                // closing what is left
            }
        }
    }
}
