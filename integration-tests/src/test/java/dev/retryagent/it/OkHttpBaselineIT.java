package dev.retryagent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.apps.OkHttpScenario;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import dev.retryagent.it.harness.TlsMaterial;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * OkHttp 4.12 and 5.x WITHOUT the agent, in forked JVMs: what the unmodified clients do, measured by the
 * harness. Agent tests compare against these facts (e.g. OkHttp's own hidden retry on a stale connection).
 */
@Timeout(120)
class OkHttpBaselineIT {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private static ForkedApp app(ClientLibs libs, ScriptedServer server, String path, String... args) {
        return ForkedApp.of(OkHttpScenario.class).name("okhttp-baseline-" + libs).clientLibs(libs)
                .args("--url", server.url(path)).args(args);
    }

    @ParameterizedTest
    @EnumSource(names = {"OKHTTP_4", "OKHTTP_5"})
    void get503IsOneRequestAndTheAppSees503(ClientLibs libs) {
        try (ScriptedServer server = ScriptedServer.start(Step.status(503).retryAfterSeconds(1).body("busy"))) {
            ForkedApp.Result run = app(libs, server, "/items?id=7", "--client", "new",
                    "--print-header", "Retry-After").run().assertExitCode(0);

            assertEquals(libs.version(), run.single("APP").get("version"), "the intended OkHttp version ran");
            ReportLine result = run.result();
            assertEquals(503, result.getInt("status"), run.describe());
            assertEquals("busy", result.get("body"));
            assertEquals("1", result.get("h.Retry-After"));
            assertEquals("main", result.get("thread"));

            List<RecordedRequest> seen = server.requests();
            assertEquals(1, seen.size(), "no retry without the agent: " + seen);
            assertEquals("GET", seen.get(0).method());
            assertEquals("/items?id=7", seen.get(0).target());
            assertNull(seen.get(0).header("Retry-Attempt"), "no marker header without the agent");
            ReportLine pool = run.single("POOL");
            assertEquals(1, pool.getInt("total"));
            assertEquals(1, pool.getInt("idle"));
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"OKHTTP_4", "OKHTTP_5"})
    void postBodyAndHeadersArriveByteForByte(ClientLibs libs) {
        String body = "héllo wörld, ☃";
        try (ScriptedServer server = ScriptedServer.start(Step.status(201).body("created"))) {
            ReportLine result = app(libs, server, "/orders", "--client", "newBuilder", "--method", "POST",
                    "--body", body, "--content-type", "application/json", "--header", "Idempotency-Key: k-42",
                    "--header", "X-Trace: a:b").run().assertExitCode(0).result();

            assertEquals(201, result.getInt("status"));
            assertEquals("created", result.get("body"));
            assertEquals(1, result.getInt("bodyWrites"));
            RecordedRequest r = server.requests().get(0);
            assertEquals(1, server.requestCount());
            assertEquals("POST", r.method());
            assertArrayEquals(body.getBytes(StandardCharsets.UTF_8), r.body());
            assertEquals(String.valueOf(body.getBytes(StandardCharsets.UTF_8).length), r.header("Content-Length"));
            assertTrue(r.header("Content-Type").startsWith("application/json"), r.header("Content-Type"));
            assertEquals("k-42", r.header("idempotency-key"));
            assertEquals("a:b", r.header("X-Trace"));
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"OKHTTP_4", "OKHTTP_5"})
    void asyncCallbackFiresOnceOnADispatcherThread(ClientLibs libs) {
        try (ScriptedServer server = ScriptedServer.start(Step.status(503))) {
            ForkedApp.Result run = app(libs, server, "/async", "--mode", "async").run().assertExitCode(0);
            ReportLine callbacks = run.single("CALLBACKS");
            assertEquals(1, callbacks.getInt("count"), run.describe());
            assertEquals("false", callbacks.get("timedOut"));
            ReportLine result = run.result();
            assertEquals(503, result.getInt("status"));
            assertNotEquals("main", result.get("thread"));
            assertEquals(1, server.requestCount());
        }
    }

    /**
     * OkHttp's own hidden retry ({@code retryOnConnectionFailure}, on by default): a request that fails on a
     * reused keep-alive connection is sent again on a new one, body included, and the app never knows.
     */
    @ParameterizedTest
    @EnumSource(names = {"OKHTTP_4", "OKHTTP_5"})
    void okHttpSilentlyResendsAfterAFailureOnAReusedConnection(ClientLibs libs) {
        try (ScriptedServer server = ScriptedServer.start(Step.ok(), Step.dropAfterRequest(), Step.ok().body("third"))) {
            ForkedApp.Result run = app(libs, server, "/stale", "--repeat", "2", "--method", "POST", "--body", "b")
                    .run().assertExitCode(0);
            List<ReportLine> results = run.results();
            assertEquals(2, results.size(), run.describe());
            assertEquals(200, results.get(1).getInt("status"));
            assertEquals("third", results.get(1).get("body"));
            assertEquals(2, results.get(1).getInt("bodyWrites"), "the body was written twice");

            List<RecordedRequest> seen = server.awaitRequests(3, WAIT);
            assertEquals(3, seen.size(), seen.toString());
            assertEquals(List.of(1, 1, 2), seen.stream().map(RecordedRequest::connectionId).toList());
            assertEquals("b", seen.get(2).bodyUtf8());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"OKHTTP_4", "OKHTTP_5"})
    void noHiddenResendWhenDisabledOrForAOneShotBody(ClientLibs libs) {
        try (ScriptedServer server = ScriptedServer.start(Step.ok(), Step.dropAfterRequest())) {
            ForkedApp.Result run = app(libs, server, "/stale", "--repeat", "2", "--method", "POST", "--body", "b",
                    "--one-shot").run().assertExitCode(0);
            ReportLine second = run.results().get(1);
            assertEquals("java.io.IOException", second.get("failure"), run.describe());
            assertEquals(1, second.getInt("bodyWrites"));
            assertEquals(2, server.requestCount(), server.requests().toString());
        }
        try (ScriptedServer server = ScriptedServer.start(Step.ok(), Step.dropAfterRequest())) {
            ForkedApp.Result run = app(libs, server, "/stale", "--repeat", "2",
                    "--retry-on-connection-failure", "false").run().assertExitCode(0);
            assertEquals("java.io.IOException", run.results().get(1).get("failure"), run.describe());
            assertEquals(2, server.requestCount(), server.requests().toString());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"OKHTTP_4", "OKHTTP_5"})
    void failuresTheAppSees(ClientLibs libs) {
        // connection closed after the request, on a fresh connection: one request, an IOException
        try (ScriptedServer server = ScriptedServer.start(Step.dropAfterRequest())) {
            ReportLine result = app(libs, server, "/drop").run().assertExitCode(0).result();
            assertEquals("java.io.IOException", result.get("failure"));
            assertTrue(result.get("message").startsWith("unexpected end of stream"), result.toString());
            assertEquals("execute", result.get("stage"));
            assertEquals(1, server.requestCount());
        }
        // reset in the middle of the body: the status arrived, reading the body fails
        try (ScriptedServer server = ScriptedServer.start(Step.resetMidBody())) {
            ReportLine result = app(libs, server, "/reset").run().assertExitCode(0).result();
            assertEquals("java.net.SocketException", result.get("failure"), result.toString());
            assertEquals("body", result.get("stage"));
            assertEquals(200, result.getInt("status"));
            assertEquals(1, server.requestCount());
        }
        // FIN before Content-Length is reached: reading the body fails
        try (ScriptedServer server = ScriptedServer.start(Step.closeMidBody())) {
            ReportLine result = app(libs, server, "/truncated").run().assertExitCode(0).result();
            assertEquals("java.net.ProtocolException", result.get("failure"), result.toString());
            assertEquals("body", result.get("stage"));
            assertEquals(1, server.requestCount());
        }
        // read timeout
        try (ScriptedServer server = ScriptedServer.start(Step.ok().delayMillis(1_000))) {
            ReportLine result = app(libs, server, "/slow", "--read-timeout-ms", "200").run().assertExitCode(0).result();
            assertEquals("java.net.SocketTimeoutException", result.get("failure"), result.toString());
            assertTrue(result.getLong("elapsedMs") < 1_000, result.toString());
            assertEquals(1, server.requestCount());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"OKHTTP_4", "OKHTTP_5"})
    void connectionRefused(ClientLibs libs) {
        ReportLine result = ForkedApp.of(OkHttpScenario.class).clientLibs(libs)
                .args("--url", "http://127.0.0.1:" + ScriptedServer.refusingPort() + "/x").run().assertExitCode(0)
                .result();
        assertEquals("java.net.ConnectException", result.get("failure"), result.toString());
    }

    @Test
    void cancelFromAnotherThreadEndsTheCall() {
        try (ScriptedServer server = ScriptedServer.start(Step.ok().delayMillis(1_500))) {
            ReportLine result = app(ClientLibs.OKHTTP_5, server, "/slow", "--cancel-after-ms", "150").run()
                    .assertExitCode(0).result();
            assertTrue(result.has("failure"), result.toString());
            assertTrue(result.getLong("elapsedMs") < 1_500, result.toString());
            assertEquals(1, server.requestCount());
        }
    }

    @Test
    void httpsWithTheTestCertificate() {
        TlsMaterial tls = TlsMaterial.shared();
        try (ScriptedServer server = ScriptedServer.startTls(tls, Step.status(503).body("tls"))) {
            ReportLine result = app(ClientLibs.OKHTTP_4, server, "/secure")
                    .sysProps(tls.clientSystemProperties()).run().assertExitCode(0).result();
            assertEquals(503, result.getInt("status"), result.toString());
            assertEquals("tls", result.get("body"));
            assertEquals(1, server.requestCount());
        }
    }
}
