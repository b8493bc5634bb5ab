package dev.retryagent.it.httpurlconnection;

import static dev.retryagent.it.harness.Runs.logged;
import static dev.retryagent.it.harness.Runs.markers;
import static dev.retryagent.it.harness.Runs.open;
import static dev.retryagent.it.harness.Runs.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.LateServer;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.RetryAfterDates;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import dev.retryagent.it.harness.TlsMaterial;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent on the JDK's own HttpURLConnection, http and https, in forked JVMs on Java 17 and on Java 25 (both,
 * whichever JDK runs the tests: {@link Jdks}), exactly as an operator runs it: {@code -javaagent} and nothing
 * else on the command line (no {@code --add-opens}). To keep the suite fast, one JVM makes many independent calls
 * at once ({@link HttpUrlConnectionBatchApp}), each to a scripted server of its own; the policy's rules (by path)
 * give each scenario the settings it needs.
 */
@Timeout(180)
class HttpUrlConnectionAgentIT {
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

    static List<Jdks.Jdk> jdks() {
        return Jdks.both();
    }

    /** Where the batch application was compiled (target/test-classes), for the forked JVM's class path. */
    static Path testClasses() {
        try {
            return Paths.get(HttpUrlConnectionBatchApp.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static ForkedApp app(Jdks.Jdk jdk, String name) {
        return ForkedApp.of(HttpUrlConnectionBatchApp.class).name("huc-" + name + "-" + jdk).java(jdk.java())
                .classpath(testClasses());
    }

    static String call(String id, String url, String... more) {
        List<String> parts = new ArrayList<>(List.of("id=" + id, "url=" + url));
        parts.addAll(List.of(more));
        return String.join(";", parts);
    }

    /** The request's head without the marker, in order: what every attempt must send alike. */
    static List<String> headWithoutMarker(RecordedRequest request) {
        return Stream.concat(Stream.of(request.method() + " " + request.target() + " " + request.version()),
                request.headers().fields().stream().filter(f -> !f.getKey().equalsIgnoreCase("Retry-Attempt"))
                        .map(f -> f.getKey() + ": " + f.getValue())).toList();
    }

    private static ScriptedServer openTls(List<AutoCloseable> closer, Step... steps) {
        ScriptedServer server = ScriptedServer.startTls(TlsMaterial.shared(), steps);
        closer.add(server);
        return server;
    }

    private static Step attempt(int status, int n) {
        return Step.status(status).header("X-Attempt", Integer.toString(n));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void retriesAsTheContractSays(Jdks.Jdk jdk) throws Exception {
        List<AutoCloseable> closer = new ArrayList<>();
        try {
            ScriptedServer get = open(closer, attempt(503, 1).body("busy"), attempt(503, 2).body("busy"),
                    attempt(200, 3).body("fine"));
            ScriptedServer postNoKey = open(closer, Step.status(503).body("busy"), Step.ok());
            ScriptedServer postKey = open(closer, Step.status(503), Step.status(201).body("created"));
            ScriptedServer notFound = open(closer, Step.status(404).body("nope"), Step.ok());
            ScriptedServer raSeconds = open(closer, Step.status(429).retryAfterSeconds(1), Step.ok());
            ScriptedServer raDate = open(closer); // scripted once the application is ready (the date is absolute)
            ScriptedServer raTooLong = open(closer, Step.status(503).retryAfterSeconds(10), Step.ok());
            ScriptedServer deadline = open(closer, Step.status(503));
            ScriptedServer fixed = open(closer, Step.status(503), Step.ok());
            ScriptedServer chunked = open(closer, Step.status(503), Step.ok());
            ScriptedServer always503 = open(closer, Step.status(503).body("busy"));
            ScriptedServer timeout = open(closer, Step.ok().body("late").delayMillis(800), Step.ok().body("second"));
            ScriptedServer interrupt = open(closer, Step.status(503));
            ScriptedServer postDrop = open(closer, Step.dropAfterRequest());
            ScriptedServer nested = open(closer, Step.status(503), Step.ok());
            ScriptedServer failAfter503 = open(closer, Step.status(503).body("busy"), Step.dropAfterRequest());
            ScriptedServer disconnected = open(closer, Step.ok().delayMillis(2_000));
            List<String> readModes = List.of("stream", "message", "header", "length", "fields");
            List<ScriptedServer> reads = new ArrayList<>();
            for (int i = 0; i < readModes.size(); i++) {
                reads.add(open(closer, attempt(503, 1).body("busy"), attempt(200, 2).body("fine")));
            }
            ScriptedServer httpsGet = openTls(closer, attempt(503, 1), attempt(200, 2).body("secure"));
            ScriptedServer httpsPostKey = openTls(closer, Step.status(503), Step.status(201).body("created"));
            ScriptedServer httpsAlways502 = openTls(closer, Step.status(502).body("tls"));
            int refusedPort = ScriptedServer.refusingPort(); // after every server above has its port

            List<String> args = new ArrayList<>(List.of("--await-go"));
            List<String> calls = new ArrayList<>(List.of(
                    call("get", get.url("/items?token=secret")),
                    call("postNoKey", postNoKey.url("/orders"), "method=POST", "body=b"),
                    call("postKey", postKey.url("/pay"), "method=POST", "body=payload", "header=Idempotency-Key: k-1"),
                    call("notFound", notFound.url("/missing"), "read=stream"),
                    call("raSeconds", raSeconds.url("/limited")),
                    call("raDate", raDate.url("/limited-until")),
                    call("raTooLong", raTooLong.url("/busy")),
                    call("deadline", deadline.url("/deadline/x")),
                    call("fixed", fixed.url("/upload/fixed"), "method=POST", "body=stream", "streaming=fixed",
                            "header=Idempotency-Key: k-2"),
                    call("chunked", chunked.url("/upload/chunked"), "method=PUT", "body=stream", "streaming=chunked"),
                    call("always503", always503.url("/always")),
                    call("timeout", timeout.url("/t"), "readTimeoutMs=300"),
                    call("interrupt", interrupt.url("/slow/i"), "interruptAfterMs=300"),
                    call("postDrop", postDrop.url("/drop"), "method=POST", "body=once"),
                    call("nested", nested.url("/nested"), "header=Retry-Attempt: 7"),
                    call("failAfter503", failAfter503.url("/gone")),
                    call("disconnected", disconnected.url("/cancel"), "disconnectAfterMs=300"),
                    call("refused", "http://127.0.0.1:" + refusedPort + "/refused/x"),
                    call("httpsGet", httpsGet.url("/secure")),
                    call("httpsPostKey", httpsPostKey.url("/secure/pay"), "method=POST", "body=tls-payload",
                            "header=Idempotency-Key: k-3"),
                    call("httpsAlways502", httpsAlways502.url("/secure/always"))));
            for (int i = 0; i < readModes.size(); i++) {
                calls.add(call("read-" + readModes.get(i), reads.get(i).url("/read/" + readModes.get(i)),
                        "read=" + readModes.get(i)));
            }
            calls.forEach(c -> args.addAll(List.of("--call", c)));

            ForkedApp.Result run;
            LateServer late;
            Instant raDateUntil;
            try (ForkedApp.Running app = app(jdk, "agent").policy(POLICY).agentArg("log", "debug")
                    .sysProps(TlsMaterial.shared().clientSystemProperties()).args(args).start()) {
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
            assertTrue(run.single("APP").get("java").startsWith(jdk.version() + "."), "ran on " + jdk + "\n" + run);
            assertFalse(String.join(" ", run.command()).contains("--add-opens"), "no flag besides -javaagent");
            assertFalse(run.stderr().contains("internal-error"), run.describe());

            // GET 503, 503, 200: three attempts, each marked, the same head otherwise; the caller sees the 200
            ReportLine r = result(run, "get");
            assertEquals(200, r.getInt("status"), run.describe());
            assertEquals("fine", r.get("body"));
            assertEquals("OK", r.get("message"));
            assertEquals("3", r.get("h.X-Attempt"));
            List<RecordedRequest> seen = get.awaitRequests(3, WAIT);
            assertEquals(3, seen.size());
            assertEquals(List.of("1", "2", "3"), markers(seen));
            assertEquals(headWithoutMarker(seen.get(0)), headWithoutMarker(seen.get(1)));
            assertEquals(headWithoutMarker(seen.get(0)), headWithoutMarker(seen.get(2)));
            assertEquals("/items?token=secret", seen.get(2).target());
            assertTrue(logged(run, "retry client=httpurlconnection method=GET host=127.0.0.1 path=/items attempt=2/3 cause=status:503"),
                    run.describe());
            assertFalse(run.stderr().contains("secret"), "no query string in the log\n" + run.stderr());

            // POST without an idempotency key: one request, the caller sees the 503 and its error body
            r = result(run, "postNoKey");
            assertEquals(503, r.getInt("status"), run.describe());
            assertEquals("busy", r.get("body"));
            assertEquals(1, postNoKey.requestCount());
            assertNull(postNoKey.requests().get(0).header("Retry-Attempt"), "a request the agent will not retry is unmarked");
            assertTrue(logged(run, "give up", "path=/orders", "reason=not-idempotent"), run.describe());

            // POST with a key: retried, same key and byte-identical body, same head but for the marker
            r = result(run, "postKey");
            assertEquals(201, r.getInt("status"), run.describe());
            assertEquals("created", r.get("body"));
            seen = postKey.awaitRequests(2, WAIT);
            assertEquals(2, seen.size());
            assertEquals(List.of("k-1", "k-1"), seen.stream().map(q -> q.header("Idempotency-Key")).toList());
            assertEquals(List.of("payload", "payload"), seen.stream().map(RecordedRequest::bodyUtf8).toList());
            assertEquals(List.of("1", "2"), markers(seen));
            assertEquals(headWithoutMarker(seen.get(0)), headWithoutMarker(seen.get(1)));

            // 404 is not retryable; getInputStream() throws what the JDK throws alone
            r = result(run, "notFound");
            assertEquals("stream-threw:java.io.FileNotFoundException", r.get("first"), r.toString());
            assertEquals(404, r.getInt("status"));
            assertEquals("nope", r.get("body"));
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

            // streaming bodies are never sent twice, even with a key
            for (String id : List.of("fixed", "chunked")) {
                r = result(run, id);
                assertEquals(503, r.getInt("status"), r.toString());
                assertTrue(logged(run, "give up", "path=/upload/" + id, "reason=body-not-replayable"), run.describe());
            }
            assertEquals(1, fixed.requestCount());
            assertEquals("stream", fixed.requests().get(0).bodyUtf8());
            assertEquals(1, chunked.requestCount());
            assertTrue(chunked.requests().get(0).chunked());
            // the head goes out in getOutputStream(); the agent will not retry a streamed body, so it is unmarked
            assertNull(fixed.requests().get(0).header("Retry-Attempt"));
            assertNull(chunked.requests().get(0).header("Retry-Attempt"));

            // a request that carries the marker already (a layer above sent it) is made exactly once, unchanged
            r = result(run, "nested");
            assertEquals(503, r.getInt("status"), r.toString());
            assertEquals(1, nested.requestCount());
            assertEquals("7", nested.requests().get(0).header("Retry-Attempt"));
            assertTrue(logged(run, "give up", "path=/nested", "reason=nested"), run.describe());

            // a final 503 reads as a 503 on every read path, with its error body
            r = result(run, "always503");
            assertEquals(503, r.getInt("status"), r.toString());
            assertEquals("Service Unavailable", r.get("message"));
            assertEquals("busy", r.get("body"));
            assertEquals(4, r.getInt("length"));
            assertEquals("set", r.get("errorStream"));
            assertEquals("java.io.IOException", r.get("stream"));
            assertTrue(r.get("streamMessage").startsWith("Server returned HTTP response code: 503 for URL"), r.toString());
            assertEquals(3, always503.requestCount());
            assertTrue(logged(run, "give up", "path=/always", "reason=attempts"), run.describe());

            // each way of touching the response first: the request is sent, retried, and reads as the last attempt
            for (int i = 0; i < readModes.size(); i++) {
                r = result(run, "read-" + readModes.get(i));
                assertEquals(200, r.getInt("status"), r.toString());
                assertEquals("fine", r.get("body"), r.toString());
                assertEquals("OK", r.get("message"));
                assertEquals("2", r.get("h.X-Attempt"));
                assertEquals(4, r.getInt("length"));
                assertEquals("null", r.get("errorStream"));
                assertEquals(2, reads.get(i).requestCount(), readModes.get(i));
                assertEquals(List.of("1", "2"), markers(reads.get(i).requests()));
            }
            assertEquals("stream:fine", result(run, "read-stream").get("first"));
            assertEquals("message:OK", result(run, "read-message").get("first"));
            assertEquals("header:2", result(run, "read-header").get("first"));
            assertEquals("length:4", result(run, "read-length").get("first"));
            assertEquals("fields:[2]", result(run, "read-fields").get("first"));

            // a read timeout is retried
            r = result(run, "timeout");
            assertEquals(200, r.getInt("status"), r.toString());
            assertEquals("second", r.get("body"));
            assertEquals(2, timeout.requestCount());
            assertTrue(logged(run, "retry", "path=/t", "cause=failure:timeout"), run.describe());

            // interrupted while waiting between attempts: no further attempt, the interrupt flag kept
            r = result(run, "interrupt");
            assertEquals("java.io.InterruptedIOException", r.get("failure"), r.toString());
            assertTrue(r.getBoolean("interrupted"), r.toString());
            assertTrue(r.getLong("elapsedMs") < 1000, r.toString());
            assertEquals(1, interrupt.requestCount());

            // a POST without a key whose connection drops after the server read it: sent once (builtInRetries:
            // replace switches the JDK's own resend off; HiddenRetriesIT has the whole matrix)
            r = result(run, "postDrop");
            assertEquals("java.net.SocketException", r.get("failure"), r.toString());
            assertEquals(1, postDrop.requestCount(), postDrop.requests().toString());
            assertTrue(logged(run, "give up", "path=/drop", "reason=not-idempotent"), run.describe());

            // 503, then connections that close before a response: the caller gets the last failure, and no read
            // reports the earlier attempt's 503 (no attempt is resent by the JDK itself under replace)
            r = result(run, "failAfter503");
            assertEquals("java.net.SocketException", r.get("failure"), r.toString());
            assertEquals("Unexpected end of file from server", r.get("message"));
            assertEquals("read", r.get("stage"));
            seen = failAfter503.awaitRequests(3, WAIT);
            assertEquals(List.of("1", "2", "3"), markers(seen), seen.toString());
            assertTrue(logged(run, "retry", "path=/gone", "attempt=3/3", "cause=failure:reset"), run.describe());

            // the application disconnects from another thread while the attempt waits for its response: that
            // ends the call, as without the agent (a socket closed on this side is not the server's reset)
            r = result(run, "disconnected");
            assertEquals("java.net.SocketException", r.get("failure"), r.toString());
            assertTrue(r.getLong("elapsedMs") < 1500, r.toString());
            assertEquals(1, disconnected.requestCount());

            // connection refused, then the server comes up: the call recovers
            r = result(run, "refused");
            assertEquals(200, r.getInt("status"), run.describe());
            assertEquals("late", r.get("body"));
            assertEquals(1, late.requestCount());

            // HTTPS through HttpsURLConnection: each attempt made once, never squared
            r = result(run, "httpsGet");
            assertEquals(200, r.getInt("status"), run.describe());
            assertEquals("secure", r.get("body"));
            seen = httpsGet.awaitRequests(2, WAIT);
            assertEquals(2, seen.size(), seen.toString());
            assertEquals(List.of("1", "2"), markers(seen));
            assertEquals(headWithoutMarker(seen.get(0)), headWithoutMarker(seen.get(1)));
            r = result(run, "httpsPostKey");
            assertEquals(201, r.getInt("status"), run.describe());
            seen = httpsPostKey.awaitRequests(2, WAIT);
            assertEquals(2, seen.size(), seen.toString());
            assertEquals(List.of("tls-payload", "tls-payload"), seen.stream().map(RecordedRequest::bodyUtf8).toList());
            r = result(run, "httpsAlways502");
            assertEquals(502, r.getInt("status"), r.toString());
            assertEquals("tls", r.get("body"));
            assertEquals("Bad Gateway", r.get("message"));
            assertEquals(3, httpsAlways502.requestCount());
            assertTrue(logged(run, "retry client=httpurlconnection method=GET host=127.0.0.1 path=/secure attempt=2/3"),
                    run.describe());

            for (String line : run.agentLog()) {
                assertTrue(line.startsWith("retry-agent "), "one line per event, prefix retry-agent: " + line);
            }
        } finally {
            for (AutoCloseable c : closer) {
                c.close();
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void observeModeDecidesAndLogsButChangesNoTraffic(Jdks.Jdk jdk) {
        try (ScriptedServer http = ScriptedServer.start(Step.status(503), Step.ok());
             ScriptedServer https = ScriptedServer.startTls(TlsMaterial.shared(), Step.status(503), Step.ok())) {
            ForkedApp.Result run = app(jdk, "observe").policy(POLICY).agentArg("mode", "observe")
                    .sysProps(TlsMaterial.shared().clientSystemProperties())
                    .args("--call", call("http", http.url("/a")), "--call", call("https", https.url("/b")))
                    .run().assertExitCode(0);
            for (String id : List.of("http", "https")) {
                assertEquals(503, result(run, id).getInt("status"), run.describe());
            }
            for (ScriptedServer server : List.of(http, https)) {
                assertEquals(1, server.requestCount());
                assertNull(server.requests().get(0).header("Retry-Attempt"), "observe adds no marker");
            }
            assertTrue(logged(run, "would retry", "client=httpurlconnection", "path=/a"), run.describe());
            assertTrue(logged(run, "would retry", "client=httpurlconnection", "path=/b"), run.describe());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aBrokenPolicyLeavesTheApplicationRunningWithoutRetries(Jdks.Jdk jdk) {
        try (ScriptedServer server = ScriptedServer.start(Step.status(503).body("busy"), Step.ok())) {
            ForkedApp.Result run = app(jdk, "broken-policy").policy("version: 1\ndefaults:\n  maxAttempts: lots\n")
                    .args("--call", call("get", server.url("/a"))).run().assertExitCode(0);
            ReportLine r = result(run, "get");
            assertEquals(503, r.getInt("status"), run.describe());
            assertEquals("busy", r.get("body"));
            assertEquals(1, server.requestCount());
            assertNull(server.requests().get(0).header("Retry-Attempt"));
            assertTrue(logged(run, "retry-agent policy-error ", "policy.yaml:3: defaults.maxAttempts"), run.describe());
            assertTrue(logged(run, "without retries"), run.describe());
        }
    }

    /**
     * The JDK's HttpURLConnection loaded (and used) before retry-agent starts, here by another agent's premain: the
     * agent retransforms it (changing method bodies only) and its calls are retried from then on.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void retransformsTheClassWhenItWasLoadedBeforeTheAgent(Jdks.Jdk jdk) throws IOException {
        Path preloadJar = preloadAgentJar();
        try (ScriptedServer server = ScriptedServer.start(Step.status(503), Step.ok().body("after"))) {
            // The agent retransforms loaded classes on its start-up thread: the call waits for it to finish.
            ForkedApp.Result run = app(jdk, "retransform").jvmArg("-javaagent:" + preloadJar)
                    .policy(POLICY).agentArg("log", "debug")
                    .args("--await-thread-end", "retry-agent-prepare", "--call", call("get", server.url("/r")))
                    .run().assertExitCode(0);
            assertTrue(run.lines("TIMEOUT").isEmpty(), run.describe());
            assertEquals("true", run.single("PRELOAD").get("loaded"), "loaded before retry-agent\n" + run.describe());
            assertTrue(logged(run, "instrumented class=sun.net.www.protocol.http.HttpURLConnection retransformed=true"),
                    run.describe());
            ReportLine r = result(run, "get");
            assertEquals(200, r.getInt("status"), run.describe());
            assertEquals("after", r.get("body"));
            assertEquals(List.of("1", "2"), markers(server.awaitRequests(2, WAIT)));
        }
    }

    /** A jar with only a manifest naming {@link PreloadAgent} (found on the application's class path). */
    private static Path preloadAgentJar() throws IOException {
        Path jar = ForkedApp.workRoot().resolve("preload-agent.jar");
        Files.createDirectories(jar.getParent());
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.putValue("Premain-Class", PreloadAgent.class.getName());
        Path tmp = Files.createTempFile(jar.getParent(), "preload-agent", ".jar");
        try (OutputStream out = Files.newOutputStream(tmp); JarOutputStream jarOut = new JarOutputStream(out, manifest)) {
            jarOut.flush();
        }
        Files.move(tmp, jar, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return jar;
    }
}
