package dev.retryagent.it.reload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import org.junit.jupiter.api.Tag;

import dev.retryagent.it.apps.LineDrivenApp;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.Policies;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/reference.md#hot-reload: the built agent in a forked JVM that makes a call per line it reads, while the test
 * changes its policy file in each way a file really changes. The loopback server answers 503 to everything, so the
 * number of requests a call makes tells which policy it ran under: {@code maxAttempts} 2 before, 4 after.
 *
 * <p>After each change the test waits for the agent's {@code policy-loaded} line with the new content's hash (at most
 * {@link #RELOAD_LIMIT}) and prints how long that took ({@code RELOAD-MS}), then makes its calls: no call's outcome
 * depends on timing.
 */
@Tag(Jdks.MATRIX)
class HotReloadIT {
    private static final Duration RELOAD_LIMIT = Duration.ofSeconds(10);
    private static final Duration CALL_LIMIT = Duration.ofSeconds(20);

    static String policy(int maxAttempts) {
        return Policies.attempts(maxAttempts, "");
    }

    static String hash(String content) throws Exception {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(content.getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(digest).substring(0, 12);
    }

    record Change(int loadsBefore, long atNanos) {
    }

    /** The in-place edit, the ConfigMap swap and an invalid edit run on every JDK; the rest on the test JDK. */
    static List<Jdks.Jdk> jdks() {
        return Jdks.of(Jdks.ALL);
    }

    /** A service under test: the forked JVM, its server and what it was called so far. */
    static final class Service implements AutoCloseable {
        final ScriptedServer server = ScriptedServer.start(Step.status(503));
        final ForkedApp.Running app;
        final Path file;
        private int seq;

        Service(String name, Path file) {
            this(name, file, Jdks.testJdk());
        }

        Service(String name, Path file, Jdks.Jdk jdk) {
            this(name, file, "jdk", ClientLibs.NONE, jdk);
        }

        Service(String name, Path file, String client, ClientLibs libs) {
            this(name, file, client, libs, Jdks.testJdk());
        }

        Service(String name, Path file, String client, ClientLibs libs, Jdks.Jdk jdk) {
            this.file = file;
            this.app = ForkedApp.of(LineDrivenApp.class)
                    .name(name + "-" + jdk)
                    .java(jdk.java())
                    .clientLibs(libs)
                    .agentArg("policy", file.toString())
                    .agentArg("log", "info")
                    .args("--url", "http://" + server.host() + ":" + server.port(), "--client", client)
                    .timeout(Duration.ofSeconds(120))
                    .start();
            app.awaitStdoutLine(l -> l.startsWith("APP "), CALL_LIMIT);
        }

        /** Makes one call to {@code path}; returns the requests the server saw for it. */
        List<RecordedRequest> call(String path) {
            app.writeLine(path);
            int n = ++seq;
            String line = app.awaitStdoutLine(l -> l.startsWith("RESULT seq=" + n + " "), CALL_LIMIT);
            ReportLine result = ReportLine.parse(line);
            assertEquals(503, result.getInt("status"), line);
            return server.requests().stream().filter(r -> r.path().equals(path)).collect(Collectors.toList());
        }

        /** Waits for the start-up load of {@code content}. */
        void awaitStartUp(String content) throws Exception {
            String expected = "hash=" + hash(content);
            app.awaitStderrLine(l -> l.startsWith("retry-agent policy-loaded ") && l.contains(expected), RELOAD_LIMIT);
        }

        /** Waits for the start-up load of {@code before}, a policy of 2 attempts, and checks a call makes them. */
        void awaitStartUpOfTwoAttempts(String before) throws Exception {
            awaitStartUp(before);
            assertAttempts(2, call("/before"));
        }

        /**
         * Waits for the load of {@code after} since {@code change}, a policy of 4 attempts, and checks a call to
         * {@code path} makes them.
         */
        void awaitLoadOfFourAttempts(String what, String after, Change change, String path) throws Exception {
            awaitLoaded(what, after, change);
            assertAttempts(4, call(path));
        }

        /** What the test needs to know about the moment before it changes the file. */
        Change change() {
            return new Change(agentLines("policy-loaded").size(), System.nanoTime());
        }

        /** Waits for the agent to log a new load of {@code content} since {@code change}; returns how long it took. */
        long awaitLoaded(String what, String content, Change change) throws Exception {
            String expected = "hash=" + hash(content);
            int[] loads = {0};
            app.awaitStderrLine(l -> l.startsWith("retry-agent policy-loaded ") && ++loads[0] > change.loadsBefore
                    && l.contains(expected), RELOAD_LIMIT);
            long millis = (System.nanoTime() - change.atNanos) / 1_000_000;
            System.out.println("RELOAD-MS case=" + what + " ms=" + millis);
            return millis;
        }

        List<String> agentLines(String kind) {
            return app.stderrSoFar().lines().filter(l -> l.startsWith("retry-agent " + kind)).collect(Collectors.toList());
        }

        @Override
        public void close() {
            try {
                app.close();
            } finally {
                server.close();
            }
        }
    }

    private static Path runDir(String name) throws IOException {
        Files.createDirectories(ForkedApp.workRoot());
        return Files.createTempDirectory(ForkedApp.workRoot(), name + "-files-");
    }

    private static Path plainFile(String name, String content) throws IOException {
        Path file = runDir(name).resolve("policy.yaml");
        Files.writeString(file, content);
        return file;
    }

    private static void assertAttempts(int expected, List<RecordedRequest> seen) {
        assertEquals(expected, seen.size(), seen.toString());
        for (int i = 0; i < seen.size(); i++) {
            assertEquals(Integer.toString(i + 1), seen.get(i).header("Retry-Attempt"), seen.toString());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aFileRewrittenInPlaceIsLoaded(Jdks.Jdk jdk) throws Exception {
        String before = policy(2);
        String after = policy(4);
        Path file = plainFile("in-place", before);
        try (Service service = new Service("reload-in-place", file, jdk)) {
            service.awaitStartUpOfTwoAttempts(before);

            Object inode = Files.getAttribute(file, "unix:ino");
            Change changedAt = service.change();
            Files.writeString(file, after); // truncates and writes the same inode
            assertEquals(inode, Files.getAttribute(file, "unix:ino"));
            service.awaitLoadOfFourAttempts("in-place", after, changedAt, "/after");
            assertEquals(2, service.agentLines("policy-loaded").size(), service.app.stderrSoFar());
        }
    }

    @Test
    void aFileReplacedByAnAtomicRenameIsLoaded() throws Exception {
        String before = policy(2);
        String after = policy(4);
        Path file = plainFile("rename", before);
        try (Service service = new Service("reload-rename", file)) {
            service.awaitStartUpOfTwoAttempts(before);

            Path next = file.resolveSibling(".policy.yaml.tmp");
            Files.writeString(next, after);
            Change changedAt = service.change();
            Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            service.awaitLoadOfFourAttempts("rename", after, changedAt, "/after");
        }
    }

    /**
     * What kubelet does to a ConfigMap volume: {@code policy.yaml -> ..data/policy.yaml}, {@code ..data} a link to a
     * timestamped directory; an update writes a new directory, points a new link at it, renames that link over
     * {@code ..data} and deletes the old directory. Neither {@code policy.yaml} nor the directory it is in changes.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aConfigMapSymlinkSwapIsLoaded(Jdks.Jdk jdk) throws Exception {
        String before = policy(2);
        String after = policy(4);
        Path volume = runDir("configmap");
        Path first = Files.createDirectory(volume.resolve("..2026_12_01_02_00_00.000000001"));
        Files.writeString(first.resolve("policy.yaml"), before);
        Files.createSymbolicLink(volume.resolve("..data"), first.getFileName());
        Path file = volume.resolve("policy.yaml");
        Files.createSymbolicLink(file, Paths.get("..data", "policy.yaml"));
        try (Service service = new Service("reload-configmap", file, jdk)) {
            service.awaitStartUpOfTwoAttempts(before);

            Path second = Files.createDirectory(volume.resolve("..2026_12_01_02_05_00.000000002"));
            Files.writeString(second.resolve("policy.yaml"), after);
            Files.setLastModifiedTime(second.resolve("policy.yaml"), Files.getLastModifiedTime(first.resolve("policy.yaml")));
            Path newLink = Files.createSymbolicLink(volume.resolve("..data_tmp"), second.getFileName());
            Change changedAt = service.change();
            Files.move(newLink, volume.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
            Files.delete(first.resolve("policy.yaml"));
            Files.delete(first);
            service.awaitLoadOfFourAttempts("configmap", after, changedAt, "/after");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void anInvalidEditKeepsThePolicyAndIsReportedOnce(Jdks.Jdk jdk) throws Exception {
        String before = policy(2);
        String invalid = "version: 1\ndefaults:\n  maxAttempts: 0\n";
        String fixed = policy(4);
        Path file = plainFile("invalid", before);
        try (Service service = new Service("reload-invalid", file, jdk)) {
            service.awaitStartUp(before);

            Change changedAt = service.change();
            Files.writeString(file, invalid);
            String rejected = service.app.awaitStderrLine(l -> l.startsWith("retry-agent policy-rejected "), RELOAD_LIMIT);
            System.out.println("RELOAD-MS case=invalid ms=" + (System.nanoTime() - changedAt.atNanos()) / 1_000_000);
            assertTrue(rejected.contains("file=" + file + " hash=" + hash(invalid) + " errors=1 first=" + file
                    + ":3: defaults.maxAttempts: "), rejected);
            assertTrue(rejected.endsWith("keeping the running policy hash=" + hash(before)), rejected);
            assertAttempts(2, service.call("/kept"));

            // Several polls pass over the bad file, one of them after it was touched again with the same content.
            Thread.sleep(2_500);
            Files.writeString(file, invalid);
            Thread.sleep(2_500);
            assertAttempts(2, service.call("/still-kept"));
            assertEquals(1, service.agentLines("policy-rejected").size(), service.app.stderrSoFar());

            changedAt = service.change();
            Files.writeString(file, fixed);
            service.awaitLoadOfFourAttempts("fixed", fixed, changedAt, "/fixed");
            assertEquals(1, service.agentLines("policy-rejected").size(), service.app.stderrSoFar());
        }
    }

    @Test
    void aDeletedFileKeepsThePolicyAndItsReturnIsLoaded() throws Exception {
        String before = policy(2);
        String after = policy(4);
        Path file = plainFile("deleted", before);
        try (Service service = new Service("reload-deleted", file)) {
            service.awaitStartUp(before);

            Files.delete(file);
            String rejected = service.app.awaitStderrLine(l -> l.startsWith("retry-agent policy-rejected "), RELOAD_LIMIT);
            assertTrue(rejected.contains("first=" + file + ":1: (file): policy file not found"), rejected);
            assertAttempts(2, service.call("/kept"));
            Thread.sleep(2_500);
            assertEquals(1, service.agentLines("policy-rejected").size(), service.app.stderrSoFar());

            Change changedAt = service.change();
            Files.writeString(file, after);
            service.awaitLoadOfFourAttempts("restored", after, changedAt, "/back");
        }
    }

    @Test
    void aFileInvalidAtStartUpRunsWithoutRetriesUntilItIsFixed() throws Exception {
        String invalid = "version: 1\ndefaults:\n  maxAttempts: 0\n";
        String fixed = policy(4);
        Path file = plainFile("invalid-at-start", invalid);
        try (Service service = new Service("reload-invalid-at-start", file)) {
            service.app.awaitStderrLine(l -> l.startsWith("retry-agent policy-invalid "), RELOAD_LIMIT);
            List<RecordedRequest> off = service.call("/off");
            assertEquals(1, off.size(), off.toString());
            assertNull(off.get(0).header("Retry-Attempt"));

            Change changedAt = service.change();
            Files.writeString(file, fixed);
            service.awaitLoadOfFourAttempts("fixed-after-start", fixed, changedAt, "/fixed");
        }
    }

    /**
     * The client object is built at start-up, under {@code enforce} and {@code builtInRetries: replace}, and reused
     * after the switch: every call after it goes out as without the agent, unmarked. The server always answers 503:
     * the JDK and OkHttp send such a request once; HttpClient 5's default client resends it once by itself
     * ({@code DefaultHttpRequestRetryStrategy}), which the agent replaced while it was on and gives back when off.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"jdk, NONE, 1", "okhttp, OKHTTP_5, 1", "httpclient5, HTTPCLIENT5_NEWEST, 2"})
    void modeOffInTheFileIsTheKillSwitch(String client, ClientLibs libs, int requestsWithoutTheAgent)
            throws Exception {
        String before = policy(3);
        String off = "version: 1\nmode: off\n";
        Path file = plainFile("kill-switch-" + client, before);
        try (Service service = new Service("reload-kill-switch-" + client, file, client, libs)) {
            service.awaitStartUp(before);
            assertAttempts(3, service.call("/on"));

            Change changedAt = service.change();
            Files.writeString(file, off);
            service.awaitLoaded("kill-switch-" + client, off, changedAt);
            assertTrue(service.agentLines("policy-loaded").get(1).contains(" mode=off "), service.app.stderrSoFar());
            for (int i = 0; i < 3; i++) {
                List<RecordedRequest> seen = service.call("/off-" + i);
                assertEquals(requestsWithoutTheAgent, seen.size(), "as without the agent: " + seen);
                for (RecordedRequest request : seen) {
                    assertNull(request.header("Retry-Attempt"), seen.toString());
                }
            }

            changedAt = service.change();
            Files.writeString(file, before);
            service.awaitLoaded("back-on-" + client, before, changedAt);
            assertAttempts(3, service.call("/on-again"));
        }
    }
}
