package dev.retryagent.it.timeouts;

import static dev.retryagent.it.harness.Runs.logged;
import static dev.retryagent.it.harness.Runs.markers;
import static dev.retryagent.it.harness.Runs.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import org.junit.jupiter.api.Tag;

import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The application's own limit for a whole call (OkHttp's {@code callTimeout}, {@code java.net.http}'s request
 * timeout) is a deadline of that call under the agent too: no wait and no attempt past it, and the caller's own
 * exception at its time, not after the agent's wait. The rule's deadline (10 s) and backoff stay the defaults'.
 */
@Tag(Jdks.MATRIX)
@Timeout(120)
class CallerTimeLimitsIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration HANG = Duration.ofSeconds(60);
    /** What a loaded 2-core machine may add to the caller's own limit. */
    private static final long MARGIN_MS = 700;

    static final String POLICY = """
            version: 1
            defaults:
              backoff: { base: 20ms, cap: 50ms }
            """;

    /** One client in one mode: how its calls are spelled, and how its call-level limit is given. */
    record Target(String client, ClientLibs libs, Jdks.Jdk jdk, String mode, String limitKey,
                  String timeoutException) {
        ForkedApp app() {
            return ForkedApp.batch(client).name("caller-limit-" + client + "-" + mode + "-" + jdk).clientLibs(libs)
                    .java(jdk.java());
        }

        String call(String id, ScriptedServer server, String path, long limitMillis) {
            return "id=" + id + ";url=" + server.url(path) + ";mode=" + mode + ";" + limitKey + "=" + limitMillis;
        }

        @Override
        public String toString() {
            return client + " " + libs + " " + mode + " on " + jdk;
        }
    }

    static Stream<Target> targets() {
        List<Target> targets = new ArrayList<>();
        for (ClientLibs libs : List.of(ClientLibs.OKHTTP_4, ClientLibs.OKHTTP_5)) {
            for (String mode : List.of("sync", "async")) {
                targets.add(new Target("okhttp", libs, Jdks.testJdk(), mode, "callTimeoutMs",
                        "java.io.InterruptedIOException"));
            }
        }
        for (Jdks.Jdk jdk : Jdks.of(Jdks.JAVA_11_UP)) {
            for (String mode : List.of("sync", "async")) {
                targets.add(new Target("jdk-httpclient", ClientLibs.NONE, jdk, mode,
                        "readTimeoutMs", "java.net.http.HttpTimeoutException"));
            }
        }
        return targets.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void theCallersLimitIsADeadlineOfTheWholeCall(Target t) {
        try (ScriptedServer retryAfter = ScriptedServer.start(Step.status(503).retryAfterSeconds(1).body("busy"),
                Step.ok().body("fine"));
             ScriptedServer roomy = ScriptedServer.start(Step.status(503).retryAfterSeconds(1).body("busy"),
                     Step.ok().body("fine"));
             ScriptedServer hangs = ScriptedServer.start(Step.status(503).body("busy"),
                     Step.ok().body("too late").delay(HANG), Step.ok().body("third"))) {
            ForkedApp.Result run = t.app().policy(POLICY).agentArg("log", "debug")
                    .args("--call", t.call("retryAfter", retryAfter, "/limited", 500))
                    .args("--call", t.call("roomy", roomy, "/roomy", 5000))
                    .args("--call", t.call("hangs", hangs, "/hangs", 800))
                    .run().assertExitCode(0);

            // Retry-After: 1 against 500 ms: the wait would end past the caller's limit, so the 503 goes back at once
            ReportLine r = result(run, "retryAfter");
            assertEquals(503, r.getInt("status"), run.describe());
            assertTrue(r.getLong("elapsedMs") < 500, "not held for the Retry-After: " + r);
            assertEquals(1, retryAfter.requestCount());
            assertTrue(logged(run, "give up ", "path=/limited ", "reason=deadline"), run.describe());

            // 5 s: the wait fits, the call is retried as without a limit
            r = result(run, "roomy");
            assertEquals(200, r.getInt("status"), run.describe());
            assertEquals(List.of("1", "2"), markers(roomy.awaitRequests(2, WAIT)));

            // 503, then a second attempt that hangs: the caller's own timeout exception at its time (800 ms), and no
            // third attempt
            r = result(run, "hangs");
            assertEquals(t.timeoutException(), r.get("failure"), r.toString());
            assertTrue(r.getLong("elapsedMs") >= 800 - 50, r.toString());
            assertTrue(r.getLong("elapsedMs") < 800 + MARGIN_MS, r.toString());
            assertEquals(List.of("1", "2"), markers(hangs.awaitRequests(2, WAIT)));
            assertEquals(2, hangs.requestCount());
            System.out.printf("CALLER-LIMIT client=%s libs=%s mode=%s java=%s retryAfter=%sms roomy=%sms hangs=%sms%n",
                    t.client(), t.libs(), t.mode(), t.jdk().version(), result(run, "retryAfter").get("elapsedMs"),
                    result(run, "roomy").get("elapsedMs"), r.get("elapsedMs"));
        }
    }
}
