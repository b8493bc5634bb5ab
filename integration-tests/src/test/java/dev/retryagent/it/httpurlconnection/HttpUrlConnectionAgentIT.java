package dev.retryagent.it.httpurlconnection;

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
import dev.retryagent.it.deploy.AppLoader;
import dev.retryagent.it.deploy.SpringBootJar;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import dev.retryagent.it.harness.TlsMaterial;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * else on the command line (no {@code --add-opens}). The driver of {@link ClientContract} for HttpURLConnection
 * ({@link HttpUrlConnectionBatch}), and the checks only it has: every way of reading the response, streaming
 * modes, read timeouts, disconnects, the JDK's own resend, HTTPS, and a class loaded before the agent.
 */
@Tag(Jdks.MATRIX)
class HttpUrlConnectionAgentIT extends ClientContract<HttpUrlConnectionAgentIT.Jvm> {
    private static final List<String> READ_MODES = List.of("stream", "message", "header", "length", "fields");

    /**
     * One forked JVM on one JDK, the application on the class path or in a Spring Boot executable jar;
     * HttpURLConnection calls are synchronous.
     */
    record Jvm(Jdks.Jdk jdk, AppLoader loader) implements ClientContract.Target {
        Jvm(Jdks.Jdk jdk) {
            this(jdk, AppLoader.CLASS_PATH);
        }

        @Override
        public List<String> modes() {
            return List.of("sync");
        }

        @Override
        public ForkedApp app(String run) {
            ForkedApp app = loader == AppLoader.CLASS_PATH ? HttpUrlConnectionAgentIT.app(jdk, run)
                    : (loader == AppLoader.SPRING_BOOT ? SpringBootJar.BOOT_3 : SpringBootJar.BOOT_2)
                            .app("httpurlconnection").name("huc-" + run + "-" + jdk + "-" + loader).java(jdk.java());
            return app.sysProps(TlsMaterial.shared().clientSystemProperties());
        }

        @Override
        public String toString() {
            return jdk + (loader == AppLoader.CLASS_PATH ? "" : " " + loader);
        }
    }

    /**
     * Java 8, 11, 17 and 25; the test JDK from a Spring Boot 3 executable jar, and Java 8 from a Spring Boot 2.7
     * one.
     */
    @Override
    protected Stream<Jvm> targets() {
        return Stream.of(quietTargets(), Stream.of(new Jvm(Jdks.testJdk(), AppLoader.SPRING_BOOT)),
                Jdks.besides(8).stream().map(jdk -> new Jvm(jdk, AppLoader.SPRING_BOOT_2))).flatMap(s -> s);
    }

    @Override
    protected Stream<Jvm> quietTargets() {
        return jdks().stream().map(Jvm::new);
    }

    static List<Jdks.Jdk> jdks() {
        return Jdks.of(Jdks.ALL);
    }

    @Override
    protected String clientName() {
        return "httpurlconnection";
    }

    @Override
    protected List<String> modeParts(String mode, Run run) {
        return List.of();
    }

    @Override
    protected String nonReplayableBody(String mode) {
        return "streaming=fixed"; // setFixedLengthStreamingMode: the body goes to the socket as it is written
    }

    @Override
    protected List<String> extraParts(String mode, String scenario) {
        // the 404 read through getInputStream(), which throws what the JDK throws alone
        return scenario.equals("notFound") ? List.of("read=stream") : List.of();
    }

    @Override
    protected void addOwnCalls(Jvm jvm, Run kind, Batch b) {
        if (kind == Run.OBSERVE) {
            b.addTls("https-observed", "/b", List.of(), Step.status(503), Step.ok());
        }
        if (kind != Run.CONTRACT) {
            return;
        }
        b.add("chunked", "/upload/chunked", List.of("method=PUT", "body=stream", "streaming=chunked"),
                Step.status(503), Step.ok());
        b.add("always503", "/always", List.of(), Step.status(503).body("busy"));
        b.add("timeout", "/t", List.of("readTimeoutMs=300"), Step.ok().body("late").delayMillis(800),
                Step.ok().body("second"));
        b.add("postDrop", "/drop", List.of("method=POST", "body=once"), Step.dropAfterRequest());
        b.add("failAfter503", "/gone", List.of(), Step.status(503).body("busy"), Step.dropAfterRequest());
        b.add("disconnected", "/cancel", List.of("disconnectAfterMs=300"), Step.ok().delayMillis(2_000));
        for (String mode : READ_MODES) {
            b.add("read-" + mode, "/read/" + mode, List.of("read=" + mode), attempt(503, 1).body("busy"),
                    attempt(200, 2).body("fine"));
        }
        b.addTls("httpsGet", "/secure", List.of(), attempt(503, 1), attempt(200, 2).body("secure"));
        b.addTls("httpsPostKey", "/secure/pay", List.of("method=POST", "body=tls-payload",
                "header=Idempotency-Key: k-3"), Step.status(503), Step.status(201).body("created"));
        b.addTls("httpsAlways502", "/secure/always", List.of(), Step.status(502).body("tls"));
    }

    @Override
    protected void checkOwn(Jvm jvm, Run kind, Batch b, ForkedApp.Result run) {
        if (kind == Run.OBSERVE) {
            assertEquals(503, result(run, "https-observed").getInt("status"), run.describe());
            ScriptedServer https = b.server("https-observed");
            assertEquals(1, https.requestCount());
            assertNull(https.requests().get(0).header("Retry-Attempt"), "observe adds no marker");
            assertTrue(logged(run, "would retry", "client=httpurlconnection", "path=/b"), run.describe());
        }
        if (kind != Run.CONTRACT) {
            return;
        }
        assertTrue(run.single("APP").get("java").startsWith(jvm.jdk().javaVersionPrefix()), "ran on " + jvm + "\n" + run);
        assertFalse(String.join(" ", run.command()).contains("--add-opens"), "no flag besides -javaagent");
        jvm.loader().assertLoaded(run, "httpurlconnection", "java.net.HttpURLConnection");
        assertFalse(run.stderr().contains("internal-error"), run.describe());

        // every attempt sends the same head but for the marker; the caller reads the last attempt's response
        ReportLine r = result(run, "sync-get");
        assertEquals("OK", r.get("message"));
        assertEquals("3", r.get("h.X-Attempt"));
        List<RecordedRequest> seen = b.server("sync-get").requests();
        assertEquals(headWithoutMarker(seen.get(0)), headWithoutMarker(seen.get(1)));
        assertEquals(headWithoutMarker(seen.get(0)), headWithoutMarker(seen.get(2)));
        seen = b.server("sync-postKey").requests();
        assertEquals(headWithoutMarker(seen.get(0)), headWithoutMarker(seen.get(1)));
        // the 503 the caller sees comes with its error body
        assertEquals("busy", result(run, "sync-postNoKey").get("body"));

        // 404: getInputStream() throws what the JDK throws alone; the error body is there
        r = result(run, "sync-notFound");
        assertEquals("stream-threw:java.io.FileNotFoundException", r.get("first"), r.toString());
        assertEquals("nope", r.get("body"));

        // a chunked streaming body is never sent twice either; the head goes out in getOutputStream(), unmarked
        r = result(run, "chunked");
        assertEquals(503, r.getInt("status"), r.toString());
        assertTrue(logged(run, "give up", "path=/upload/chunked", "reason=body-not-replayable"), run.describe());
        ScriptedServer chunked = b.server("chunked");
        assertEquals(1, chunked.requestCount());
        assertTrue(chunked.requests().get(0).chunked());
        assertNull(chunked.requests().get(0).header("Retry-Attempt"));
        // the fixed-length one is the contract's non-replayable body: its head is unmarked too
        assertNull(b.server("sync-nonReplayable").requests().get(0).header("Retry-Attempt"));

        // a final 503 reads as a 503 on every read path, with its error body
        r = result(run, "always503");
        assertEquals(503, r.getInt("status"), r.toString());
        assertEquals("Service Unavailable", r.get("message"));
        assertEquals("busy", r.get("body"));
        assertEquals(4, r.getInt("length"));
        assertEquals("set", r.get("errorStream"));
        assertEquals("java.io.IOException", r.get("stream"));
        assertTrue(r.get("streamMessage").startsWith("Server returned HTTP response code: 503 for URL"), r.toString());
        assertEquals(3, b.server("always503").requestCount());
        assertTrue(logged(run, "give up", "path=/always", "reason=attempts"), run.describe());

        // each way of touching the response first: the request is sent, retried, and reads as the last attempt
        for (String mode : READ_MODES) {
            r = result(run, "read-" + mode);
            assertEquals(200, r.getInt("status"), r.toString());
            assertEquals("fine", r.get("body"), r.toString());
            assertEquals("OK", r.get("message"));
            assertEquals("2", r.get("h.X-Attempt"));
            assertEquals(4, r.getInt("length"));
            assertEquals("null", r.get("errorStream"));
            assertEquals(2, b.server("read-" + mode).requestCount(), mode);
            assertEquals(List.of("1", "2"), markers(b.server("read-" + mode).requests()));
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
        assertEquals(2, b.server("timeout").requestCount());
        assertTrue(logged(run, "retry", "path=/t", "cause=failure:timeout"), run.describe());

        // a POST without a key whose connection drops after the server read it: sent once (builtInRetries:
        // replace switches the JDK's own resend off; HiddenRetriesIT has the whole matrix)
        r = result(run, "postDrop");
        assertEquals("java.net.SocketException", r.get("failure"), r.toString());
        assertEquals(1, b.server("postDrop").requestCount(), b.server("postDrop").requests().toString());
        assertTrue(logged(run, "give up", "path=/drop", "reason=not-idempotent"), run.describe());

        // 503, then connections that close before a response: the caller gets the last failure, and no read
        // reports the earlier attempt's 503 (no attempt is resent by the JDK itself under replace)
        r = result(run, "failAfter503");
        assertEquals("java.net.SocketException", r.get("failure"), r.toString());
        assertEquals("Unexpected end of file from server", r.get("message"));
        assertEquals("read", r.get("stage"));
        seen = b.server("failAfter503").awaitRequests(3, WAIT);
        assertEquals(List.of("1", "2", "3"), markers(seen), seen.toString());
        assertTrue(logged(run, "retry", "path=/gone", "attempt=3/3", "cause=failure:reset"), run.describe());

        // the application disconnects from another thread while the attempt waits for its response: that
        // ends the call, as without the agent (a socket closed on this side is not the server's reset)
        r = result(run, "disconnected");
        assertEquals("java.net.SocketException", r.get("failure"), r.toString());
        assertTrue(r.getLong("elapsedMs") < Bounds.DISCONNECT_MS, r.toString());
        assertEquals(1, b.server("disconnected").requestCount());

        // HTTPS through HttpsURLConnection: each attempt made once, never squared
        r = result(run, "httpsGet");
        assertEquals(200, r.getInt("status"), run.describe());
        assertEquals("secure", r.get("body"));
        seen = b.server("httpsGet").awaitRequests(2, WAIT);
        assertEquals(2, seen.size(), seen.toString());
        assertEquals(List.of("1", "2"), markers(seen));
        assertEquals(headWithoutMarker(seen.get(0)), headWithoutMarker(seen.get(1)));
        r = result(run, "httpsPostKey");
        assertEquals(201, r.getInt("status"), run.describe());
        seen = b.server("httpsPostKey").awaitRequests(2, WAIT);
        assertEquals(2, seen.size(), seen.toString());
        assertEquals(List.of("tls-payload", "tls-payload"), seen.stream().map(RecordedRequest::bodyUtf8).toList());
        r = result(run, "httpsAlways502");
        assertEquals(502, r.getInt("status"), r.toString());
        assertEquals("tls", r.get("body"));
        assertEquals("Bad Gateway", r.get("message"));
        assertEquals(3, b.server("httpsAlways502").requestCount());
        assertTrue(logged(run, "retry client=httpurlconnection method=GET host=127.0.0.1 path=/secure attempt=2/3"),
                run.describe());
    }

    static ForkedApp app(Jdks.Jdk jdk, String name) {
        return ForkedApp.batch("httpurlconnection").name("huc-" + name + "-" + jdk).java(jdk.java());
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

    private static Step attempt(int status, int n) {
        return Step.status(status).header("X-Attempt", Integer.toString(n));
    }

    /**
     * The JDK's HttpURLConnection loaded (and used) before retry-agent starts, here by another agent's premain: the
     * agent retransforms it (changing method bodies only) and its calls are retried from then on.
     */
    @ParameterizedTest(name = "{0}")
    @Timeout(180)
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
