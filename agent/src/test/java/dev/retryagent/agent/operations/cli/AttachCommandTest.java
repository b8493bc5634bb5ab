package dev.retryagent.agent.operations.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checks {@code attach} makes before it touches another process (the attach itself: AttachIT). */
class AttachCommandTest {
    @TempDir
    Path dir;

    private final CapturedRun tool = new CapturedRun();

    private int run(String... args) {
        return tool.run(args);
    }

    private String err() {
        return tool.err();
    }

    private void assertOneLine() {
        assertEquals("", tool.out());
        assertEquals(1, err().split("\n").length, err());
        assertFalse(err().contains("Exception") || err().contains("\tat "), err());
    }

    @Test
    void missingPidIsAUsageError() {
        assertEquals(64, run("attach"));
        assertTrue(err().contains("attach needs the process id"), err());
        assertOneLine();
    }

    @Test
    void aPidThatIsNotANumberIsAUsageError() {
        for (String pid : new String[] {"abc", "-1", "0", "12x", "99999999999999999999"}) {
            assertEquals(64, run("attach", pid), pid);
            assertTrue(err().contains("is not a process id"), err());
            assertOneLine();
        }
    }

    @Test
    void unknownAgentArgumentsAreRefusedBeforeAttaching() {
        assertEquals(64, run("attach", "1", "policy=x.yaml,colour=blue"));
        assertTrue(err().contains("key=colour"), err());
        assertOneLine();
    }

    @Test
    void anInvalidPolicyIsRefusedWithFileLineAndKey() throws IOException {
        Path policy = dir.resolve("bad.yaml");
        Files.writeString(policy, "version: 1\ndefaults:\n  maxAttempts: 0\n");
        assertEquals(2, run("attach", "1", "policy=" + policy));
        assertTrue(err().contains(policy + ":3: defaults.maxAttempts"), err());
        assertTrue(err().contains("nothing attached"), err());
    }

    @Test
    void aMissingPolicyFileIsRefused() {
        assertEquals(2, run("attach", "1", "policy=" + dir.resolve("absent.yaml")));
        assertTrue(err().contains("nothing attached"), err());
    }

    @Test
    void theRelativePolicyPathIsMadeAbsoluteAndOtherPairsAreKept() {
        assertEquals("mode=observe,policy=/etc/p.yaml,log=debug",
                AttachCommand.withPolicy("mode=observe, policy=p.yaml ,log=debug", "/etc/p.yaml"));
        assertEquals("policy=/a.yaml,mode=off", AttachCommand.join(new String[] {"1", "policy=/a.yaml", "mode=off"}, 1));
        assertEquals("", AttachCommand.join(new String[] {"1"}, 1));
    }

    @Test
    void processIds() {
        assertTrue(AttachCommand.isProcessId("1"));
        assertTrue(AttachCommand.isProcessId("4194304"));
        assertFalse(AttachCommand.isProcessId(""));
        assertFalse(AttachCommand.isProcessId("0"));
        assertFalse(AttachCommand.isProcessId("1.5"));
    }

    @Test
    void failuresAreDescribedOnOneLine() {
        assertEquals("a b", AttachCommand.describe(new IOException("a\nb")));
        assertEquals("illegal state", AttachCommand.describe(new IllegalStateException()));
    }
}
