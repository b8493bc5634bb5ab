package dev.retryagent.it.httpurlconnection;

import static dev.retryagent.it.harness.Runs.markers;
import static dev.retryagent.it.harness.Runs.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import org.junit.jupiter.api.Tag;

import dev.retryagent.it.contract.ClientContract;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent keeps class data sharing on: it gives the boot loader its classes without appending to the boot
 * loader's search path, so the JVM never prints "Sharing is only supported for boot loader classes because
 * bootstrap classpath has been appended" (printed, with sharing on, at every such append) and the application's
 * archived classes stay usable. The JDK's default CDS archive is on in these runs (checked from the class loading
 * log, or the run proves nothing); the java.base hook (HttpURLConnection) retries as ever, with the built-in policy
 * and with a policy file (whose parser's classes the agent defines only then). Java 17 and 25 (see {@link Jdks}).
 * The application-class side under an AppCDS archive is measured by {@code agent/bench/cds.sh}: it needs the
 * application in a jar, and the harness runs it from a directory.
 */
@Tag(Jdks.MATRIX)
@Timeout(120)
class ClassSharingIT {
    private static final String WARNING = "Sharing is only supported for boot loader classes";
    private static final Duration WAIT = Duration.ofSeconds(10);

    static Stream<Arguments> runs() {
        return Jdks.of(17, 25).stream().flatMap(jdk -> Stream.of(Arguments.of(jdk, "built-in"), Arguments.of(jdk, "file")));
    }

    @ParameterizedTest(name = "{0} policy {1}")
    @MethodSource("runs")
    void noWarningSharingOnAndTheJavaBaseHookRetries(Jdks.Jdk jdk, String policy) throws IOException {
        try (ScriptedServer server = ScriptedServer.start(Step.status(503), Step.ok().body("after"))) {
            Path log = Files.createDirectories(ForkedApp.workRoot()).resolve("class-sharing-" + jdk + "-" + policy
                    + "-" + System.nanoTime() + ".log");
            ForkedApp app = HttpUrlConnectionAgentIT.app(jdk, "class-sharing-" + policy)
                    .jvmArg("-Xlog:class+load=info:file=" + log)
                    .args("--call", HttpUrlConnectionAgentIT.call("get", server.url("/r")));
            app = "file".equals(policy) ? app.policy(ClientContract.POLICY) : app.withAgent();
            ForkedApp.Result run = app.run().assertExitCode(0);

            assertFalse(run.stderr().contains(WARNING) || run.stdout().contains(WARNING), run.describe());
            List<String> loaded = Files.readAllLines(log);
            assertTrue(loaded.stream().anyMatch(l -> l.contains(" java.lang.Object source: shared objects file")),
                    "the JVM ran with class data sharing on (else the warning could not show)\n" + run.describe());
            assertTrue(loaded.stream().anyMatch(l -> l.contains(" dev.retryagent.agent.bootloader.runtime.Hooks source: ")),
                    "the bootstrap classes are in the boot loader\n" + run.describe());
            assertTrue(loaded.stream().noneMatch(l -> l.contains(" dev.retryagent.") && l.contains("retry-agent-bootstrap")),
                    "no bootstrap class came from an appended jar\n" + run.describe());
            // The scanner: SnakeYAML's, and no supertype of a policy-core class (those come with the core).
            assertEquals("file".equals(policy),
                    loaded.stream().anyMatch(l -> l.contains(" dev.retryagent.shaded.snakeyaml.v2.scanner.ScannerImpl ")),
                    "the policy file parser's classes are there only with a policy file\n" + run.describe());

            assertEquals(200, result(run, "get").getInt("status"), run.describe());
            assertEquals("after", result(run, "get").get("body"));
            assertEquals(List.of("1", "2"), markers(server.awaitRequests(2, WAIT)));
        }
    }
}
