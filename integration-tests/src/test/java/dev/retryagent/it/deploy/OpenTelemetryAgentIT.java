package dev.retryagent.it.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.faults.FaultsApp;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.Runs;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Beside the OpenTelemetry Java agent (2.22.0, fetched by the build), in either {@code -javaagent} order: every client
 * kind (OkHttp sync and async, HttpClient 5 classic and async, HttpURLConnection) calls a server that answers 503 then
 * 200; the retry agent still retries each call once (markers 1, 2 at the server, one {@code retry} line each), and
 * the OpenTelemetry agent still traces the calls (its logging exporter writes client spans).
 */
@Timeout(180)
class OpenTelemetryAgentIT {
    static final String POLICY = """
            version: 1
            defaults:
              backoff: { base: 10ms, cap: 20ms }
            """;

    @ParameterizedTest(name = "{0} first")
    @ValueSource(strings = {"opentelemetry", "retry-agent"})
    void bothAgentsWork(String first) throws Exception {
        List<AutoCloseable> closer = new ArrayList<>();
        try {
            Map<String, ScriptedServer> servers = new LinkedHashMap<>();
            List<String> args = new ArrayList<>();
            for (String kind : FaultsApp.KINDS) {
                servers.put(kind, Runs.open(closer, Step.status(503).body("busy"), Step.ok().body("fine")));
                args.add(kind + "=" + kind + "=" + servers.get(kind).url("/traced/" + kind));
            }
            Path policy = Files.writeString(Files.createTempFile(ForkedApp.workRoot(), "otel-policy-", ".yaml"), POLICY);
            String ours = "-javaagent:" + ForkedApp.agentJarPath() + "=policy=" + policy + ",log=debug";
            String otel = "-javaagent:" + Paths.get(System.getProperty("retry.agent.it.otel-agent.jar"));
            ForkedApp app = ForkedApp.of(FaultsApp.class).name("otel-" + first + "-first").clientLibs(ClientLibs.OKHTTP_5)
                    .classpath(testClasses()).timeout(Duration.ofMinutes(2))
                    .jvmArg(first.equals("opentelemetry") ? otel : ours)
                    .jvmArg(first.equals("opentelemetry") ? ours : otel)
                    .sysProp("otel.traces.exporter", "logging").sysProp("otel.metrics.exporter", "none")
                    .sysProp("otel.logs.exporter", "none").sysProp("otel.bsp.schedule.delay", "50")
                    .args(args);
            ClientLibs.HTTPCLIENT5_NEWEST.jars().forEach(app::classpath);
            ForkedApp.Result run = app.run().assertExitCode(0);

            for (String kind : FaultsApp.KINDS) {
                ReportLine result = Runs.result(run, kind);
                assertEquals(200, result.getInt("status"), kind + ": " + result + "\n" + run.describe());
                assertEquals(List.of("1", "2"), Runs.markers(servers.get(kind).requests()), kind);
                assertEquals(1, run.agentLog().stream()
                        .filter(l -> l.contains(" retry ") && l.contains("path=/traced/" + kind + " ")).count(), kind);
            }
            long spans = run.stderr().lines().filter(l -> l.contains("LoggingSpanExporter") && l.contains("CLIENT")).count();
            System.out.println("OTEL first=" + first + " clientSpans=" + spans);
            assertTrue(spans >= FaultsApp.KINDS.length, "the OpenTelemetry agent traced the calls:\n" + run.stderr());
            assertFalse(run.stderr().contains("internal-error"), run.describe());
        } finally {
            for (AutoCloseable c : closer) {
                c.close();
            }
        }
    }

    static Path testClasses() {
        try {
            return Paths.get(FaultsApp.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
