package dev.retryagent.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile policy input (docs/reference.md#fail-open): a seeded generator's malformed and adversarial contents, and
 * special files in the policy's place, each read and parsed as the agent does it ({@link PolicyLoader#read}, then
 * {@link PolicyLoader#parseContent}). Each load ends in a policy or a {@link PolicyException} (never another
 * throwable) whose errors name the file and a line of it, and stays within 64 MiB allocated and 1 s of its thread's
 * CPU time. CPU time rather than wall time: on a loaded machine the wall time of a load includes the time it waited
 * for a core; the worst wall time is printed ({@code HOSTILE-WORST}), not asserted.
 */
class HostilePolicyInputTest {
    private static final long SEED = 20261201L;
    private static final long MAX_ALLOCATED = 64L * 1024 * 1024;
    private static final long MAX_CPU_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** Kinds that no variant of may load. */
    private static final Set<String> ALWAYS_REFUSED = Set.of("deep-nesting", "huge-number", "alias-bomb", "type-tag",
            "duplicate-keys", "long-key-or-string", "invalid-utf8", "many-errors");

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** What one load cost and how it ended. */
    record Load(String name, long allocated, long cpuNanos, long wallNanos, Policy policy, PolicyException error) {
    }

    private static Load load(String name, Path file) {
        long threadId = Thread.currentThread().getId();
        long allocatedBefore = THREADS.getThreadAllocatedBytes(threadId);
        long cpuBefore = THREADS.getCurrentThreadCpuTime();
        long wallBefore = System.nanoTime();
        Policy policy = null;
        PolicyException error = null;
        try {
            byte[] content = PolicyLoader.read(file);
            policy = PolicyLoader.parseContent(content, file.toString());
        } catch (PolicyException e) {
            error = e;
        } catch (Throwable t) {
            fail(name + ": only a PolicyException may leave the loader, got " + t, t);
        }
        long wall = System.nanoTime() - wallBefore;
        long cpu = THREADS.getCurrentThreadCpuTime() - cpuBefore;
        long allocated = THREADS.getThreadAllocatedBytes(threadId) - allocatedBefore;
        return new Load(name, allocated, cpu, wall, policy, error);
    }

    /** The common checks: bounded cost, and errors that name the file and one of its lines. */
    private static void check(Load load, Path file, int lines) {
        assertTrue(load.allocated() < MAX_ALLOCATED, load.name() + " allocated " + load.allocated() + " bytes");
        assertTrue(load.cpuNanos() < MAX_CPU_NANOS, load.name() + " took " + load.cpuNanos() / 1_000_000 + " ms CPU");
        if (load.error() == null) {
            return;
        }
        List<PolicyError> errors = load.error().errors();
        assertFalse(errors.isEmpty(), load.name());
        for (PolicyError error : errors) {
            assertEquals(file.toString(), error.file(), load.name() + ": " + error);
            assertTrue(error.line() >= 1 && error.line() <= Math.max(1, lines),
                    load.name() + ": line " + error.line() + " of " + lines + ": " + error);
            // what an operator sees: one short line, no control or invisible character that could forge or hide a line
            String shown = error.toString().substring(file.toString().length());
            assertTrue(shown.length() < 400, load.name() + ": " + shown.length() + " characters: " + shown);
            for (int i = 0; i < shown.length(); i++) {
                char c = shown.charAt(i);
                if (Character.isHighSurrogate(c) && i + 1 < shown.length() && Character.isLowSurrogate(shown.charAt(i + 1))) {
                    i++; // a pair is one visible character
                    continue;
                }
                assertFalse(unsafe(c), load.name() + ": character U+" + Integer.toHexString(c) + " in " + shown);
            }
        }
    }

    /** A character that could end, forge or hide part of a log line. */
    static boolean unsafe(char c) {
        int type = Character.getType(c);
        return Character.isISOControl(c) || type == Character.FORMAT || type == Character.LINE_SEPARATOR
                || type == Character.PARAGRAPH_SEPARATOR || type == Character.SURROGATE;
    }

    private static void warmUp(Path dir) throws IOException {
        // class loading and the first compilation are start-up costs of the agent, not of a hostile file
        Path warm = Files.write(dir.resolve("warm.yaml"), HostilePolicies.VALID.getBytes());
        for (int i = 0; i < 20; i++) {
            load("warm", warm);
        }
        Files.writeString(warm, "version: 1\ndefaults: { maxAttempts: 0, bogus: &a !!str x }\n- [");
        for (int i = 0; i < 20; i++) {
            load("warm", warm);
        }
    }

    @Test
    void everyGeneratedInputEndsInAPolicyOrAPolicyExceptionWithinItsBounds(@TempDir Path dir) throws Exception {
        List<HostilePolicies.Input> inputs = HostilePolicies.generate(SEED);
        assertTrue(inputs.size() >= 200, "generated " + inputs.size());
        assertEquals(inputs.size(), HostilePolicies.generate(SEED).size());
        warmUp(dir);
        Map<String, int[]> byKind = new TreeMap<>();
        Load worstWall = null;
        Load worstAllocated = null;
        Load worstCpu = null;
        for (int i = 0; i < inputs.size(); i++) {
            HostilePolicies.Input input = inputs.get(i);
            Path file = Files.write(dir.resolve(String.format("%03d-%s.yaml", i, input.name)), input.bytes);
            Load load = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> load(input.name, file),
                    input.name + " did not end");
            check(load, file, input.lines());
            int size = input.bytes.length;
            if (ALWAYS_REFUSED.contains(input.kind) || size > PolicyLoader.MAX_FILE_BYTES) {
                assertTrue(load.error() != null, input.name + " loaded");
            }
            if (size > PolicyLoader.MAX_FILE_BYTES) {
                assertEquals(1, load.error().errors().size(), load.error().getMessage());
                assertTrue(load.error().getMessage().contains("too large"), load.error().getMessage());
            }
            int[] counts = byKind.computeIfAbsent(input.kind, k -> new int[2]);
            counts[load.error() == null ? 1 : 0]++;
            worstWall = worstWall == null || load.wallNanos() > worstWall.wallNanos() ? load : worstWall;
            worstCpu = worstCpu == null || load.cpuNanos() > worstCpu.cpuNanos() ? load : worstCpu;
            worstAllocated = worstAllocated == null || load.allocated() > worstAllocated.allocated() ? load : worstAllocated;
        }
        StringBuilder kinds = new StringBuilder();
        byKind.forEach((kind, c) -> kinds.append(' ').append(kind).append('=').append(c[0] + c[1])
                .append("(refused ").append(c[0]).append(')'));
        System.out.println("HOSTILE-INPUTS seed=" + SEED + " total=" + inputs.size() + kinds);
        System.out.println("HOSTILE-WORST wallMs=" + worstWall.wallNanos() / 1_000_000 + " (" + worstWall.name()
                + ") cpuMs=" + worstCpu.cpuNanos() / 1_000_000 + " (" + worstCpu.name() + ") allocatedKiB="
                + worstAllocated.allocated() / 1024 + " (" + worstAllocated.name() + ")");
    }

    /** A special file in the policy's place: refused by the read, at line 1 of the file, never read or waited on. */
    @Test
    void specialFilesAreRefusedWithoutBeingReadOrBlocking(@TempDir Path dir) throws Exception {
        warmUp(dir);
        Map<String, Path> files = new LinkedHashMap<>();

        Path huge = dir.resolve("huge.yaml");
        try (RandomAccessFile raf = new RandomAccessFile(huge.toFile(), "rw")) {
            raf.setLength(100L * 1024 * 1024); // sparse: nothing is written
        }
        files.put("100MB-sparse", huge);
        files.put("directory", Files.createDirectory(dir.resolve("dir.yaml")));
        files.put("dangling-symlink", Files.createSymbolicLink(dir.resolve("dangling.yaml"), dir.resolve("nowhere")));
        Path loopA = dir.resolve("loop-a.yaml");
        Path loopB = dir.resolve("loop-b.yaml");
        Files.createSymbolicLink(loopA, loopB);
        Files.createSymbolicLink(loopB, loopA);
        files.put("symlink-loop", loopA);
        files.put("missing", dir.resolve("missing.yaml"));
        Path devZero = Path.of("/dev/zero");
        if (Files.exists(devZero)) {
            files.put("device", Files.createSymbolicLink(dir.resolve("zero.yaml"), devZero));
        }
        Path fifo = dir.resolve("fifo.yaml");
        if (mkfifo(fifo)) {
            files.put("fifo", fifo);
            files.put("symlink-to-fifo", Files.createSymbolicLink(dir.resolve("to-fifo.yaml"), fifo));
        }
        Path unreadable = Files.writeString(dir.resolve("unreadable.yaml"), HostilePolicies.VALID);
        Files.setPosixFilePermissions(unreadable, PosixFilePermissions.fromString("---------"));
        boolean root = Files.isReadable(unreadable); // root reads it anyway: then it is a valid policy
        files.put("unreadable", unreadable);

        List<String> report = new ArrayList<>();
        for (Map.Entry<String, Path> entry : files.entrySet()) {
            String name = entry.getKey();
            Path file = entry.getValue();
            // a FIFO that was opened would block this thread until a writer came: bounded, so that a defect fails
            Load load = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> load(name, file), name + " blocked");
            check(load, file, 1);
            if (name.equals("unreadable") && root) {
                report.add(name + "=loaded(root)");
                continue;
            }
            assertTrue(load.error() != null, name + " loaded");
            assertEquals(1, load.error().errors().size(), load.error().getMessage());
            PolicyError error = load.error().errors().get(0);
            assertEquals(1, error.line(), error.toString());
            assertEquals("(file)", error.key(), error.toString());
            if (name.equals("100MB-sparse")) {
                assertTrue(error.message().contains("104857600 bytes"), error.toString());
                assertTrue(load.allocated() < 1024 * 1024, "read " + load.allocated() + " bytes of the sparse file");
            }
            report.add(name + "=" + error.message());
        }
        System.out.println("HOSTILE-FILES " + String.join(" | ", report));
        assertTrue(files.containsKey("fifo") || !Files.exists(Path.of("/usr/bin/mkfifo")), "no FIFO was made");
    }

    private static boolean mkfifo(Path path) throws InterruptedException {
        try {
            Process p = new ProcessBuilder("mkfifo", path.toString()).redirectErrorStream(true).start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 && Files.exists(path);
        } catch (IOException e) {
            return false;
        }
    }

    /** Past 100 errors only a pointer to the next one is kept: their messages would cost more than a load may. */
    @Test
    void aFileWithThousandsOfErrorsListsTheFirstHundredAndWhereTheRestBegin() {
        StringBuilder yaml = new StringBuilder("version: 1\nrules:\n");
        for (int i = 0; i < 5_000; i++) {
            yaml.append("- 1\n");
        }
        PolicyException e = org.junit.jupiter.api.Assertions.assertThrows(PolicyException.class,
                () -> PolicyLoader.parse(yaml.toString(), "many.yaml"));
        List<PolicyError> errors = e.errors();
        assertEquals(PolicyErrors.MAX_KEPT + 1, errors.size());
        assertEquals(3, errors.get(0).line(), errors.get(0).toString());
        assertEquals("rules[0]", errors.get(0).key());
        PolicyError last = errors.get(errors.size() - 1);
        assertEquals("(file)", last.key());
        assertEquals(3 + PolicyErrors.MAX_KEPT, last.line(), last.toString());
        assertTrue(last.message().contains("more errors than the 100 listed"), last.toString());
    }

    @Test
    void theGeneratorIsSeeded() {
        List<HostilePolicies.Input> a = HostilePolicies.generate(SEED);
        List<HostilePolicies.Input> b = HostilePolicies.generate(SEED);
        for (int i = 0; i < a.size(); i++) {
            assertEquals(a.get(i).name, b.get(i).name);
            assertTrue(Arrays.equals(a.get(i).bytes, b.get(i).bytes), a.get(i).name);
        }
    }
}
