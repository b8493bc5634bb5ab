package dev.retryagent.agent.startup.reload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.CapturedLog;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.PolicyError;
import dev.retryagent.policy.PolicyException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The watcher against a fake file system and clock: every poll is made by hand, nothing sleeps. */
class PolicyWatcherTest {
    private static final Path FILE = Paths.get("/etc/retry/policy.yaml");
    private static final String GOOD = "version: 1\ndefaults:\n  maxAttempts: 3\n";
    private static final String BETTER = "version: 1\ndefaults:\n  maxAttempts: 5\nrules:\n  - match: {host: a}\n    maxAttempts: 2\n";
    private static final String INVALID = "version: 1\ndefaults:\n  maxAttempts: 0\n";

    private final FakeFiles files = new FakeFiles();
    private final long[] now = {1_000_000};
    private final List<Policy> installed = new ArrayList<>();
    private final List<Integer> linesLoggedAtInstall = new ArrayList<>();
    private final CapturedLog captured = new CapturedLog();
    private final List<String> log = captured.lines;

    @BeforeEach
    void captureLog() {
        captured.start(Level.ALL);
    }

    @AfterEach
    void releaseLog() {
        captured.stop();
    }

    private PolicyWatcher watcher(Mode override) {
        return new PolicyWatcher(FILE, override, files, () -> now[0], policy -> {
            installed.add(policy);
            linesLoggedAtInstall.add(log.size());
        });
    }

    /** Time passes beyond the racy window, so that the stamp of the last write is trusted. */
    private void later() {
        now[0] += PolicyWatcher.RACY_MILLIS + 1_000;
    }

    private List<String> lines(String kind) {
        List<String> found = new ArrayList<>();
        for (String line : log) {
            if (line.contains("retry-agent " + kind)) {
                found.add(line);
            }
        }
        return found;
    }

    @Test
    void startUpLoadsTheFileAndLogsItsHash() {
        files.write(GOOD, now[0] - 60_000);
        PolicyWatcher watcher = watcher(null);
        Policy policy = watcher.start();
        assertEquals(3, policy.defaults().maxAttempts());
        assertEquals(Mode.ENFORCE, policy.mode());
        String hash = ContentHash.shortHex(GOOD.getBytes(StandardCharsets.UTF_8));
        assertEquals(12, hash.length());
        assertEquals(List.of("INFO retry-agent policy-loaded file=" + FILE + " hash=" + hash
                + " rules=0 mode=enforce builtInRetries=replace"), log);
        assertEquals(hash, watcher.loadedHash());
        assertEquals(hash, System.getProperty(PolicyWatcher.POLICY_HASH_PROPERTY), "readable from a live JVM");
        assertEquals(FILE.toString(), System.getProperty(PolicyWatcher.POLICY_FILE_PROPERTY));
        assertTrue(installed.isEmpty(), "start-up returns the policy; the caller installs it");
    }

    @Test
    void anUnchangedFileIsReadOnceMoreToTakeItsStampThenNotAgain() {
        files.write(GOOD, now[0] - 60_000);
        PolicyWatcher watcher = watcher(null);
        watcher.start();
        for (int i = 0; i < 10; i++) {
            later();
            watcher.poll();
        }
        assertEquals(2, files.reads, "at start-up, and at the first poll, which takes the first stamp");
        assertTrue(installed.isEmpty());
        assertEquals(1, lines("policy-loaded").size());
    }

    @Test
    void anInPlaceRewriteIsLoadedAtTheNextPoll() {
        files.write(GOOD, now[0] - 60_000);
        PolicyWatcher watcher = watcher(null);
        watcher.start();
        later();
        files.rewriteInPlace(BETTER, now[0]);
        watcher.poll();
        assertEquals(1, installed.size());
        assertEquals(5, installed.get(0).defaults().maxAttempts());
        assertEquals(1, installed.get(0).rules().size());
        assertEquals(2, lines("policy-loaded").size());
        assertEquals(List.of(1), linesLoggedAtInstall, "the load is logged once the policy is in force");
        assertTrue(lines("policy-loaded").get(1).contains(
                "hash=" + ContentHash.shortHex(BETTER.getBytes(StandardCharsets.UTF_8)) + " rules=1"), log::toString);
    }

    @Test
    void anAtomicRenameIsLoaded() {
        files.write(GOOD, now[0] - 60_000);
        PolicyWatcher watcher = watcher(null);
        watcher.start();
        later();
        // A new inode with the same size and an older modification time (a copy that kept its time): only the
        // identity tells.
        files.replaceByRename(GOOD.replace("3", "4"), now[0] - 3_600_000);
        watcher.poll();
        assertEquals(1, installed.size());
        assertEquals(4, installed.get(0).defaults().maxAttempts());
    }

    @Test
    void aConfigMapSwapIsLoadedThoughTheLinkItselfNeverChanges() {
        files.write(GOOD, now[0] - 60_000);
        files.resolved = "/etc/retry/..2026_12_01_02_00_00.1/policy.yaml";
        PolicyWatcher watcher = watcher(null);
        watcher.start();
        later();
        // kubelet writes a new timestamped directory and swaps ..data: the path resolves elsewhere; here the new file
        // has the same size, time and inode number as the old one, so only the resolved path tells.
        files.content = GOOD.replace("3", "4").getBytes(StandardCharsets.UTF_8);
        files.resolved = "/etc/retry/..2026_12_01_02_05_00.2/policy.yaml";
        watcher.poll();
        assertEquals(1, installed.size());
        assertEquals(4, installed.get(0).defaults().maxAttempts());
    }

    @Test
    void aTouchOrASwapToTheSameContentLoadsNothing() {
        files.write(GOOD, now[0] - 60_000);
        PolicyWatcher watcher = watcher(null);
        watcher.start();
        later();
        files.rewriteInPlace(GOOD, now[0]);
        watcher.poll();
        files.resolved = "/elsewhere/policy.yaml";
        later();
        watcher.poll();
        assertTrue(installed.isEmpty());
        assertEquals(1, lines("policy-loaded").size());
        assertEquals(3, files.reads, "the stamp changed twice, so the file was read, and hashed, twice");
    }

    @Test
    void aSecondWriteWithinTheSameTimestampTickIsStillSeen() {
        files.write(GOOD, now[0] - 60_000);
        PolicyWatcher watcher = watcher(null);
        watcher.start();
        later();
        long tick = now[0];
        files.rewriteInPlace(BETTER, tick);
        watcher.poll();
        assertEquals(1, installed.size());
        // Same size, same time stamp (a coarse file system clock), same inode: the stamp is identical.
        String sameSize = BETTER.replace("5", "7");
        files.content = sameSize.getBytes(StandardCharsets.UTF_8);
        now[0] += 1_000;
        watcher.poll();
        assertEquals(2, installed.size(), "read again: the stamp was too fresh to be trusted");
        assertEquals(7, installed.get(1).defaults().maxAttempts());
        later();
        watcher.poll();
        int reads = files.reads;
        later();
        watcher.poll();
        assertEquals(reads, files.reads, "once the stamp is old enough it is trusted again");
    }

    @Test
    void anInvalidEditKeepsThePolicyAndIsReportedOnceWithFileLineAndKey() {
        files.write(GOOD, now[0] - 60_000);
        PolicyWatcher watcher = watcher(null);
        String good = ContentHash.shortHex(GOOD.getBytes(StandardCharsets.UTF_8));
        watcher.start();
        later();
        files.rewriteInPlace(INVALID, now[0]);
        for (int i = 0; i < 5; i++) {
            watcher.poll();
            now[0] += 1_000;
        }
        files.rewriteInPlace(INVALID, now[0]); // touched again, same bad content
        for (int i = 0; i < 5; i++) {
            watcher.poll();
            now[0] += 1_000;
        }
        assertTrue(installed.isEmpty());
        List<String> rejected = lines("policy-rejected");
        assertEquals(1, rejected.size(), log::toString);
        String line = rejected.get(0);
        assertTrue(line.startsWith("WARNING retry-agent policy-rejected file=" + FILE + " hash="
                + ContentHash.shortHex(INVALID.getBytes(StandardCharsets.UTF_8)) + " errors=1 first=" + FILE
                + ":3: defaults.maxAttempts: "), line);
        assertTrue(line.endsWith("; keeping the running policy hash=" + good), line);
        assertEquals(good, watcher.loadedHash());

        // Another bad content is another line; the fix is loaded.
        files.rewriteInPlace(INVALID.replace("0", "-1"), now[0]);
        watcher.poll();
        assertEquals(2, lines("policy-rejected").size());
        files.rewriteInPlace(BETTER, now[0]);
        watcher.poll();
        assertEquals(1, installed.size());
        // The first bad content again, after a good one: reported again, since it is news again.
        files.rewriteInPlace(INVALID, now[0]);
        watcher.poll();
        assertEquals(3, lines("policy-rejected").size());
    }

    @Test
    void aDeletedFileKeepsThePolicyAndIsReportedOnceThenItsReturnIsLoaded() {
        files.write(GOOD, now[0] - 60_000);
        PolicyWatcher watcher = watcher(null);
        watcher.start();
        later();
        files.delete();
        for (int i = 0; i < 5; i++) {
            watcher.poll();
            later();
        }
        assertTrue(installed.isEmpty());
        List<String> rejected = lines("policy-rejected");
        assertEquals(1, rejected.size(), log::toString);
        assertTrue(rejected.get(0).contains("first=" + FILE + ":1: (file): policy file not found"), rejected::toString);

        files.write(GOOD, now[0]);
        watcher.poll();
        assertTrue(installed.isEmpty(), "the same content as runs: nothing to load");
        files.delete();
        watcher.poll();
        assertEquals(2, lines("policy-rejected").size(), "deleted again after a good read: news again");
        files.write(BETTER, now[0]);
        watcher.poll();
        assertEquals(1, installed.size());
    }

    @Test
    void anUnreadableFileIsReadAgainAtEveryPollButReportedOnce() {
        files.write(GOOD, now[0] - 60_000);
        PolicyWatcher watcher = watcher(null);
        watcher.start();
        later();
        files.unreadable = true;
        files.permissions = "---------";
        for (int i = 0; i < 4; i++) {
            watcher.poll();
            later();
        }
        assertEquals(1, lines("policy-rejected").size(), log::toString);
        assertTrue(lines("policy-rejected").get(0).contains("permission denied"));
        // Readable again (say, through the directory's permission): no stamp change is needed to notice.
        files.unreadable = false;
        files.content = BETTER.getBytes(StandardCharsets.UTF_8);
        watcher.poll();
        assertEquals(1, installed.size());
    }

    @Test
    void aFileWithThousandsOfErrorsLogsTheFirstOnesAndACount() {
        // the loader keeps 100 errors and a pointer to the rest: 101
        StringBuilder yaml = new StringBuilder("version: 1\n");
        for (int i = 0; i < 3_000; i++) {
            yaml.append("bogus").append(i).append(": 1\n");
        }
        files.write(yaml.toString(), now[0] - 60_000);
        Policy policy = watcher(null).start();
        assertEquals(Mode.OFF, policy.mode());
        List<String> errors = lines("policy-error");
        assertEquals(PolicyWatcher.MAX_LOGGED_ERRORS + 1, errors.size(), log::toString);
        assertTrue(errors.get(0).contains(FILE + ":2: bogus0"), errors.get(0));
        assertTrue(errors.get(errors.size() - 1).contains(FILE + ": 81 more errors not shown"), errors.toString());
        assertTrue(lines("policy-invalid").get(0).contains("errors=101"), lines("policy-invalid").toString());
    }

    @Test
    void aFileInvalidAtStartUpRunsOffAndIsPickedUpOnceFixed() {
        files.write(INVALID, now[0] - 60_000);
        PolicyWatcher watcher = watcher(null);
        Policy policy = watcher.start();
        assertEquals(Mode.OFF, policy.mode());
        assertEquals(1, lines("policy-error").size());
        assertTrue(lines("policy-error").get(0).contains(FILE + ":3: defaults.maxAttempts"));
        assertEquals(1, lines("policy-invalid").size());
        assertNull(watcher.loadedHash());
        later();
        watcher.poll();
        files.rewriteInPlace(INVALID, now[0]);
        watcher.poll();
        assertEquals(0, lines("policy-rejected").size(), "already reported at start-up");
        files.rewriteInPlace(GOOD, now[0]);
        watcher.poll();
        assertEquals(1, installed.size());
        assertEquals(Mode.ENFORCE, installed.get(0).mode());
    }

    @Test
    void aFileMissingAtStartUpIsLoadedWhenItAppears() {
        files.delete();
        PolicyWatcher watcher = watcher(null);
        assertEquals(Mode.OFF, watcher.start().mode());
        watcher.poll();
        watcher.poll();
        assertEquals(0, lines("policy-rejected").size());
        files.write(GOOD, now[0]);
        watcher.poll();
        assertEquals(1, installed.size());
        assertTrue(lines("policy-rejected").isEmpty());
        files.delete();
        watcher.poll();
        assertTrue(lines("policy-rejected").get(0).endsWith("keeping the running policy hash="
                + ContentHash.shortHex(GOOD.getBytes(StandardCharsets.UTF_8))), log::toString);
    }

    @Test
    void theOperatorsModeOverridesEveryReload() {
        files.write(GOOD, now[0] - 60_000);
        PolicyWatcher watcher = watcher(Mode.OBSERVE);
        assertEquals(Mode.OBSERVE, watcher.start().mode());
        later();
        files.rewriteInPlace("version: 1\nmode: enforce\ndefaults:\n  maxAttempts: 4\n", now[0]);
        watcher.poll();
        assertEquals(Mode.OBSERVE, installed.get(0).mode());
        assertEquals(4, installed.get(0).defaults().maxAttempts());
        assertTrue(lines("policy-loaded").get(1).contains(" mode=observe "), log::toString);
    }

    @Test
    void aReloadToModeOffIsLoadedLikeAnyOther() {
        files.write(GOOD, now[0] - 60_000);
        PolicyWatcher watcher = watcher(null);
        watcher.start();
        later();
        files.rewriteInPlace("version: 1\nmode: off\n", now[0]);
        watcher.poll();
        assertEquals(Mode.OFF, installed.get(0).mode());
        assertTrue(lines("policy-loaded").get(1).contains(" mode=off "), log::toString);
    }

    @Test
    void aStampThatFailsOddlyFallsBackToReading() {
        files.write(GOOD, now[0] - 60_000);
        PolicyWatcher watcher = watcher(null);
        watcher.start();
        files.stampFailure = new IllegalStateException("file system provider trouble");
        files.content = BETTER.getBytes(StandardCharsets.UTF_8);
        watcher.poll();
        assertEquals(1, installed.size());
    }

    @Test
    void theRealFileAccessStampsAndReadsARealFile(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path data1 = java.nio.file.Files.createDirectory(dir.resolve("..2026_1"));
        Path data2 = java.nio.file.Files.createDirectory(dir.resolve("..2026_2"));
        java.nio.file.Files.write(data1.resolve("policy.yaml"), GOOD.getBytes(StandardCharsets.UTF_8));
        java.nio.file.Files.write(data2.resolve("policy.yaml"), GOOD.getBytes(StandardCharsets.UTF_8));
        Path link = dir.resolve("..data");
        java.nio.file.Files.createSymbolicLink(link, data1.getFileName());
        Path file = dir.resolve("policy.yaml");
        java.nio.file.Files.createSymbolicLink(file, Paths.get("..data", "policy.yaml"));

        PolicyWatcher.Stamp first = PolicyWatcher.REAL_FILES.stamp(file);
        assertEquals(first, PolicyWatcher.REAL_FILES.stamp(file));
        assertEquals(data1.resolve("policy.yaml").toRealPath().toString(), first.resolved);
        assertEquals(GOOD.length(), first.size);
        Path next = dir.resolve("..data_tmp");
        java.nio.file.Files.createSymbolicLink(next, data2.getFileName());
        java.nio.file.Files.move(next, link, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        PolicyWatcher.Stamp second = PolicyWatcher.REAL_FILES.stamp(file);
        assertTrue(!first.equals(second), first + " / " + second);
        assertEquals(GOOD, new String(PolicyWatcher.REAL_FILES.read(file), StandardCharsets.UTF_8));
        assertSame(NoSuchFileException.class, assertThrowsIo(() -> PolicyWatcher.REAL_FILES.stamp(dir.resolve("no"))));
    }

    private static Class<?> assertThrowsIo(IoCall call) {
        try {
            call.run();
        } catch (IOException e) {
            return e.getClass();
        }
        throw new AssertionError("no IOException");
    }

    private interface IoCall {
        void run() throws IOException;
    }

    /** One file, as the watcher sees it: a stamp and a content, changed by the test. */
    static final class FakeFiles implements PolicyWatcher.FileAccess {
        byte[] content;
        String resolved = FILE.toString();
        long inode = 1;
        long modifiedMillis;
        String permissions = "rw-r--r--";
        boolean unreadable;
        RuntimeException stampFailure;
        int reads;

        void write(String text, long atMillis) {
            content = text.getBytes(StandardCharsets.UTF_8);
            modifiedMillis = atMillis;
        }

        void rewriteInPlace(String text, long atMillis) {
            write(text, atMillis);
        }

        void replaceByRename(String text, long atMillis) {
            write(text, atMillis);
            inode++;
        }

        void delete() {
            content = null;
        }

        @Override
        public PolicyWatcher.Stamp stamp(Path file) throws IOException {
            if (stampFailure != null) {
                throw stampFailure;
            }
            if (content == null) {
                throw new NoSuchFileException(file.toString());
            }
            return new PolicyWatcher.Stamp(resolved, inode, content.length, modifiedMillis * 1_000_000L, permissions);
        }

        @Override
        public byte[] read(Path file) throws PolicyException {
            reads++;
            if (content == null) {
                throw new PolicyException(new PolicyError(file.toString(), 1, "(file)", "policy file not found"));
            }
            if (unreadable) {
                throw new PolicyException(new PolicyError(file.toString(), 1, "(file)",
                        "cannot read the policy file: permission denied"));
            }
            return content.clone();
        }
    }
}
