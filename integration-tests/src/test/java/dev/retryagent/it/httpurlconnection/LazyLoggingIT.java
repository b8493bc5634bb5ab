package dev.retryagent.it.httpurlconnection;

import static dev.retryagent.it.harness.Runs.markers;
import static dev.retryagent.it.harness.Runs.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The agent creates its {@code java.util.logging} logger only when it writes its first line: an HttpURLConnection
 * application (which does not use {@code java.util.logging} itself) run at {@code log=warn} retries as ever and never
 * initialises the {@code LogManager}; once the agent has something to say, the line is written once, in the agent's
 * format, on the logger set up as at start-up (its own handler, never the root logger's).
 */
@Timeout(120)
class LazyLoggingIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String LOG_MANAGER = " java.util.logging.LogManager source: ";

    @Test
    void atWarnWithNothingToSayTheLogManagerIsNeverInitialised() throws IOException {
        Run run = run("warn", "log=warn");
        assertTrue(run.loaded.stream().noneMatch(l -> l.contains(LOG_MANAGER)), run.result.describe());
        assertTrue(run.result.stderrLines().stream().noneMatch(l -> l.startsWith("retry-agent")), run.result.describe());
    }

    @Test
    void theFirstLineCreatesTheLoggerWithTheAgentsHandler() throws IOException {
        Run run = run("warn-config-warning", "log=warn,unknown-key=1");
        List<String> warnings = run.result.stderrLines().stream().filter(l -> l.contains("config-warning")).toList();
        assertEquals(1, warnings.size(), run.result.describe());
        assertTrue(warnings.get(0).startsWith("retry-agent config-warning key=unknown-key "), run.result.describe());
        assertTrue(run.loaded.stream().anyMatch(l -> l.contains(LOG_MANAGER)), run.result.describe());
    }

    @Test
    void atInfoThePolicyLineIsWrittenAtStartUp() throws IOException {
        Run run = run("info", "log=info");
        assertTrue(run.result.stderrLines().stream().anyMatch(l -> l.startsWith("retry-agent policy-loaded file=(built-in) ")),
                run.result.describe());
        assertTrue(run.result.stderrLines().stream().anyMatch(l -> l.startsWith("retry-agent retry ")), run.result.describe());
    }

    private record Run(ForkedApp.Result result, List<String> loaded) {
    }

    /** One retried GET (503, then 200) with the agent arguments {@code agentArgs}, under the class loading log. */
    private static Run run(String name, String agentArgs) throws IOException {
        try (ScriptedServer server = ScriptedServer.start(Step.status(503), Step.ok().body("after"))) {
            Path log = Files.createDirectories(ForkedApp.workRoot()).resolve("lazy-logging-" + name + "-"
                    + System.nanoTime() + ".log");
            ForkedApp.Result result = HttpUrlConnectionAgentIT.app(Jdks.both().get(0), "lazy-logging-" + name)
                    .jvmArg("-Xlog:class+load=info:file=" + log)
                    .withAgent(agentArgs)
                    .args("--call", HttpUrlConnectionAgentIT.call("get", server.url("/r")))
                    .run().assertExitCode(0);
            assertEquals(200, result(result, "get").getInt("status"), result.describe());
            assertEquals(List.of("1", "2"), markers(server.awaitRequests(2, WAIT)), "the call was retried");
            return new Run(result, Files.readAllLines(log));
        }
    }
}
