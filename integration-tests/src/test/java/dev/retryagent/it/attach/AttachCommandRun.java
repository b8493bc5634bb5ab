package dev.retryagent.it.attach;

import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code java -jar retry-agent.jar attach ARGS...} as an operator types it, in a working directory of its own,
 * with the forked applications' {@code java} (so that the command itself runs on Java 25 too).
 */
public record AttachCommandRun(List<String> command, int exitCode, String stdout, String stderr) {
    private static final AtomicInteger RUNS = new AtomicInteger();

    public static AttachCommandRun run(Path workDir, String... args) {
        return run(workDir, List.of(), args);
    }

    /** With options for the command's own JVM before {@code -jar}. */
    static AttachCommandRun run(Path workDir, List<String> jvmOptions, String... args) {
        return run(Jdks.testJdk(), workDir, jvmOptions, args);
    }

    /** With {@code jdk}'s {@code java}: an operator attaches with the target's own JDK (Java 8: its tools.jar). */
    public static AttachCommandRun run(Jdks.Jdk jdk, Path workDir, List<String> jvmOptions, String... args) {
        List<String> command = new ArrayList<>();
        command.add(jdk.java().toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", ForkedApp.agentJarPath().toString(), "attach"));
        command.addAll(Arrays.asList(args));
        try {
            Files.createDirectories(workDir);
            int n = RUNS.incrementAndGet();
            Path out = workDir.resolve("attach-" + n + "-stdout.txt");
            Path err = workDir.resolve("attach-" + n + "-stderr.txt");
            ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile())
                    .redirectOutput(out.toFile()).redirectError(err.toFile());
            builder.environment().remove("JAVA_TOOL_OPTIONS");
            builder.environment().remove("JDK_JAVA_OPTIONS");
            Process process = builder.start();
            process.getOutputStream().close();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("attach did not end within 60 s: " + command);
            }
            return new AttachCommandRun(command, process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Every line the command printed, stdout then stderr. */
    public List<String> lines() {
        List<String> lines = new ArrayList<>();
        for (String text : List.of(stdout, stderr)) {
            text.lines().filter(l -> !l.isBlank()).forEach(lines::add);
        }
        return lines;
    }

    public String describe() {
        return "command: " + String.join(" ", command) + "\nexit code: " + exitCode + "\n--- stdout ---\n" + stdout
                + "--- stderr ---\n" + stderr + "--------------";
    }
}
