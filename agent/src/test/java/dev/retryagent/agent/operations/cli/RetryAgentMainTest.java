package dev.retryagent.agent.operations.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RetryAgentMainTest {
    @TempDir
    Path dir;

    private final CapturedRun tool = new CapturedRun();

    private int run(String... args) {
        return tool.run(args);
    }

    private String out() {
        return tool.out();
    }

    private String err() {
        return tool.err();
    }

    @Test
    void checkOfAValidPolicyExitsZeroAndExplainsEachRule() throws IOException {
        Path policy = dir.resolve("ok.yaml");
        Files.writeString(policy, "version: 1\n"
                + "defaults:\n  maxAttempts: 7\n  backoff: { base: 100ms, cap: 1s, jitter: none }\n"
                + "  retryOn: { statuses: [404, 503] }\n"
                + "rules:\n  - match: { host: \"api.internal\" }\n    maxAttempts: 2\n");
        assertEquals(0, run("check", policy.toString()), err());
        String text = out();
        assertTrue(text.contains("is valid"), text);
        assertTrue(text.contains("defaults (calls no rule matches)"), text);
        assertTrue(text.contains("rule #1"), text);
        assertTrue(text.contains("at most 7 per call"), text);
        assertTrue(text.contains("at most 2 per call"), text);
        // 7 attempts of the assumed 1s, waits of 100+200+400+800+1000+1000 ms, no jitter
        assertTrue(text.contains("longest 10.5s (7 attempts x 1s + 3.5s of waits); median 10.5s"), text);
        assertTrue(text.contains("[backoff.jitter] jitter none"), text);
        assertTrue(text.contains("[retryOn.statuses] status 404"), text);
        assertTrue(text.contains("[maxAttempts] maxAttempts 7"), text);
    }

    @Test
    void checkOfAnInvalidPolicyExitsTwoWithFileLineAndKey() throws IOException {
        Path policy = dir.resolve("bad.yaml");
        Files.writeString(policy, "version: 1\ndefaults:\n  maxAttempts: 0\n");
        assertEquals(2, run("check", policy.toString()), out());
        String text = err();
        assertTrue(text.contains(policy + ":3: defaults.maxAttempts"), text);
    }

    @Test
    void usageErrorsExit64() {
        assertEquals(64, run());
        assertEquals(64, run("frobnicate"));
        assertEquals(64, run("check"));
        assertEquals(0, run("--help"));
        assertTrue(out().contains("attach PID"), out());
    }
}
