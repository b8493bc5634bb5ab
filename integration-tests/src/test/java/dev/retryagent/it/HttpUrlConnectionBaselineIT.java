package dev.retryagent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.apps.HttpUrlConnectionScenario;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import dev.retryagent.it.harness.TlsMaterial;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The JDK's HttpURLConnection WITHOUT the agent, in a forked JVM: what the unmodified client does, measured
 * by the harness. Among the facts: the JDK silently sends a buffered request a second time when the
 * connection closes before any response byte.
 */
@Timeout(120)
class HttpUrlConnectionBaselineIT {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private static ForkedApp app(ScriptedServer server, String path, String... args) {
        return ForkedApp.of(HttpUrlConnectionScenario.class).name("huc-baseline")
                .args("--url", server.url(path)).args(args);
    }

    @Test
    void get503IsOneRequestAndTheAppReadsTheErrorBody() {
        try (ScriptedServer server = ScriptedServer.start(Step.status(503).retryAfterSeconds(2).body("busy"))) {
            ForkedApp.Result run = app(server, "/items", "--print-header", "Retry-After").run().assertExitCode(0);
            String configuredJava = System.getProperty("retry.agent.it.java", "");
            if (configuredJava.isBlank() || configuredJava.startsWith("${")) {
                assertEquals(System.getProperty("java.version"), run.single("APP").get("java"),
                        "the forked JVM is the test JVM's");
            }
            ReportLine result = run.result();
            assertEquals(503, result.getInt("status"), run.describe());
            assertEquals("Service Unavailable", result.get("message"));
            assertEquals("busy", result.get("body"));
            assertEquals("2", result.get("h.Retry-After"));
            List<RecordedRequest> seen = server.requests();
            assertEquals(1, seen.size(), seen.toString());
            assertNull(seen.get(0).header("Retry-Attempt"));
        }
    }

    @Test
    void getInputStreamThrowsOn503AndTheErrorStreamHasTheBody() {
        try (ScriptedServer server = ScriptedServer.start(Step.status(503).body("busy"))) {
            ReportLine result = app(server, "/items", "--read", "stream").run().assertExitCode(0).result();
            assertEquals("java.io.IOException", result.get("streamFailure"), result.toString());
            assertEquals(503, result.getInt("status"));
            assertEquals("busy", result.get("body"));
            assertEquals(1, server.requestCount());
        }
    }

    @Test
    void bufferedAndChunkedPostBodiesArriveByteForByte() {
        try (ScriptedServer server = ScriptedServer.start(Step.status(200).body("thanks"))) {
            app(server, "/buffered", "--method", "POST", "--body", "a=1&b=2", "--content-type",
                    "application/x-www-form-urlencoded", "--header", "Idempotency-Key: k-1")
                    .run().assertExitCode(0);
            app(server, "/chunked", "--method", "PUT", "--body-size", "3000", "--streaming", "chunked",
                    "--chunk-size", "512").run().assertExitCode(0);

            List<RecordedRequest> seen = server.awaitRequests(2, WAIT);
            RecordedRequest buffered = seen.get(0);
            assertEquals("POST", buffered.method());
            assertEquals("a=1&b=2", buffered.bodyUtf8());
            assertEquals("7", buffered.header("Content-Length"));
            assertEquals("application/x-www-form-urlencoded", buffered.header("Content-Type"));
            assertEquals("k-1", buffered.header("Idempotency-Key"));

            RecordedRequest chunked = seen.get(1);
            assertEquals("PUT", chunked.method());
            assertTrue(chunked.chunked());
            byte[] expected = new byte[3000];
            for (int i = 0; i < expected.length; i++) {
                expected[i] = (byte) ('a' + (i % 26));
            }
            assertArrayEquals(expected, chunked.body());
        }
    }

    @Test
    void keepsTheConnectionAliveAcrossCalls() {
        try (ScriptedServer server = ScriptedServer.start(Step.ok())) {
            ForkedApp.Result run = app(server, "/k", "--repeat", "3").run().assertExitCode(0);
            assertEquals(3, run.results().size());
            List<RecordedRequest> seen = server.awaitRequests(3, WAIT);
            assertEquals(List.of(1, 1, 1), seen.stream().map(RecordedRequest::connectionId).toList());
            assertEquals(List.of(0, 1, 2), seen.stream().map(RecordedRequest::indexOnConnection).toList());
        }
    }

    /** The JDK's hidden retry: no response byte at all, and a buffered request goes out a second time. */
    @Test
    void jdkSilentlyResendsABufferedRequestWhenTheConnectionClosesBeforeAResponse() {
        try (ScriptedServer server = ScriptedServer.start(Step.dropAfterRequest())) {
            ReportLine result = app(server, "/drop", "--method", "POST", "--body", "once?").run()
                    .assertExitCode(0).result();
            assertEquals("java.net.SocketException", result.get("failure"), result.toString());
            assertEquals("Unexpected end of file from server", result.get("message"));
            List<RecordedRequest> seen = server.awaitRequests(2, WAIT);
            assertEquals(2, seen.size(), seen.toString());
            assertEquals("once?", seen.get(1).bodyUtf8());
            assertEquals(2, server.connectionsAccepted());
        }
    }

    @Test
    void noResendInStreamingMode() {
        try (ScriptedServer server = ScriptedServer.start(Step.dropAfterRequest())) {
            ReportLine result = app(server, "/drop", "--method", "POST", "--body", "stream", "--streaming", "fixed")
                    .run().assertExitCode(0).result();
            assertEquals("java.net.SocketException", result.get("failure"), result.toString());
            assertEquals(1, server.requestCount(), server.requests().toString());
        }
    }

    @Test
    void resetMidBodyAndReadTimeout() {
        try (ScriptedServer server = ScriptedServer.start(Step.resetMidBody(), Step.ok().delayMillis(1_000))) {
            ForkedApp.Result run = app(server, "/r", "--repeat", "2", "--read-timeout-ms", "200").run()
                    .assertExitCode(0);
            List<ReportLine> results = run.results();
            assertEquals("java.net.SocketException", results.get(0).get("failure"), run.describe());
            assertEquals("Connection reset", results.get(0).get("message"));
            assertEquals(200, results.get(0).getInt("status"));
            assertEquals("java.net.SocketTimeoutException", results.get(1).get("failure"), run.describe());
            assertEquals(2, server.requestCount(), server.requests().toString());
        }
    }

    /**
     * A FIN before Content-Length is reached: Java 17's HttpURLConnection hands over the truncated body
     * silently; newer JDKs (seen on 25) fail the read with "Premature EOF". Either way it is sent once.
     */
    @Test
    void aBodyTruncatedByTheServerIsSentOnceAndReadAsTheJdkDoes() {
        try (ScriptedServer server = ScriptedServer.start(Step.closeMidBody().body("0123456789").cutAfter(4))) {
            ForkedApp.Result run = app(server, "/t").run().assertExitCode(0);
            ReportLine result = run.result();
            assertEquals(200, result.getInt("status"), result.toString());
            String javaVersion = run.single("APP").get("java");
            if (javaVersion.startsWith("17")) {
                assertEquals("0123", result.get("body"), result.toString());
            } else {
                assertEquals("java.io.IOException", result.get("failure"), result.toString());
                assertEquals("Premature EOF", result.get("message"), result.toString());
            }
            assertEquals(1, server.requestCount());
        }
    }

    @Test
    void httpsWithTheTestCertificate() {
        TlsMaterial tls = TlsMaterial.shared();
        try (ScriptedServer server = ScriptedServer.startTls(tls, Step.status(502).body("tls"))) {
            ReportLine result = app(server, "/secure").sysProps(tls.clientSystemProperties()).run()
                    .assertExitCode(0).result();
            assertEquals(502, result.getInt("status"), result.toString());
            assertEquals("tls", result.get("body"));
            assertEquals(1, server.requestCount());
        }
    }
}
