package dev.retryagent.it.reload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.RecordedRequest;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hostile policy files (docs/reference.md#fail-open, #hot-reload) given to the built agent in a forked {@code
 * LineDrivenApp} against a loopback server that answers 503 to everything: at start-up the application starts, its
 * calls go out once and unmarked (mode off), and the log names the file and the line; through a hot reload the running
 * policy stays (each call still makes {@code maxAttempts} 2 requests), each kind is reported once, and the housekeeping
 * thread goes on (after a FIFO a valid edit is still loaded). The unit level, with the generated inputs and their cost,
 * is {@code HostilePolicyInputTest}.
 */
class HostilePolicyIT {
    private static final Duration REJECT_LIMIT = Duration.ofSeconds(10);

    /** A hostile thing made at {@code path}; returns what its error line carries from {@code file:line:} on. */
    private static Pattern make(String kind, Path path, Path errorFile) throws Exception {
        String at = Pattern.quote(errorFile.toString());
        switch (kind) {
            case "fifo" -> {
                Process p = new ProcessBuilder("mkfifo", path.toString()).redirectErrorStream(true).start();
                assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "mkfifo failed");
                return Pattern.compile(at + ":1: \\(file\\): the policy path is not a regular file");
            }
            case "directory" -> {
                Files.createDirectory(path);
                return Pattern.compile(at + ":1: \\(file\\): the policy path is a directory");
            }
            case "sparse-100MB" -> {
                try (RandomAccessFile raf = new RandomAccessFile(path.toFile(), "rw")) {
                    raf.setLength(100L * 1024 * 1024); // sparse: nothing is written
                }
                return Pattern.compile(at + ":1: \\(file\\): the policy file is too large: 104857600 bytes");
            }
            case "alias-bomb" -> {
                StringBuilder sb = new StringBuilder("version: 1\nlol0: &a0 [lol]\n");
                for (int l = 1; l <= 9; l++) {
                    sb.append("lol").append(l).append(": &a").append(l).append(" [");
                    for (int k = 0; k < 10; k++) {
                        sb.append(k == 0 ? "" : ", ").append("*a").append(l - 1);
                    }
                    sb.append("]\n");
                }
                sb.append("defaults: *a9\n");
                Files.writeString(path, sb);
                return Pattern.compile(at + ":2: lol0: YAML anchors are not allowed");
            }
            case "binary-junk" -> {
                byte[] junk = new byte[4096];
                new Random(11).nextBytes(junk);
                byte[] head = "version: 1\nmode: ".getBytes(StandardCharsets.US_ASCII);
                System.arraycopy(head, 0, junk, 0, head.length);
                junk[head.length] = (byte) 0xff; // never valid UTF-8: the error is on line 2
                Files.write(path, junk);
                return Pattern.compile(at + ":2: \\(file\\): the policy file is not valid UTF-8");
            }
            case "deep-nesting" -> {
                Files.writeString(path, "version: 1\ndefaults: " + "[".repeat(5_000) + "]".repeat(5_000) + "\n");
                return Pattern.compile(at + ":2: \\(yaml\\): lists and mappings are nested more than 32 levels");
            }
            case "type-tag" -> {
                Files.writeString(path, "version: 1\ndefaults:\n  maxAttempts: !!python/object/apply:os.system [id]\n");
                return Pattern.compile(at + ":3: defaults.maxAttempts: type tags are not allowed");
            }
            default -> throw new IllegalArgumentException(kind);
        }
    }

    private static Path runDir(String name) throws IOException {
        Files.createDirectories(ForkedApp.workRoot());
        return Files.createTempDirectory(ForkedApp.workRoot(), name + "-files-");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fifo", "directory", "sparse-100MB", "alias-bomb", "binary-junk", "deep-nesting"})
    void aHostileFileAtStartUpLeavesTheApplicationRunningWithoutRetries(String kind) throws Exception {
        Path file = runDir("hostile-start-" + kind).resolve("policy.yaml");
        Pattern error = make(kind, file, file);
        try (HotReloadIT.Service service = new HotReloadIT.Service("hostile-start-" + kind, file)) {
            String invalid = service.app.awaitStderrLine(l -> l.startsWith("retry-agent policy-invalid "), REJECT_LIMIT);
            assertTrue(invalid.contains("file=" + file), invalid);
            List<String> errors = service.agentLines("policy-error");
            assertTrue(!errors.isEmpty() && error.matcher(errors.get(0)).find(), kind + ": " + errors);
            for (int i = 0; i < 3; i++) {
                List<RecordedRequest> seen = service.call("/off-" + i);
                assertEquals(1, seen.size(), "mode off, sent once: " + seen);
                assertNull(seen.get(0).header("Retry-Attempt"), seen.toString());
            }
            assertTrue(service.app.isAlive());
        }
    }

    /**
     * One running service whose file is replaced by each hostile kind in turn, by a rename as a deployment tool does
     * (the directory cannot be renamed over a file: the file is removed first, so a {@code not found} may be logged
     * between, and the counts are per kind). After the FIFO the test waits over two polls, in which the poll must
     * neither block on it nor report it again; the kinds after it are each reported, and a valid file at the end is
     * loaded: the housekeeping thread was never stuck.
     */
    @Test
    void hostileReplacementsKeepTheRunningPolicyAndAreEachReportedOnce() throws Exception {
        String before = HotReloadIT.policy(2);
        String after = HotReloadIT.policy(4);
        Path dir = runDir("hostile-reload");
        Path file = dir.resolve("policy.yaml");
        Files.writeString(file, before);
        List<String> kinds = List.of("sparse-100MB", "alias-bomb", "binary-junk", "deep-nesting", "type-tag", "fifo",
                "directory");
        try (HotReloadIT.Service service = new HotReloadIT.Service("hostile-reload", file)) {
            service.awaitStartUp(before);
            assertEquals(2, service.call("/before").size());

            for (String kind : kinds) {
                Path next = dir.resolve(".next-" + kind);
                Pattern error = make(kind, next, file);
                int rejectedBefore = service.agentLines("policy-rejected").size();
                long changedAt = System.nanoTime();
                if (Files.isDirectory(next)) {
                    Files.move(next, file, StandardCopyOption.REPLACE_EXISTING);
                } else {
                    Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                }
                int[] seen = {0};
                String rejected = service.app.awaitStderrLine(l -> l.startsWith("retry-agent policy-rejected ")
                        && ++seen[0] > rejectedBefore && error.matcher(l).find(), REJECT_LIMIT);
                System.out.println("REJECT-MS case=" + kind + " ms=" + (System.nanoTime() - changedAt) / 1_000_000);
                assertTrue(rejected.contains("file=" + file + " "), rejected);
                assertTrue(rejected.endsWith("keeping the running policy hash=" + HotReloadIT.hash(before)), rejected);
                if (kind.equals("fifo")) {
                    Thread.sleep(2_500);
                }
                List<RecordedRequest> kept = service.call("/kept-" + kind);
                assertEquals(2, kept.size(), kind + ": the running policy retries: " + kept);
                assertEquals("2", kept.get(1).header("Retry-Attempt"), kept.toString());
            }

            Path valid = dir.resolve(".next-valid");
            Files.writeString(valid, after);
            HotReloadIT.Change changedAt = service.change();
            Files.move(valid, file, StandardCopyOption.REPLACE_EXISTING); // over the directory
            service.awaitLoaded("after-hostile", after, changedAt);
            assertEquals(4, service.call("/after").size());

            List<String> rejections = service.agentLines("policy-rejected");
            for (String kind : kinds) {
                Pattern error = make(kind, dir.resolve(".again-" + kind), file);
                List<String> ofKind = rejections.stream().filter(l -> error.matcher(l).find()).collect(Collectors.toList());
                assertEquals(1, ofKind.size(), kind + " reported once: " + rejections);
            }
            assertTrue(rejections.size() <= kinds.size() + 1, "at most one `not found` besides: " + rejections);
            assertTrue(service.app.isAlive());
        }
    }
}
