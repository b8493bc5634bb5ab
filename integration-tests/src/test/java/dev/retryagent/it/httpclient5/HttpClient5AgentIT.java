package dev.retryagent.it.httpclient5;

import static dev.retryagent.it.harness.Runs.logged;
import static dev.retryagent.it.harness.Runs.markers;
import static dev.retryagent.it.harness.Runs.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.apps.HttpClient5Scenario;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.LateServer;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.RetryAfterDates;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The agent on Apache HttpClient 5.2 (the oldest supported) and 5.6 (the newest), classic, async and fluent, in
 * forked JVMs that run a plain HttpClient application ({@link HttpClient5Scenario}) with {@code -javaagent}. To
 * keep the suite fast, one JVM makes many independent calls at once, each to a scripted server of its own; the
 * policy's rules (by path) give each scenario the settings it needs.
 */
@Timeout(180)
class HttpClient5AgentIT {
    static final Duration WAIT = Duration.ofSeconds(10);
    static final List<String> APIS = List.of("classic", "async", "fluent");

    static final String POLICY = """
            version: 1
            defaults:
              maxAttempts: 3
              backoff: { base: 20ms, cap: 50ms }
              retryAfter: { honor: true, max: 3s, spread: 0.1 }
            rules:
              - match: { path: "/deadline/**" }
                backoff: { base: 2s, cap: 2s, jitter: none }
                deadline: 500ms
              - match: { path: "/slow/**" }
                maxAttempts: 5
                backoff: { base: 1s, cap: 1s, jitter: none }
              - match: { path: "/refused/**" }
                maxAttempts: 8
                backoff: { base: 300ms, cap: 300ms, jitter: none }
            """;

    /** The classic {@code execute} overloads the scenario application knows (see HttpClient5Scenario). */
    static final List<String> OVERLOADS = List.of("req", "req-ctx", "host-req", "host-req-ctx", "open", "req-handler",
            "req-ctx-handler", "host-req-handler", "host-req-ctx-handler");

    /** The calls of one forked run, each with the server it talks to. */
    static final class Calls implements AutoCloseable {
        final Map<String, ScriptedServer> servers = new LinkedHashMap<>();
        final List<String> args = new ArrayList<>();
        final List<AutoCloseable> closer = new ArrayList<>();

        /** A call to a server of its own, answering {@code steps}. */
        ScriptedServer add(String id, String path, String api, List<Step> steps, String... more) {
            ScriptedServer server = ScriptedServer.start(steps.toArray(new Step[0]));
            closer.add(server);
            servers.put(id, server);
            addUrl(id, server.url(path), api, more);
            return server;
        }

        void addUrl(String id, String url, String api, String... more) {
            List<String> parts = new ArrayList<>(List.of("id=" + id, "url=" + url, "api=" + api));
            parts.addAll(List.of(more));
            args.add("--call");
            args.add(String.join(";", parts));
        }

        ScriptedServer server(String id) {
            return servers.get(id);
        }

        @Override
        public void close() throws Exception {
            for (AutoCloseable c : closer) {
                c.close();
            }
        }
    }

    static ForkedApp app(String name, ClientLibs libs) {
        return ForkedApp.of(HttpClient5Scenario.class).name("httpclient5-" + name + "-" + libs).clientLibs(libs);
    }

    static void assertVersion(ForkedApp.Result run, ClientLibs libs) {
        assertEquals(libs.version(), run.single("APP").get("version"), "the intended HttpClient version ran\n" + run);
    }

    static void assertOneCallbackEach(ForkedApp.Result run) {
        for (ReportLine callbacks : run.lines("CALLBACKS")) {
            assertEquals(1, callbacks.getInt("count"), "exactly one callback: " + callbacks);
        }
    }

    /**
     * Step 2's matrix for classic, async and fluent calls in one JVM, plus every classic {@code execute} overload,
     * the classic client kinds (createDefault, createSystem, custom, createMinimal), async producers and
     * consumers, cancelling an async future, an async retry that must not hold the only I/O reactor thread, and
     * the application's own retry configuration superseded under {@code builtInRetries: replace}.
     */
    @ParameterizedTest
    @EnumSource(names = {"HTTPCLIENT5_OLDEST", "HTTPCLIENT5_NEWEST"})
    void retriesAsTheContractSays(ClientLibs libs) throws Exception {
        try (Calls calls = new Calls()) {
            Map<String, Integer> refusedPorts = new LinkedHashMap<>();
            for (String a : APIS) {
                calls.add(a + "-get", "/items?token=secret", a,
                        List.of(Step.status(503), Step.status(503), Step.ok().body("fine")));
                calls.add(a + "-postNoKey", "/orders", a, List.of(Step.status(503), Step.ok()),
                        "method=POST", "body=b");
                calls.add(a + "-postKey", "/pay", a, List.of(Step.status(503), Step.status(201).body("created")),
                        "method=POST", "body=payload", "header=Idempotency-Key: k-1");
                calls.add(a + "-notFound", "/missing", a, List.of(Step.status(404), Step.ok()));
                calls.add(a + "-raSeconds", "/limited", a, List.of(Step.status(429).retryAfterSeconds(1), Step.ok()));
                calls.add(a + "-raDate", "/limited-until", a, List.of()); // scripted once the app is ready
                calls.add(a + "-raTooLong", "/busy", a, List.of(Step.status(503).retryAfterSeconds(10), Step.ok()));
                calls.add(a + "-deadline", "/deadline/x", a, List.of(Step.status(503), Step.ok()));
                calls.add(a + "-stream", "/upload", a, List.of(Step.status(503), Step.ok()),
                        "method=POST", "body=once", "stream=true", "header=Idempotency-Key: k-2");
            }
            for (String overload : OVERLOADS) {
                calls.add("classic-ov-" + overload, "/overload", "classic", List.of(Step.status(503), Step.ok()),
                        "overload=" + overload);
            }
            for (String kind : List.of("system", "custom", "minimal")) {
                calls.add("classic-client-" + kind, "/kind", "classic",
                        List.of(Step.status(503), Step.status(503), Step.ok()), "client=" + kind);
            }
            calls.add("classic-minimal-postKey", "/pay", "classic", List.of(Step.status(503), Step.status(201)),
                    "client=minimal", "method=POST", "body=payload", "header=Idempotency-Key: k-3", "overload=req");
            for (String kind : List.of("system", "custom")) {
                calls.add("async-client-" + kind, "/kind", "async",
                        List.of(Step.status(503), Step.status(503), Step.ok()), "client=" + kind);
            }
            calls.add("async-producer", "/produced", "async", List.of(Step.status(503), Step.status(503), Step.ok()),
                    "request=producer");
            calls.add("async-producer-postKey", "/pay", "async", List.of(Step.status(503), Step.status(201)),
                    "request=producer", "method=POST", "body=payload", "header=Idempotency-Key: k-4");
            calls.add("async-cancel", "/slow/wait", "async", List.of(Step.status(503)), "cancelAfterMs=300");
            calls.add("async-cancelInFlight", "/slow/flight", "async",
                    List.of(Step.status(503), Step.ok().delay(Duration.ofSeconds(4))), "cancelAfterMs=1500");
            calls.add("async-io1-slow", "/limited", "async", List.of(Step.status(429).retryAfterSeconds(2), Step.ok()),
                    "client=io1");
            calls.add("async-io1-fast", "/fast", "async", List.of(Step.ok().body("quick")),
                    "client=io1", "startAfterMs=500");
            for (String a : List.of("classic", "async")) {
                // the application's own strategy would retry a 503 five times, and a POST too: the policy decides
                calls.add(a + "-strategy", "/strategy", a, List.of(Step.status(503)), "client=strategy");
                calls.add(a + "-strategy-post", "/strategy", a, List.of(Step.status(503)),
                        "client=strategy", "method=POST", "body=b");
                // retries disabled by the application: the agent retries all the same
                calls.add(a + "-noretries", "/noretries", a, List.of(Step.status(503), Step.ok()), "client=noretries");
            }
            // Refusing ports last: a server started after one of them could be given the same ephemeral port.
            for (String a : APIS) {
                int port = ScriptedServer.refusingPort();
                refusedPorts.put(a, port);
                calls.addUrl(a + "-refused", "http://127.0.0.1:" + port + "/refused/" + a, a);
            }

            ForkedApp.Result run;
            Map<String, LateServer> late = new LinkedHashMap<>();
            Instant until;
            try (ForkedApp.Running app = app("agent", libs).policy(POLICY).agentArg("log", "debug")
                    .args("--await-go").args(calls.args).start()) {
                app.awaitStdoutLine(l -> l.equals("READY"), Duration.ofSeconds(60));
                // An HTTP-date has whole seconds: 3 s ahead is at least ~2 s ahead when the 429 arrives.
                until = Instant.now().plusSeconds(3);
                for (String a : APIS) {
                    calls.server(a + "-raDate").script(Step.status(429).retryAfterDate(until), Step.ok());
                }
                app.writeLine("go");
                // Connection refused until the agent has logged a retry of it; then the port opens.
                for (String a : APIS) {
                    app.awaitStderrLine(l -> l.contains("path=/refused/" + a + " ") && l.contains("cause=failure:connect"),
                            Duration.ofSeconds(20));
                    LateServer port = LateServer.bind(refusedPorts.get(a));
                    calls.closer.add(port);
                    late.put(a, port);
                }
                run = app.await();
            }
            run.assertExitCode(0);
            assertVersion(run, libs);

            for (String a : APIS) {
                // GET 503, 503, 200: three attempts, each marked, the caller sees the 200
                ReportLine r = result(run, a + "-get");
                assertEquals(200, r.getInt("status"), run.describe());
                assertEquals("fine", r.get("body"));
                List<RecordedRequest> seen = calls.server(a + "-get").awaitRequests(3, WAIT);
                assertEquals(3, seen.size(), seen.toString());
                assertEquals(List.of("1", "2", "3"), markers(seen), a);
                assertEquals("/items?token=secret", seen.get(2).target());

                // POST without an idempotency key: one request (the client's own retry is gone), the caller sees 503
                r = result(run, a + "-postNoKey");
                assertEquals(503, r.getInt("status"), run.describe());
                assertEquals(1, calls.server(a + "-postNoKey").requestCount(), a);
                assertNull(calls.server(a + "-postNoKey").requests().get(0).header("Retry-Attempt"),
                        a + ": a request the agent will not retry is unmarked");

                // POST with a key: retried, same key and byte-identical body each time
                r = result(run, a + "-postKey");
                assertEquals(201, r.getInt("status"), run.describe());
                seen = calls.server(a + "-postKey").awaitRequests(2, WAIT);
                assertEquals(2, seen.size(), a + " " + seen);
                assertEquals(List.of("k-1", "k-1"), seen.stream().map(q -> q.header("Idempotency-Key")).toList());
                assertEquals(List.of("payload", "payload"), seen.stream().map(RecordedRequest::bodyUtf8).toList());

                // 404 is not retryable
                assertEquals(404, result(run, a + "-notFound").getInt("status"));
                assertEquals(1, calls.server(a + "-notFound").requestCount());

                // Retry-After: 1 and an HTTP-date: the second attempt comes no earlier than asked
                assertEquals(200, result(run, a + "-raSeconds").getInt("status"), run.describe());
                seen = calls.server(a + "-raSeconds").awaitRequests(2, WAIT);
                assertEquals(2, seen.size());
                long waited = seen.get(1).millisAfter(seen.get(0));
                assertTrue(waited >= 1000, a + "-raSeconds waited " + waited);
                assertEquals(200, result(run, a + "-raDate").getInt("status"), run.describe());
                RetryAfterDates.assertNotBefore(until, calls.server(a + "-raDate").awaitRequests(2, WAIT));

                // Retry-After beyond retryAfter.max: returned at once
                r = result(run, a + "-raTooLong");
                assertEquals(503, r.getInt("status"));
                assertEquals("10", r.get("retryAfter"));
                assertTrue(r.getLong("elapsedMs") < 1000, r.toString());
                assertEquals(1, calls.server(a + "-raTooLong").requestCount());

                // a deadline shorter than the backoff: no attempt after the first, returned at once
                r = result(run, a + "-deadline");
                assertEquals(503, r.getInt("status"));
                assertTrue(r.getLong("elapsedMs") < 1500, r.toString());
                assertEquals(1, calls.server(a + "-deadline").requestCount());

                // a non-repeatable body is never sent twice, even with a key
                r = result(run, a + "-stream");
                assertEquals(503, r.getInt("status"), run.describe());
                assertEquals(1, calls.server(a + "-stream").requestCount());
                assertEquals("once", calls.server(a + "-stream").requests().get(0).bodyUtf8());

                // connection refused, then the port opens: the call recovers
                r = result(run, a + "-refused");
                assertEquals(200, r.getInt("status"), run.describe());
                assertEquals("late", r.get("body"));
                assertEquals(1, late.get(a).requestCount());
            }
            assertTrue(logged(run, "retry client=apache-httpclient5 method=GET host=127.0.0.1 path=/items attempt=2/3"
                    + " cause=status:503"), run.describe());
            assertFalse(run.stderr().contains("secret"), "no query string in the log\n" + run.stderr());
            assertTrue(logged(run, "give up", "path=/orders", "reason=not-idempotent"), run.describe());
            assertTrue(logged(run, "give up", "path=/busy", "reason=retry-after-too-long"), run.describe());
            assertTrue(logged(run, "give up", "path=/deadline/x", "reason=deadline"), run.describe());
            assertTrue(logged(run, "give up", "path=/upload", "reason=body-not-replayable"), run.describe());

            // every classic execute overload, with and without handler, context and target host
            for (String overload : OVERLOADS) {
                ReportLine r = result(run, "classic-ov-" + overload);
                assertEquals(200, r.getInt("status"), overload + "\n" + run.describe());
                assertEquals(List.of("1", "2"), markers(calls.server("classic-ov-" + overload).requests()), overload);
            }
            // the client kinds: createSystem, custom().build(), createMinimal (createDefault is the one above)
            for (String id : List.of("classic-client-system", "classic-client-custom", "classic-client-minimal",
                    "async-client-system", "async-client-custom", "async-producer")) {
                assertEquals(200, result(run, id).getInt("status"), id + "\n" + run.describe());
                assertEquals(List.of("1", "2", "3"), markers(calls.server(id).requests()), id);
            }
            for (String id : List.of("classic-minimal-postKey", "async-producer-postKey")) {
                assertEquals(201, result(run, id).getInt("status"), id + "\n" + run.describe());
                List<RecordedRequest> seen = calls.server(id).requests();
                assertEquals(List.of("payload", "payload"), seen.stream().map(RecordedRequest::bodyUtf8).toList(), id);
                assertEquals(List.of("1", "2"), markers(seen), id);
            }

            // async: cancelling the future stops the retries; the callback hears of it once
            ReportLine cancelled = result(run, "async-cancel");
            assertEquals("true", cancelled.get("cancelled"), cancelled.toString());
            assertEquals(1, calls.server("async-cancel").requestCount(), calls.server("async-cancel").requests().toString());
            ReportLine cancelCallbacks = run.lines("CALLBACKS").stream()
                    .filter(l -> l.get("id").equals("async-cancel")).findFirst().orElseThrow();
            assertEquals("cancelled", cancelCallbacks.get("kinds"));

            // ... and while the second attempt is in flight: it is aborted, and there is no third
            cancelled = result(run, "async-cancelInFlight");
            assertEquals("true", cancelled.get("cancelled"), cancelled.toString());
            assertTrue(cancelled.getLong("elapsedMs") < 3000, cancelled.toString());
            assertEquals(2, calls.server("async-cancelInFlight").requestCount());
            cancelCallbacks = run.lines("CALLBACKS").stream()
                    .filter(l -> l.get("id").equals("async-cancelInFlight")).findFirst().orElseThrow();
            assertEquals("cancelled", cancelCallbacks.get("kinds"));

            // async: while one call waits 2 s to retry, another call on the same single I/O thread goes through
            List<RecordedRequest> slow = calls.server("async-io1-slow").awaitRequests(2, WAIT);
            RecordedRequest fast = calls.server("async-io1-fast").awaitRequests(1, WAIT).get(0);
            assertTrue(slow.get(1).millisAfter(slow.get(0)) >= 2000, slow.toString());
            assertTrue(fast.arrivalNanos() < slow.get(1).arrivalNanos(), "the fast call was not held up");
            assertTrue(result(run, "async-io1-fast").getLong("elapsedMs") < 1000, run.describe());
            assertEquals(200, result(run, "async-io1-slow").getInt("status"));
            ReportLine getCallbacks = run.lines("CALLBACKS").stream()
                    .filter(l -> l.get("id").equals("async-get")).findFirst().orElseThrow();
            assertTrue(getCallbacks.get("kinds").startsWith("completed:200@httpclient-dispatch"), getCallbacks.toString());

            // builtInRetries: replace supersedes the application's own retry configuration
            for (String a : List.of("classic", "async")) {
                assertEquals(503, result(run, a + "-strategy").getInt("status"), run.describe());
                assertEquals(List.of("1", "2", "3"), markers(calls.server(a + "-strategy").requests()), a);
                assertEquals(503, result(run, a + "-strategy-post").getInt("status"));
                assertEquals(1, calls.server(a + "-strategy-post").requestCount(), a);
                assertEquals(200, result(run, a + "-noretries").getInt("status"));
                assertEquals(List.of("1", "2"), markers(calls.server(a + "-noretries").requests()), a);
            }

            assertOneCallbackEach(run);
            for (String line : run.agentLog()) {
                assertTrue(line.startsWith("retry-agent "), "one line per event, prefix retry-agent: " + line);
            }
        }
    }

    /**
     * Observe mode decides and logs, and changes no traffic: no agent retry, no marker, and the client's own retry
     * configuration stays in place (createDefault's strategy still resends a 503 once after 1 s, as without the
     * agent); a client with retries disabled sends exactly one request.
     */
    @ParameterizedTest
    @EnumSource(names = {"HTTPCLIENT5_OLDEST", "HTTPCLIENT5_NEWEST"})
    void observeModeDecidesAndLogsButChangesNoTraffic(ClientLibs libs) throws Exception {
        try (Calls calls = new Calls()) {
            for (String a : List.of("classic", "async")) {
                calls.add(a + "-noretries", "/observed/" + a, a, List.of(Step.status(503), Step.ok()), "client=noretries");
                calls.add(a + "-default", "/own/" + a, a, List.of(Step.status(503), Step.ok()));
            }
            calls.add("fluent-default", "/own/fluent", "fluent", List.of(Step.status(503), Step.ok()));
            ForkedApp.Result run = app("observe", libs).policy(POLICY).agentArg("mode", "observe").args(calls.args)
                    .run().assertExitCode(0);
            assertVersion(run, libs);
            for (String a : List.of("classic", "async")) {
                assertEquals(503, result(run, a + "-noretries").getInt("status"), run.describe());
                assertEquals(1, calls.server(a + "-noretries").requestCount());
                assertNull(calls.server(a + "-noretries").requests().get(0).header("Retry-Attempt"), "no marker");
                assertTrue(logged(run, "would retry", "path=/observed/" + a), run.describe());
            }
            for (String a : APIS) {
                assertEquals(200, result(run, a + "-default").getInt("status"), run.describe());
                List<RecordedRequest> seen = calls.server(a + "-default").requests();
                assertEquals(2, seen.size(), "the client's own retry, as without the agent: " + seen);
                assertTrue(seen.stream().allMatch(q -> q.header("Retry-Attempt") == null), "no marker: " + seen);
            }
            assertOneCallbackEach(run);
        }
    }

    /** A policy that fails validation: the application runs, the agent retries nothing, the error is logged. */
    @ParameterizedTest
    @EnumSource(names = {"HTTPCLIENT5_OLDEST", "HTTPCLIENT5_NEWEST"})
    void aBrokenPolicyLeavesTheApplicationRunningWithoutRetries(ClientLibs libs) throws Exception {
        try (Calls calls = new Calls()) {
            for (String a : List.of("classic", "async")) {
                calls.add(a, "/a", a, List.of(Step.status(503), Step.ok()), "client=noretries");
            }
            calls.add("fluent", "/a", "fluent", List.of(Step.status(404), Step.ok()));
            ForkedApp.Result run = app("broken-policy", libs).policy("version: 1\ndefaults:\n  maxAttempts: lots\n")
                    .args(calls.args).run().assertExitCode(0);
            assertVersion(run, libs);
            for (String a : List.of("classic", "async")) {
                assertEquals(503, result(run, a).getInt("status"), run.describe());
                assertEquals(1, calls.server(a).requestCount());
                assertNull(calls.server(a).requests().get(0).header("Retry-Attempt"));
            }
            assertEquals(404, result(run, "fluent").getInt("status"));
            assertTrue(logged(run, "retry-agent policy-error ", "policy.yaml:3: defaults.maxAttempts"), run.describe());
            assertTrue(logged(run, "without retries"), run.describe());
        }
    }

    /**
     * {@code builtInRetries: keep}: the client's own retry configuration is left exactly as the application set
     * it. createDefault's {@code DefaultHttpRequestRetryStrategy} resends a 503 once after 1 s, for any method: a
     * POST without key is sent twice, as without the agent. The agent's retries run inside, as their own layer.
     */
    @ParameterizedTest
    @EnumSource(names = {"HTTPCLIENT5_OLDEST", "HTTPCLIENT5_NEWEST"})
    void keepLeavesTheClientsOwnRetriesAsConfigured(ClientLibs libs) throws Exception {
        try (Calls calls = new Calls()) {
            for (String a : APIS) {
                calls.add(a + "-post", "/orders", a, List.of(Step.status(503)), "method=POST", "body=b");
            }
            for (String a : List.of("classic", "async")) {
                calls.add(a + "-strategy-post", "/orders", a, List.of(Step.status(503)),
                        "client=strategy", "method=POST", "body=b");
                calls.add(a + "-noretries", "/items", a, List.of(Step.status(503), Step.ok()), "client=noretries");
            }
            ForkedApp.Result run = app("keep", libs).policy(POLICY + "builtInRetries: keep\n").args(calls.args)
                    .run().assertExitCode(0);
            assertVersion(run, libs);
            for (String a : APIS) {
                assertEquals(503, result(run, a + "-post").getInt("status"), run.describe());
                List<RecordedRequest> seen = calls.server(a + "-post").requests();
                assertEquals(2, seen.size(), a + ": the client's own resend of the POST: " + seen);
                assertTrue(seen.get(1).millisAfter(seen.get(0)) >= 900, "after the strategy's 1 s: " + seen);
                // the agent's layer does not retry the POST itself, so it leaves it unmarked
                assertEquals(Arrays.asList(null, null), markers(seen), a);
            }
            for (String a : List.of("classic", "async")) {
                assertEquals(503, result(run, a + "-strategy-post").getInt("status"), run.describe());
                assertEquals(6, calls.server(a + "-strategy-post").requestCount(), "1 + the application's 5 retries");
                assertEquals(200, result(run, a + "-noretries").getInt("status"));
                assertEquals(List.of("1", "2"), markers(calls.server(a + "-noretries").requests()), a);
            }
            assertOneCallbackEach(run);
        }
    }
}
