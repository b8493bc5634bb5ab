package dev.retryagent.agent.operations.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** The command-line tool run in this JVM, with what its last run printed to stdout and stderr kept as text. */
final class CapturedRun {
    private ByteArrayOutputStream out = new ByteArrayOutputStream();
    private ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** Runs {@code retry-agent args...} with empty stdout and stderr, and answers its exit status. */
    int run(String... args) {
        out = new ByteArrayOutputStream();
        err = new ByteArrayOutputStream();
        return RetryAgentMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    String err() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
