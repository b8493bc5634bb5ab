package dev.retryagent.it.okhttp;

import static dev.retryagent.it.harness.Runs.logged;
import static dev.retryagent.it.harness.Runs.markers;
import static dev.retryagent.it.harness.Runs.open;
import static dev.retryagent.it.harness.Runs.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.LateServer;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.RetryAfterDates;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent on OkHttp 4.12 and 5.x, sync ({@code Call.execute}) and async ({@code Call.enqueue}), in forked JVMs
 * that run a plain OkHttp application ({@link OkHttpBatchApp}) with {@code -javaagent}. To keep the suite fast,
 * one JVM makes many independent calls at once, each to a scripted server of its own; the policy's rules (by
 * path) give each scenario the settings it needs.
 */
@Timeout(180)
class OkHttpAgentIT {
    private static final Duration WAIT = Duration.ofSeconds(10);

    static final String POLICY = """
            version: 1
            defaults:
              maxAttempts: 3
              backoff: { base: 20ms, cap: 50ms }
              retryAfter: { honor: true, max: 3s, spread: 0.1 }
            rules:
              - match: { path: "/deadline/**" }
                maxAttempts: 10
                backoff: { base: 400ms, cap: 400ms, jitter: none }
                deadline: 1s
              - match: { path: "/slow/**" }
                maxAttempts: 5
                backoff: { base: 1s, cap: 1s, jitter: none }
              - match: { path: "/refused/**" }
                maxAttempts: 8
                backoff: { base: 300ms, cap: 300ms, jitter: none }
            """;

    /** Every version and mode on the JDK that runs the tests, and two of them on Java 25 as well. */
    static Stream<Arguments> versionsAndModes() {
        return Stream.of(Arguments.of(ClientLibs.OKHTTP_4, "sync", false), Arguments.of(ClientLibs.OKHTTP_4, "async", false),
                Arguments.of(ClientLibs.OKHTTP_5, "sync", false), Arguments.of(ClientLibs.OKHTTP_5, "async", false),
                Arguments.of(ClientLibs.OKHTTP_4, "sync", true), Arguments.of(ClientLibs.OKHTTP_5, "async", true));
    }

    /** Where OkHttpBatchApp was compiled (target/test-classes), for the forked JVM's class path. */
    static Path testClasses() {
        try {
            return Paths.get(OkHttpBatchApp.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static String call(String id, String url, String mode, String... more) {
        List<String> parts = new ArrayList<>(List.of("id=" + id, "url=" + url, "mode=" + mode));
        parts.addAll(List.of(more));
        return String.join(";", parts);
    }

    @ParameterizedTest(name = "{0} {1} java25={2}")
    @MethodSource("versionsAndModes")
    void retriesAsTheContractSays(ClientLibs libs, String mode, boolean java25) throws Exception {
        Path java = java25 ? Java25.java() : ForkedApp.defaultJava();
        List<AutoCloseable> closer = new ArrayList<>();
        try {
            ScriptedServer get = open(closer, Step.status(503), Step.status(503), Step.ok().body("fine"));
            ScriptedServer postNoKey = open(closer, Step.status(503), Step.ok());
            ScriptedServer postKey = open(closer, Step.status(503), Step.status(201).body("created"));
            ScriptedServer notFound = open(closer, Step.status(404), Step.ok());
            ScriptedServer raSeconds = open(closer, Step.status(429).retryAfterSeconds(1), Step.ok());
            ScriptedServer raDate = open(closer); // scripted once the application is ready (the date is absolute)
            ScriptedServer raTooLong = open(closer, Step.status(503).retryAfterSeconds(10), Step.ok());
            ScriptedServer deadline = open(closer, Step.status(503));
            ScriptedServer oneShot = open(closer, Step.status(503), Step.ok());
            ScriptedServer cancel = open(closer, Step.status(503));
            ScriptedServer cancelInFlight = open(closer, Step.status(503), Step.ok().delay(Duration.ofSeconds(4)));
            int refusedPort = ScriptedServer.refusingPort();

            List<String> args = new ArrayList<>(List.of("--client", mode.equals("sync") ? "builder" : "newBuilder",
                    "--await-go"));
            Stream.of(
                    call("get", get.url("/items?token=secret"), mode),
                    call("postNoKey", postNoKey.url("/orders"), mode, "method=POST", "body=b"),
                    call("postKey", postKey.url("/pay"), mode, "method=POST", "body=payload",
                            "header=Idempotency-Key: k-1"),
                    call("notFound", notFound.url("/missing"), mode),
                    call("raSeconds", raSeconds.url("/limited"), mode),
                    call("raDate", raDate.url("/limited-until"), mode),
                    call("raTooLong", raTooLong.url("/busy"), mode),
                    call("deadline", deadline.url("/deadline/x"), mode),
                    call("oneShot", oneShot.url("/upload"), mode, "method=POST", "body=stream", "oneShot=true",
                            "header=Idempotency-Key: k-2"),
                    call("refused", "http://127.0.0.1:" + refusedPort + "/refused/x", mode),
                    call("cancel", cancel.url("/slow/wait"), mode, "cancelAfterMs=300"))
                    .forEach(c -> args.addAll(List.of("--call", c)));
            if (mode.equals("async")) {
                args.addAll(List.of("--call", call("cancelInFlight", cancelInFlight.url("/slow/flight"), mode,
                        "cancelAfterMs=1500")));
            }

            ForkedApp.Result run;
            LateServer late;
            Instant raDateUntil;
            try (ForkedApp.Running app = ForkedApp.of(OkHttpBatchApp.class)
                    .name("okhttp-agent-" + libs + "-" + mode + (java25 ? "-java25" : "")).java(java).clientLibs(libs).classpath(testClasses()).policy(POLICY).agentArg("log", "debug")
                    .args(args).start()) {
                app.awaitStdoutLine(l -> l.equals("READY"), Duration.ofSeconds(60));
                // An HTTP-date has whole seconds: 3 s ahead is at least ~2 s ahead when the 429 arrives.
                raDateUntil = Instant.now().plusSeconds(3);
                raDate.script(Step.status(429).retryAfterDate(raDateUntil), Step.ok());
                app.writeLine("go");
                // Connection refused until the agent has logged a retry of it; then the server comes up.
                app.awaitStderrLine(l -> l.contains("path=/refused/x") && l.contains("cause=failure:connect"),
                        Duration.ofSeconds(20));
                late = LateServer.bind(refusedPort);
                closer.add(late);
                run = app.await();
            }
            run.assertExitCode(0);
            assertEquals(libs.version(), run.single("APP").get("version"), "the intended OkHttp version ran");
            // The default JDK is whatever runs the build (17, or 25 in CI's second pass).
            if (java25 || System.getProperty("retry.agent.it.java", "").isBlank()) {
                String expectedJava = java25 ? "25" : System.getProperty("java.specification.version");
                assertTrue(run.single("APP").get("java").startsWith(expectedJava), run.single("APP").toString());
            }
            assertEquals(1, run.single("INTERCEPTORS").getInt("agent"), "exactly one agent interceptor\n" + run);

            // GET 503, 503, 200: three attempts, each marked, the caller sees the 200
            ReportLine r = result(run, "get");
            assertEquals(200, r.getInt("status"), run.describe());
            assertEquals("fine", r.get("body"));
            assertEquals("true", r.get("sameCall"));
            if (mode.equals("async")) {
                assertTrue(r.get("thread").startsWith("OkHttp"), "called back on a dispatcher thread: " + r);
            }
            List<RecordedRequest> seen = get.awaitRequests(3, WAIT);
            assertEquals(3, seen.size());
            assertEquals(List.of("1", "2", "3"), markers(seen));
            assertEquals("/items?token=secret", seen.get(2).target());
            assertTrue(logged(run, "retry client=okhttp method=GET host=127.0.0.1 path=/items attempt=2/3 cause=status:503"),
                    run.describe());
            assertFalse(run.stderr().contains("secret"), "no query string in the log\n" + run.stderr());

            // POST without an idempotency key: one request, the caller sees the 503
            r = result(run, "postNoKey");
            assertEquals(503, r.getInt("status"), run.describe());
            assertEquals(1, postNoKey.requestCount());
            assertNull(postNoKey.requests().get(0).header("Retry-Attempt"), "a request the agent will not retry is unmarked");
            assertTrue(logged(run, "give up", "path=/orders", "reason=not-idempotent"), run.describe());

            // POST with a key: retried, same key and byte-identical body each time
            r = result(run, "postKey");
            assertEquals(201, r.getInt("status"), run.describe());
            assertEquals(2, r.getInt("bodyWrites"));
            seen = postKey.awaitRequests(2, WAIT);
            assertEquals(2, seen.size());
            assertEquals(List.of("k-1", "k-1"), seen.stream().map(q -> q.header("Idempotency-Key")).toList());
            assertEquals(List.of("payload", "payload"), seen.stream().map(RecordedRequest::bodyUtf8).toList());

            // 404 is not retryable
            assertEquals(404, result(run, "notFound").getInt("status"));
            assertEquals(1, notFound.requestCount());

            // Retry-After: 1 and an HTTP-date: the second attempt comes no earlier than asked
            assertEquals(200, result(run, "raSeconds").getInt("status"), run.describe());
            seen = raSeconds.awaitRequests(2, WAIT);
            assertTrue(seen.get(1).millisAfter(seen.get(0)) >= 1000, "waited " + seen.get(1).millisAfter(seen.get(0)));
            assertEquals(200, result(run, "raDate").getInt("status"), run.describe());
            RetryAfterDates.assertNotBefore(raDateUntil, raDate.awaitRequests(2, WAIT));

            // Retry-After beyond retryAfter.max: returned at once
            r = result(run, "raTooLong");
            assertEquals(503, r.getInt("status"));
            assertEquals("10", r.get("h.Retry-After"));
            assertTrue(r.getLong("elapsedMs") < 1000, r.toString());
            assertEquals(1, raTooLong.requestCount());
            assertTrue(logged(run, "give up", "path=/busy", "reason=retry-after-too-long"), run.describe());

            // deadline 1s, waits of 400ms: attempts at 0, 0.4, 0.8 s, then no wait may cross the deadline
            r = result(run, "deadline");
            assertEquals(503, r.getInt("status"));
            assertTrue(r.getLong("elapsedMs") < 1400, r.toString());
            assertTrue(deadline.requestCount() >= 2 && deadline.requestCount() <= 3, deadline.requests().toString());
            assertTrue(logged(run, "give up", "path=/deadline/x", "reason=deadline"), run.describe());

            // a one-shot body is never sent twice, even with a key
            r = result(run, "oneShot");
            assertEquals(503, r.getInt("status"));
            assertEquals(1, r.getInt("bodyWrites"));
            assertEquals(1, oneShot.requestCount());
            assertNull(oneShot.requests().get(0).header("Retry-Attempt"), "a body that cannot be replayed: unmarked");
            assertTrue(logged(run, "give up", "path=/upload", "reason=body-not-replayable"), run.describe());

            // connection refused, then the server comes up: the call recovers
            r = result(run, "refused");
            assertEquals(200, r.getInt("status"), run.describe());
            assertEquals("late", r.get("body"));
            assertEquals(1, late.requestCount());

            // cancel while waiting between attempts: no further attempt, one callback with the failure
            r = result(run, "cancel");
            assertTrue(r.has("failure"), r.toString());
            assertTrue(r.getLong("elapsedMs") < 2500, r.toString());
            assertEquals(1, cancel.requestCount(), cancel.requests().toString());
            if (mode.equals("async")) {
                // cancel while the second attempt (a clone the application never sees) is in flight
                r = result(run, "cancelInFlight");
                assertTrue(r.has("failure"), r.toString());
                assertTrue(r.getLong("elapsedMs") < 3000, r.toString());
                assertEquals(2, cancelInFlight.requestCount());
            }

            // every call called back exactly once; no connection left in use after all the retries
            for (ReportLine callbacks : run.lines("CALLBACKS")) {
                assertEquals(1, callbacks.getInt("count"), callbacks.toString());
            }
            assertEquals(0, run.single("POOL").getInt("inUse"), run.describe());
            for (String line : run.agentLog()) {
                assertTrue(line.startsWith("retry-agent "), "one line per event, prefix retry-agent: " + line);
            }
        } finally {
            for (AutoCloseable c : closer) {
                c.close();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"OKHTTP_4", "OKHTTP_5"})
    void observeModeDecidesAndLogsButChangesNoTraffic(ClientLibs libs) {
        try (ScriptedServer sync = ScriptedServer.start(Step.status(503), Step.ok());
             ScriptedServer async = ScriptedServer.start(Step.status(503), Step.ok())) {
            ForkedApp.Result run = ForkedApp.of(OkHttpBatchApp.class).name("okhttp-observe-" + libs).clientLibs(libs)
                    .classpath(testClasses()).policy(POLICY).agentArg("mode", "observe")
                    .args("--call", call("sync", sync.url("/a"), "sync"), "--call", call("async", async.url("/b"), "async"))
                    .run().assertExitCode(0);
            for (String id : List.of("sync", "async")) {
                assertEquals(503, result(run, id).getInt("status"), run.describe());
            }
            for (ScriptedServer server : List.of(sync, async)) {
                assertEquals(1, server.requestCount());
                assertNull(server.requests().get(0).header("Retry-Attempt"), "observe adds no marker");
            }
            assertTrue(logged(run, "would retry", "path=/a"), run.describe());
            assertTrue(logged(run, "would retry", "path=/b"), run.describe());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"OKHTTP_4", "OKHTTP_5"})
    void aBrokenPolicyLeavesTheApplicationRunningWithoutRetries(ClientLibs libs) {
        try (ScriptedServer sync = ScriptedServer.start(Step.status(503), Step.ok());
             ScriptedServer async = ScriptedServer.start(Step.status(503), Step.ok())) {
            ForkedApp.Result run = ForkedApp.of(OkHttpBatchApp.class).name("okhttp-broken-policy-" + libs)
                    .clientLibs(libs).classpath(testClasses())
                    .policy("version: 1\ndefaults:\n  maxAttempts: lots\n")
                    .args("--call", call("sync", sync.url("/a"), "sync"), "--call", call("async", async.url("/b"), "async"))
                    .run().assertExitCode(0);
            for (String id : List.of("sync", "async")) {
                assertEquals(503, result(run, id).getInt("status"), run.describe());
            }
            for (ScriptedServer server : List.of(sync, async)) {
                assertEquals(1, server.requestCount());
                assertNull(server.requests().get(0).header("Retry-Attempt"));
            }
            assertTrue(logged(run, "retry-agent policy-error ", "policy.yaml:3: defaults.maxAttempts"), run.describe());
            assertTrue(logged(run, "without retries"), run.describe());
            assertEquals(1, run.single("INTERCEPTORS").getInt("agent"), "hooks stay in place, doing nothing");
        }
    }

    /**
     * SPEC 4.8 with {@code builtInRetries: replace}: OkHttp's silent resend of a POST whose reused connection
     * dropped (see OkHttpBaselineIT) is gone, and so is its resend of a 503 with {@code Retry-After: 0}; a GET
     * whose reused connection dropped is retried by the agent, with a marker.
     */
    @ParameterizedTest
    @EnumSource(names = {"OKHTTP_4", "OKHTTP_5"})
    void replaceStopsOkHttpsOwnResends(ClientLibs libs) {
        try (ScriptedServer server = ScriptedServer.start(Step.ok().body("one"), Step.dropAfterRequest(),
                Step.ok().body("three"), Step.dropAfterRequest(), Step.ok().body("five"));
             ScriptedServer zero = ScriptedServer.start(Step.status(503).retryAfterSeconds(0), Step.ok())) {
            ForkedApp.Result run = ForkedApp.of(OkHttpBatchApp.class).name("okhttp-replace-" + libs).clientLibs(libs)
                    .classpath(testClasses()).policy(POLICY).args("--sequential",
                            "--call", call("post1", server.url("/p"), "sync", "method=POST", "body=x"),
                            "--call", call("post2", server.url("/p"), "sync", "method=POST", "body=x"),
                            "--call", call("get1", server.url("/g"), "sync"),
                            "--call", call("get2", server.url("/g"), "sync"),
                            "--call", call("zero", zero.url("/z"), "sync", "method=POST", "body=y"))
                    .run().assertExitCode(0);
            assertEquals(200, result(run, "post1").getInt("status"), run.describe());
            ReportLine post2 = result(run, "post2");
            assertTrue(post2.has("failure"), "the POST is not resent: " + post2);
            assertEquals(1, post2.getInt("bodyWrites"));
            assertEquals("three", result(run, "get1").get("body"));
            assertEquals("five", result(run, "get2").get("body"));
            List<RecordedRequest> seen = server.awaitRequests(5, WAIT);
            assertEquals(5, seen.size(), seen.toString());
            assertEquals(List.of(1, 1, 2, 2, 3), seen.stream().map(RecordedRequest::connectionId).toList());
            // the POSTs will not be retried by the agent: unmarked; the GETs are its attempts
            assertEquals(Arrays.asList(null, null, "1", "1", "2"), markers(seen));
            assertTrue(logged(run, "retry", "path=/g", "cause=failure:reset"), run.describe());

            ReportLine zeroResult = result(run, "zero");
            assertEquals(503, zeroResult.getInt("status"), "OkHttp alone would resend this POST: " + zeroResult);
            assertEquals(1, zero.requestCount(), zero.requests().toString());
            assertTrue(logged(run, "give up", "path=/z", "reason=not-idempotent"), run.describe());
        }
    }
}
