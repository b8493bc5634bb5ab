package dev.retryagent.it.httpurlconnection;

import static dev.retryagent.it.harness.Runs.markers;
import static dev.retryagent.it.harness.Runs.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import org.junit.jupiter.api.Tag;

import dev.retryagent.it.harness.ClassLoadLog;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent creates its {@code java.util.logging} logger only when it writes its first line: an HttpURLConnection
 * application (which does not use {@code java.util.logging} itself) run at {@code log=warn} retries as ever and never
 * initialises the {@code LogManager}; once the agent has something to say, the line is written once, in the agent's
 * format, on the logger set up as at start-up (its own handler, never the root logger's). Without the OpenTelemetry
 * agent, a retried call loads no class of OpenTelemetry's (the agent's own tracing classes are defined with the rest
 * of its bootstrap classes, and never run).
 */
@Tag(Jdks.MATRIX)
@Timeout(120)
class LazyLoggingIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String LOG_MANAGER = "java.util.logging.LogManager";

    static List<Jdks.Jdk> jdks() {
        return Jdks.of(Jdks.ALL);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void atWarnWithNothingToSayTheLogManagerIsNeverInitialised(Jdks.Jdk jdk) throws IOException {
        Run run = run(jdk, "warn", "log=warn");
        assertTrue(run.loaded.stream().noneMatch(c -> c.name().equals(LOG_MANAGER)), run.result.describe());
        assertTrue(run.result.stderrLines().stream().noneMatch(l -> l.startsWith("retry-agent")), run.result.describe());
        assertEquals(List.of(), run.loaded.stream().map(ClassLoadLog.Loaded::name)
                .filter(name -> name.startsWith("io.opentelemetry.")).toList(), "nothing of OpenTelemetry's is loaded");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void theFirstLineCreatesTheLoggerWithTheAgentsHandler(Jdks.Jdk jdk) throws IOException {
        Run run = run(jdk, "warn-config-warning", "log=warn,unknown-key=1");
        List<String> warnings = run.result.stderrLines().stream().filter(l -> l.contains("config-warning")).toList();
        assertEquals(1, warnings.size(), run.result.describe());
        assertTrue(warnings.get(0).startsWith("retry-agent config-warning key=unknown-key "), run.result.describe());
        assertTrue(run.loaded.stream().anyMatch(c -> c.name().equals(LOG_MANAGER)), run.result.describe());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void atInfoThePolicyLineIsWrittenAtStartUp(Jdks.Jdk jdk) throws IOException {
        Run run = run(jdk, "info", "log=info");
        assertTrue(run.result.stderrLines().stream().anyMatch(l -> l.startsWith("retry-agent policy-loaded file=(built-in) ")),
                run.result.describe());
        assertTrue(run.result.stderrLines().stream().anyMatch(l -> l.startsWith("retry-agent retry ")), run.result.describe());
    }

    private record Run(ForkedApp.Result result, List<ClassLoadLog.Loaded> loaded) {
    }

    /** One retried GET (503, then 200) with the agent arguments {@code agentArgs}, under the class loading log. */
    private static Run run(Jdks.Jdk jdk, String name, String agentArgs) throws IOException {
        try (ScriptedServer server = ScriptedServer.start(Step.status(503), Step.ok().body("after"))) {
            ClassLoadLog log = ClassLoadLog.of(jdk, "lazy-logging-" + name);
            ForkedApp.Result result = log.enable(HttpUrlConnectionAgentIT.app(jdk, "lazy-logging-" + name))
                    .withAgent(agentArgs)
                    .args("--call", HttpUrlConnectionAgentIT.call("get", server.url("/r")))
                    .run().assertExitCode(0);
            assertEquals(200, result(result, "get").getInt("status"), result.describe());
            assertEquals(List.of("1", "2"), markers(server.awaitRequests(2, WAIT)), "the call was retried");
            return new Run(result, log.read(result));
        }
    }
}
