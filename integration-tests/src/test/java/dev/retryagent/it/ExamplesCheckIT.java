package dev.retryagent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.ForkedApp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The policy files in {@code examples/} pass {@code check --strict}, run exactly as a policy repository's CI runs
 * it: {@code java -jar retry-agent.jar check --strict FILE} with the built jar in a forked JVM.
 */
class ExamplesCheckIT {
    private static final Path JAR = Paths.get(System.getProperty("retry.agent.it.jar", "../agent/target/retry-agent.jar"))
            .toAbsolutePath().normalize();
    /** agent/target/retry-agent.jar, so the repository's root is three levels up. */
    private static final Path EXAMPLES = JAR.getParent().getParent().getParent().resolve("examples");

    private record Run(int exit, String out, String err) {
    }

    private static Run check(String... args) throws IOException, InterruptedException {
        assertTrue(Files.isRegularFile(JAR), "agent jar not built: " + JAR);
        List<String> command = new ArrayList<>(List.of(ForkedApp.defaultJava().toString(), "-jar", JAR.toString(), "check"));
        command.addAll(List.of(args));
        Path stdout = Files.createTempFile("check", ".out");
        Path stderr = Files.createTempFile("check", ".err");
        try {
            Process process = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("check did not finish: " + command);
            }
            return new Run(process.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8),
                    Files.readString(stderr, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(stdout);
            Files.deleteIfExists(stderr);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev.yaml", "staging.yaml", "prod.yaml"})
    void everyExamplePassesStrictCheck(String name) throws Exception {
        Path file = EXAMPLES.resolve(name);
        assertTrue(Files.isRegularFile(file), "missing example " + file);
        Run run = check("--strict", file.toString());
        assertEquals(0, run.exit(), run.out() + run.err());
        assertTrue(run.out().contains(file + " is valid"), run.out());
        assertTrue(run.out().contains("result: valid, no warnings"), run.out());
    }

    @Test
    void stagingRollsOutInObserveMode() throws Exception {
        Run run = check(EXAMPLES.resolve("staging.yaml").toString());
        assertTrue(run.out().contains("policy: version 1, mode observe"), run.out());
    }

    @Test
    void theProductionExampleSaysWhichRulesRideOutAnEightSecondFailover() throws Exception {
        Run run = check("--outage", "8s", EXAMPLES.resolve("prod.yaml").toString());
        assertEquals(0, run.exit(), run.err());
        // Interactive defaults fail fast on purpose; the partner's batch sync is built to outlast the failover.
        assertTrue(run.out().contains("outage 8s    NO: the last attempt starts by 2.3s at the latest"), run.out());
        assertTrue(run.out().contains("outage 8s    YES"), run.out());
        assertEquals(1, check("--strict", "--outage", "8s", EXAMPLES.resolve("prod.yaml").toString()).exit());
    }

    @Test
    void theBuiltJarExitsWithTheDocumentedCodes() throws Exception {
        Path dir = Files.createTempDirectory("check-it");
        Path warned = Files.writeString(dir.resolve("warned.yaml"), "version: 1\ndefaults:\n  backoff: { jitter: none }\n");
        Path invalid = Files.writeString(dir.resolve("invalid.yaml"), "version: 1\ndefaults:\n  maxAttempts: 0\n");
        assertEquals(1, check("--strict", warned.toString()).exit());
        Run bad = check(invalid.toString());
        assertEquals(2, bad.exit());
        assertTrue(bad.err().contains(invalid + ":3: defaults.maxAttempts"), bad.err());
        Run usage = check("--outage", "soon", warned.toString());
        assertEquals(64, usage.exit());
        assertEquals(1, usage.err().lines().count(), usage.err());
        Run json = check("--json", EXAMPLES.resolve("prod.yaml").toString());
        assertEquals(0, json.exit());
        assertTrue(json.out().startsWith("{\n  \"file\": "), json.out());
        Files.delete(warned);
        Files.delete(invalid);
        Files.delete(dir);
    }
}
