package dev.retryagent.it.harness;

import dev.retryagent.it.apps.BatchApp;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A scenario application run in its own JVM, the way an operator runs a service: {@code java
 * [-javaagent:retry-agent.jar=ARGS] [-Dk=v] -cp APP:CLIENT-LIBS MAIN ARGS}, or {@code ... -jar APP.jar ARGS}
 * ({@link #ofJar}).
 *
 * <pre>{@code
 * ForkedApp.Result r = ForkedApp.of(OkHttpScenario.class)
 *         .clientLibs(ClientLibs.OKHTTP_5)
 *         .policy("version: 1\ndefaults:\n  maxAttempts: 3\n")   // written to a file, passed as policy=FILE
 *         .agentArg("log", "debug")                              // implies the agent
 *         .args("--url", server.url("/items"))
 *         .run();
 * r.assertExitCode(0);
 * ReportLine result = r.result();   // the single RESULT line
 * }</pre>
 *
 * <p>The JVM is the one running the tests, or the {@code java} named by system property
 * {@code retry.agent.it.java}, or by {@link #java(Path)}. Each run gets a directory under {@link #workRoot()}
 * holding the policy file and, afterwards, {@code command.txt}, {@code stdout.txt} and {@code stderr.txt}.
 */
public final class ForkedApp {

    /** The tag of the lines the scenario applications print for each call. */
    public static final String RESULT = "RESULT";

    private static final AtomicInteger RUNS = new AtomicInteger();
    private static final List<String> DEFAULT_JVM_ARGS =
            List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx128m");
    private static final List<String> SCRUBBED_ENV =
            List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "CLASSPATH");

    private final String mainClass;
    private final Path executableJar;
    private final List<String> args = new ArrayList<>();
    private final List<String> jvmArgs = new ArrayList<>(DEFAULT_JVM_ARGS);
    private final Map<String, String> sysProps = new LinkedHashMap<>();
    private final Map<String, String> env = new LinkedHashMap<>();
    private final List<Path> extraClasspath = new ArrayList<>();
    private final Map<String, String> agentArgs = new LinkedHashMap<>();
    private ClientLibs clientLibs = ClientLibs.NONE;
    private boolean agent;
    private String rawAgentArgs;
    private Path agentJar;
    private String policyYaml;
    private Path java;
    private Duration timeout = Duration.ofSeconds(60);
    private String name;

    private ForkedApp(String mainClass, Path executableJar) {
        this.mainClass = mainClass;
        this.executableJar = executableJar;
        this.name = mainClass != null ? mainClass.substring(mainClass.lastIndexOf('.') + 1)
                : executableJar.getFileName().toString().replaceFirst("\\.jar$", "");
    }

    public static ForkedApp of(Class<?> mainClass) {
        return new ForkedApp(mainClass.getName(), null);
    }

    public static ForkedApp of(String mainClass) {
        return new ForkedApp(mainClass, null);
    }

    /** The batch application of {@code client} ({@link BatchApp}); arguments added go after the client's name. */
    public static ForkedApp batch(String client) {
        return of(BatchApp.class).args(client);
    }

    /**
     * An executable jar, run with {@code java -jar JAR}: the jar's manifest names the main class and its class
     * path; the scenario applications' classes and client libraries are not added.
     */
    public static ForkedApp ofJar(Path jar) {
        return new ForkedApp(null, jar);
    }

    // ---- locations ----

    /** The agent jar under test: system property {@code retry.agent.it.jar}. */
    public static Path agentJarPath() {
        String configured = System.getProperty("retry.agent.it.jar");
        return configured != null && !configured.isBlank()
                ? Paths.get(configured)
                : Paths.get("..", "agent", "target", "retry-agent.jar").toAbsolutePath().normalize();
    }

    /** The compiled scenario applications: system property {@code retry.agent.it.apps}. */
    public static Path appClasses() {
        String configured = System.getProperty("retry.agent.it.apps");
        return configured != null && !configured.isBlank()
                ? Paths.get(configured)
                : Paths.get("target", "classes").toAbsolutePath();
    }

    /**
     * The compiled test classes, this module's {@code target/test-classes}: the applications that live beside the
     * tests (and this harness), for a forked JVM's class path.
     */
    public static Path testClasses() {
        try {
            return Paths.get(ForkedApp.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Where runs keep their files: system property {@code retry.agent.it.workdir}. */
    public static Path workRoot() {
        String configured = System.getProperty("retry.agent.it.workdir");
        return configured != null && !configured.isBlank()
                ? Paths.get(configured)
                : Paths.get("target", "it-runs").toAbsolutePath();
    }

    /** The {@code java} for forked applications: {@code retry.agent.it.java}, else the one running the tests. */
    public static Path defaultJava() {
        String configured = System.getProperty("retry.agent.it.java");
        if (configured != null && !configured.isBlank() && !configured.startsWith("${")) {
            return Paths.get(configured);
        }
        Optional<String> self = ProcessHandle.current().info().command();
        return self.map(Paths::get).orElse(Paths.get(System.getProperty("java.home"), "bin", "java"));
    }

    // ---- configuration ----

    /** A name for the run directory (default: the main class's simple name). */
    public ForkedApp name(String runName) {
        this.name = runName.replaceAll("[^A-Za-z0-9._-]", "_");
        return this;
    }

    public ForkedApp args(String... more) {
        args.addAll(Arrays.asList(more));
        return this;
    }

    public ForkedApp args(List<String> more) {
        args.addAll(more);
        return this;
    }

    public ForkedApp clientLibs(ClientLibs libs) {
        this.clientLibs = libs;
        return this;
    }

    public ForkedApp classpath(Path entry) {
        extraClasspath.add(entry);
        return this;
    }

    /** Adds {@code -javaagent:<agent jar>} (with the agent arguments given so far or later). */
    public ForkedApp withAgent() {
        this.agent = true;
        return this;
    }

    /** Adds {@code -javaagent:<agent jar>=<rawArgs>}, the argument string exactly as given. */
    public ForkedApp withAgent(String rawArgs) {
        this.agent = true;
        this.rawAgentArgs = rawArgs;
        return this;
    }

    /** One {@code key=value} agent argument; implies {@link #withAgent()}. */
    public ForkedApp agentArg(String key, String value) {
        this.agent = true;
        agentArgs.put(key, value);
        return this;
    }

    /** Runs with another agent jar than {@link #agentJarPath()}. */
    public ForkedApp agentJar(Path jar) {
        this.agentJar = jar;
        return this;
    }

    /**
     * Writes {@code yaml} to {@code policy.yaml} in the run directory and passes {@code policy=<file>}; implies
     * {@link #withAgent()}.
     */
    public ForkedApp policy(String yaml) {
        this.agent = true;
        this.policyYaml = yaml;
        return this;
    }

    public ForkedApp sysProp(String key, String value) {
        sysProps.put(key, value);
        return this;
    }

    public ForkedApp sysProps(Map<String, String> props) {
        sysProps.putAll(props);
        return this;
    }

    /** An environment variable (the inherited environment is kept, minus JAVA_TOOL_OPTIONS and RETRY_AGENT_*). */
    public ForkedApp env(String key, String value) {
        env.put(key, value);
        return this;
    }

    public ForkedApp jvmArg(String arg) {
        jvmArgs.add(arg);
        return this;
    }

    /** Drops the default start-up tuning flags ({@code -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xmx128m}). */
    public ForkedApp noDefaultJvmArgs() {
        jvmArgs.removeAll(DEFAULT_JVM_ARGS);
        return this;
    }

    /** The {@code java} executable (default {@link #defaultJava()}). */
    public ForkedApp java(Path javaExecutable) {
        this.java = javaExecutable;
        return this;
    }

    /** How long {@link #run()} waits before killing the JVM and failing (default 60 s). */
    public ForkedApp timeout(Duration limit) {
        this.timeout = limit;
        return this;
    }

    // ---- running ----

    /** Runs to completion (bounded by the timeout) and returns what happened. */
    public Result run() {
        try (Running running = start()) {
            return running.await();
        }
    }

    /**
     * The command line a run would use, without starting it (the run directory and policy file are
     * written); for checking how options turn into JVM arguments.
     */
    public List<String> commandLine() {
        return prepare().command;
    }

    /** Starts the JVM and returns at once, for tests that interact with a running application. */
    public Running start() {
        Launch launch = prepare();
        try {
            return new Running(launch.builder.start(), launch.command, launch.runDir, launch.policyFile, timeout);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + launch.command, e);
        }
    }

    private static final class Launch {
        final ProcessBuilder builder;
        final List<String> command;
        final Path runDir;
        final Path policyFile;

        Launch(ProcessBuilder builder, List<String> command, Path runDir, Path policyFile) {
            this.builder = builder;
            this.command = command;
            this.runDir = runDir;
            this.policyFile = policyFile;
        }
    }

    private Launch prepare() {
        Path runDir;
        try {
            Files.createDirectories(workRoot());
            runDir = Files.createTempDirectory(workRoot(), name + "-" + RUNS.incrementAndGet() + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path policyFile = null;
        List<String> command = new ArrayList<>();
        command.add((java != null ? java : defaultJava()).toString());
        command.addAll(jvmArgs);
        if (agent) {
            Path jar = agentJar != null ? agentJar : agentJarPath();
            if (!Files.isRegularFile(jar)) {
                throw new AssertionError("agent jar not found: " + jar
                        + " (mvn package builds agent/target/retry-agent.jar; failsafe passes retry.agent.it.jar)");
            }
            Map<String, String> effective = new LinkedHashMap<>();
            if (policyYaml != null) {
                policyFile = runDir.resolve("policy.yaml");
                try {
                    Files.writeString(policyFile, policyYaml, StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                effective.put("policy", policyFile.toString());
            }
            effective.putAll(agentArgs);
            String joined = rawAgentArgs != null ? rawAgentArgs
                    : effective.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                            .collect(Collectors.joining(","));
            command.add("-javaagent:" + jar + (joined.isEmpty() ? "" : "=" + joined));
        }
        sysProps.forEach((k, v) -> command.add("-D" + k + "=" + v));
        if (executableJar != null) {
            if (clientLibs != ClientLibs.NONE || !extraClasspath.isEmpty()) {
                throw new IllegalStateException("java -jar ignores a class path: " + executableJar);
            }
            command.add("-jar");
            command.add(executableJar.toString());
        } else {
            List<String> cp = new ArrayList<>();
            cp.add(appClasses().toString());
            clientLibs.jars().forEach(j -> cp.add(j.toString()));
            extraClasspath.forEach(p -> cp.add(p.toString()));
            command.add("-cp");
            command.add(String.join(File.pathSeparator, cp));
            command.add(mainClass);
        }
        command.addAll(args);

        ProcessBuilder pb = new ProcessBuilder(command).directory(runDir.toFile());
        Map<String, String> environment = pb.environment();
        environment.keySet().removeIf(k -> k.startsWith("RETRY_AGENT_") || SCRUBBED_ENV.contains(k));
        environment.putAll(env);
        try {
            Files.writeString(runDir.resolve("command.txt"), String.join(" ", command) + "\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Launch(pb, Collections.unmodifiableList(command), runDir, policyFile);
    }

    /** A started application JVM. Closing it kills the JVM if it still runs. */
    public static final class Running implements AutoCloseable {

        private final Process process;
        private final List<String> command;
        private final Path runDir;
        private final Path policyFile;
        private final Duration timeout;
        private final long startNanos = System.nanoTime();
        private final Collector stdout;
        private final Collector stderr;
        private final OutputStream stdin;

        Running(Process process, List<String> command, Path runDir, Path policyFile, Duration timeout) {
            this.process = process;
            this.command = command;
            this.runDir = runDir;
            this.policyFile = policyFile;
            this.timeout = timeout;
            this.stdout = new Collector(process.getInputStream(), "stdout-" + process.pid());
            this.stderr = new Collector(process.getErrorStream(), "stderr-" + process.pid());
            this.stdin = process.getOutputStream();
        }

        public long pid() {
            return process.pid();
        }

        public boolean isAlive() {
            return process.isAlive();
        }

        public Path runDir() {
            return runDir;
        }

        /** The policy file written for this run, or null. Tests may rewrite it (hot reload). */
        public Path policyFile() {
            return policyFile;
        }

        public String stdoutSoFar() {
            return stdout.text();
        }

        public String stderrSoFar() {
            return stderr.text();
        }

        /** Writes a line to the application's stdin. */
        public synchronized void writeLine(String line) {
            try {
                stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                stdin.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Waits for a stdout line matching {@code predicate}; fails on timeout or if the JVM ends first. */
        public String awaitStdoutLine(Predicate<String> predicate, Duration limit) {
            return awaitLine(stdout, "stdout", predicate, limit);
        }

        /** Waits for a stderr line matching {@code predicate}; fails on timeout or if the JVM ends first. */
        public String awaitStderrLine(Predicate<String> predicate, Duration limit) {
            return awaitLine(stderr, "stderr", predicate, limit);
        }

        private String awaitLine(Collector collector, String which, Predicate<String> predicate, Duration limit) {
            long deadline = System.nanoTime() + limit.toNanos();
            int seen = 0;
            while (true) {
                List<String> lines = collector.lines();
                for (; seen < lines.size(); seen++) {
                    if (predicate.test(lines.get(seen))) {
                        return lines.get(seen);
                    }
                }
                boolean ended = !process.isAlive() && collector.finished();
                if (ended) {
                    throw new AssertionError("the application ended before the expected " + which + " line\n"
                            + describe(null));
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("no expected " + which + " line within " + limit.toMillis() + " ms\n"
                            + describe(null));
                }
                collector.awaitMore(seen, Math.min(TimeUnit.NANOSECONDS.toMillis(left) + 1, 200));
            }
        }

        /** Waits for the JVM to end within the run's timeout. */
        public Result await() {
            return await(timeout);
        }

        /** Waits for the JVM to end; on timeout kills it (and its children) and fails with its output. */
        public Result await(Duration limit) {
            try {
                stdin.close();
            } catch (IOException ignored) {
                // the process may be gone already
            }
            boolean ended;
            try {
                ended = process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                kill();
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for the application", e);
            }
            if (!ended) {
                kill();
                stdout.join(5_000);
                stderr.join(5_000);
                save(-1);
                throw new AssertionError("the application did not finish within " + limit.toMillis()
                        + " ms and was killed\n" + describe(null));
            }
            stdout.join(10_000);
            stderr.join(10_000);
            Duration elapsed = Duration.ofNanos(System.nanoTime() - startNanos);
            Result result = new Result(command, process.exitValue(), stdout.text(), stderr.text(), elapsed, runDir);
            save(result.exitCode());
            return result;
        }

        private void kill() {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void save(int exitCode) {
            try {
                Files.writeString(runDir.resolve("stdout.txt"), stdout.text(), StandardCharsets.UTF_8);
                Files.writeString(runDir.resolve("stderr.txt"), stderr.text(), StandardCharsets.UTF_8);
                Files.writeString(runDir.resolve("exit.txt"), exitCode + "\n", StandardCharsets.UTF_8);
            } catch (IOException ignored) {
                // diagnostics only
            }
        }

        private String describe(Integer exitCode) {
            return ForkedApp.describe(command, exitCode, stdout.text(), stderr.text(), runDir);
        }

        @Override
        public void close() {
            if (process.isAlive()) {
                kill();
                save(-1);
            }
        }
    }

    /** What a finished application did. */
    public static final class Result {

        private final List<String> command;
        private final int exitCode;
        private final String stdout;
        private final String stderr;
        private final Duration elapsed;
        private final Path runDir;

        Result(List<String> command, int exitCode, String stdout, String stderr, Duration elapsed, Path runDir) {
            this.command = command;
            this.exitCode = exitCode;
            this.stdout = stdout;
            this.stderr = stderr;
            this.elapsed = elapsed;
            this.runDir = runDir;
        }

        public int exitCode() { return exitCode; }

        public String stdout() { return stdout; }

        public String stderr() { return stderr; }

        public Duration elapsed() { return elapsed; }

        public Path runDir() { return runDir; }

        public List<String> command() { return command; }

        public List<String> stdoutLines() { return splitLines(stdout); }

        public List<String> stderrLines() { return splitLines(stderr); }

        /** stderr lines written by the agent (prefix {@code retry-agent}). */
        public List<String> agentLog() {
            return stderrLines().stream().filter(l -> l.contains("retry-agent")).collect(Collectors.toList());
        }

        /** Every stdout line starting with {@code tag}, parsed. */
        public List<ReportLine> lines(String tag) {
            return stdoutLines().stream().filter(l -> l.equals(tag) || l.startsWith(tag + " "))
                    .map(ReportLine::parse).collect(Collectors.toList());
        }

        /** The one stdout line with {@code tag}; fails (with the whole output) unless there is exactly one. */
        public ReportLine single(String tag) {
            List<ReportLine> found = lines(tag);
            if (found.size() != 1) {
                throw new AssertionError("expected exactly one " + tag + " line, found " + found.size() + "\n"
                        + describe());
            }
            return found.get(0);
        }

        /** All RESULT lines (one per call the application made). */
        public List<ReportLine> results() { return lines(RESULT); }

        /** The single RESULT line. */
        public ReportLine result() { return single(RESULT); }

        /** Fails with the whole output unless the exit code is {@code expected}. */
        public Result assertExitCode(int expected) {
            if (exitCode != expected) {
                throw new AssertionError("expected exit code " + expected + "\n" + describe());
            }
            return this;
        }

        /** The command, exit code, stdout and stderr, for failure messages. */
        public String describe() {
            return ForkedApp.describe(command, exitCode, stdout, stderr, runDir);
        }

        @Override
        public String toString() {
            return describe();
        }
    }

    static String describe(List<String> command, Integer exitCode, String out, String err, Path runDir) {
        return "command: " + String.join(" ", command) + "\n"
                + "run dir: " + runDir + "\n"
                + "exit code: " + (exitCode == null ? "(running or killed)" : exitCode) + "\n"
                + "--- stdout ---\n" + out + (out.endsWith("\n") || out.isEmpty() ? "" : "\n")
                + "--- stderr ---\n" + err + (err.endsWith("\n") || err.isEmpty() ? "" : "\n")
                + "--------------";
    }

    private static List<String> splitLines(String text) {
        if (text.isEmpty()) {
            return Collections.emptyList();
        }
        return Arrays.asList(text.split("\r?\n"));
    }

    /** Drains one output stream of the process on its own thread. */
    private static final class Collector {
        private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        private final Thread thread;
        private volatile boolean finished;

        Collector(InputStream in, String name) {
            thread = new Thread(() -> {
                byte[] chunk = new byte[8192];
                try (InputStream input = in) {
                    int n;
                    while ((n = input.read(chunk)) >= 0) {
                        synchronized (this) {
                            buffer.write(chunk, 0, n);
                            notifyAll();
                        }
                    }
                } catch (IOException ignored) {
                    // the process ended
                } finally {
                    synchronized (this) {
                        finished = true;
                        notifyAll();
                    }
                }
            }, "forked-app-" + name);
            thread.setDaemon(true);
            thread.start();
        }

        synchronized String text() {
            return new String(buffer.toByteArray(), StandardCharsets.UTF_8);
        }

        /** Complete lines only (a line still being written is left out until its newline arrives). */
        synchronized List<String> lines() {
            String text = text();
            int end = finished ? text.length() : text.lastIndexOf('\n') + 1;
            return splitLines(text.substring(0, end));
        }

        boolean finished() {
            return finished;
        }

        synchronized void awaitMore(int seenLines, long millis) {
            if (finished || lines().size() > seenLines) {
                return;
            }
            try {
                wait(Math.max(1, millis));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }

        void join(long millis) {
            try {
                thread.join(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
