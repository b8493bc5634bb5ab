package dev.retryagent.it.httpurlconnection;

import static dev.retryagent.it.harness.Runs.markers;
import static dev.retryagent.it.harness.Runs.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * What a start on the built-in policy loads of the agent jar, from the class loading log of an HttpURLConnection
 * application that retries one GET: the retry layers' one table and none of their packages (a layer's handler loads
 * when a class of its library is woven, and this application has none), and none of the policy file watcher's
 * classes (README, Start-up); and the route of the engine's classes into the boot loader on each JDK.
 */
@Tag(Jdks.MATRIX)
@Timeout(120)
class StartupClassesIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String AGENT = "dev.retryagent.agent.";
    /** The layers' room: its table, and a package per layer. */
    private static final String LAYERS = AGENT + "layers.";
    private static final String LAYER_TABLE = LAYERS + "LayerTable";
    /** The policy file watcher's package. */
    private static final String RELOAD = AGENT + "startup.reload.";

    static List<Jdks.Jdk> jdks() {
        return Jdks.of(Jdks.ALL);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void theLayersTableLoadsButNoLayerAndNoPolicyWatcher(Jdks.Jdk jdk) throws IOException {
        try (ScriptedServer server = ScriptedServer.start(Step.status(503), Step.ok().body("after"))) {
            ClassLoadLog log = ClassLoadLog.of(jdk, "startup-classes");
            ForkedApp.Result run = log.enable(HttpUrlConnectionAgentIT.app(jdk, "startup-classes"))
                    .withAgent("log=warn")
                    .args("--call", HttpUrlConnectionAgentIT.call("get", server.url("/r")))
                    .run().assertExitCode(0);
            assertEquals(200, result(run, "get").getInt("status"), run.describe());
            assertEquals(List.of("1", "2"), markers(server.awaitRequests(2, WAIT)), "the call was retried");

            List<ClassLoadLog.Loaded> loaded = log.read(run).stream().filter(c -> c.name().startsWith(AGENT)).toList();
            List<String> agentClasses = loaded.stream().map(ClassLoadLog.Loaded::name).toList();
            // The boot route: the engine's classes defined in the boot loader on Java 9 and later; on Java 8 the
            // bootstrap jar appended to the boot class path, from a temporary file
            List<String> bootSources = loaded.stream().map(ClassLoadLog.Loaded::source)
                    .filter(source -> !source.contains("retry-agent.jar")).distinct().toList();
            assertEquals(1, bootSources.size(), bootSources.toString());
            if (jdk.version() == 8) {
                assertTrue(bootSources.get(0).matches(".*/retry-agent-bootstrap-[^/]*\\.jar"), bootSources.toString());
            } else {
                assertEquals("__JVM_DefineClass__", bootSources.get(0), bootSources.toString());
            }
            assertTrue(agentClasses.contains(LAYER_TABLE), agentClasses.toString());
            for (String name : agentClasses) {
                assertFalse(name.startsWith(LAYERS) && !name.equals(LAYER_TABLE), name + " loaded\n" + agentClasses);
                assertFalse(name.startsWith(RELOAD), name + " loaded\n" + agentClasses);
            }
        }
    }
}
