package dev.retryagent.it.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.retryagent.it.apps.BatchApp;
import org.junit.jupiter.api.Tag;

import dev.retryagent.it.apps.LongRunningClientsApp;
import dev.retryagent.it.attach.AttachCommandRun;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.Runs;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import dev.retryagent.it.metrics.MetricsApp;
import dev.retryagent.it.okhttp.ChildLoaderLauncher;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract's applications under a security manager ({@code -Djava.security.manager},
 * docs/reference.md#under-a-security-manager), started with {@code -javaagent} and attached to, on each JDK of the run
 * that still has one: Java 8, 11 and 17 (18 to 23 need it allowed on the command line, 24 and later have none: on
 * Java 25 the JVM refuses {@code -Djava.security.manager} at start-up, with the agent exactly as without it).
 *
 * <p>The applications' own code is held to a restrictive policy written here (loopback connections, reading system
 * properties, what their client libraries need; never AllPermission, and nothing the agent needs). Per JDK:
 * <ul>
 *   <li>the agent jar granted nothing beyond the JDK's default policy: the JVM starts, the agent logs the one permission
 *       it misses and does not start, and each call goes out once, unmarked, as without the agent (503 back to the
 *       application);</li>
 *   <li>the agent jar granted {@code AllPermission}: the agent retries (503 then 200: two requests, marked 1 and 2, 200
 *       to the application), with a policy file and its watcher, through HttpURLConnection and OkHttp, its metrics
 *       reach the application's MBeanServer, and it logs no permission-missing or internal-error line; the same through
 *       {@code java.net.http} sync and async (Java 11 and 17), and through OkHttp in a class loader of the application's
 *       own, where the agent defines its adapter classes (Java 17, where the launcher's class files run);</li>
 *   <li>{@code attach} into such a JVM: without the grant it is refused (exit code 1), the target logs why and goes on
 *       serving calls unretried; with it, calls through HttpURLConnection, OkHttp, HttpClient 5 and HttpClient 4 (sync
 *       and async) are retried.</li>
 * </ul>
 */
@Tag(Jdks.MATRIX)
@Timeout(300)
class SecurityManagerIT {
    private static final String POLICY = "version: 1\n"
            + "defaults:\n"
            + "  maxAttempts: 3\n"
            + "  backoff: { base: 10ms, cap: 50ms }\n";
    private static final String NO_WAIT_POLICY = "version: 1\n"
            + "defaults:\n"
            + "  maxAttempts: 3\n"
            + "  backoff: { base: 0ms, cap: 0ms }\n";
    private static final String START_REFUSED = "retry-agent permission-missing where=start permission=";
    private static final Duration CALL = Duration.ofSeconds(60);

    private final List<AutoCloseable> closer = new ArrayList<>();

    static List<Jdks.Jdk> jdks() {
        return Jdks.of(8, 11, 17);
    }

    static List<Jdks.Jdk> jdksWithJavaNetHttp() {
        return Jdks.of(11, 17);
    }

    /** Where the tests' own classes (Java 17) run: the child loader's launcher is one of them. */
    static List<Jdks.Jdk> jdksForTheTests() {
        return Jdks.of(17);
    }

    /** Java 24 and later: no security manager can be enabled at all. */
    static List<Jdks.Jdk> jdksWithoutASecurityManager() {
        return Jdks.of(25);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closer) {
            c.close();
        }
    }

    @ParameterizedTest(name = "{0}", allowZeroInvocations = true)
    @MethodSource("jdksWithoutASecurityManager")
    void whereTheJdkRefusesASecurityManagerTheAgentChangesNothing(Jdks.Jdk jdk) {
        ForkedApp.Result alone = ForkedApp.of(MetricsApp.class).name("sm-refused-alone-" + jdk).java(jdk.java())
                .jvmArg("-Djava.security.manager").run();
        ForkedApp.Result withAgent = ForkedApp.of(MetricsApp.class).name("sm-refused-agent-" + jdk).java(jdk.java())
                .jvmArg("-Djava.security.manager").withAgent().run();

        assertTrue(alone.exitCode() != 0, alone.describe());
        assertEquals(alone.exitCode(), withAgent.exitCode(), withAgent.describe());
        assertEquals(alone.stderr(), withAgent.stderr(), withAgent.describe());
        assertEquals(alone.stdout(), withAgent.stdout(), withAgent.describe());
    }

    @ParameterizedTest(name = "{0}", allowZeroInvocations = true)
    @MethodSource("jdks")
    void withoutAGrantTheAgentSaysWhatItMissesAndTheCallsGoOutAsWithoutIt(Jdks.Jdk jdk) {
        Map<String, ScriptedServer> servers = flakyServers("okhttp", "jdk");
        ForkedApp.Result run = metricsApp(jdk, "sm-agent-not-granted", false, servers).args("--idle-ms", "0").run();

        run.assertExitCode(0);
        assertEquals(List.of(START_REFUSED + "(\"java.util.PropertyPermission\" \"retry-agent.started\" \"read\")"),
                run.agentLog().stream().map(SecurityManagerIT::upToConsequence).collect(Collectors.toList()),
                run.describe());
        assertFalse(run.stderr().contains("FATAL"), run.describe());
        for (Map.Entry<String, ScriptedServer> server : servers.entrySet()) {
            assertEquals(Arrays.asList((String) null), Runs.markers(server.getValue().requests()), run.describe());
            assertEquals(503, Runs.result(run, server.getKey()).getInt("status"), run.describe());
        }
    }

    @ParameterizedTest(name = "{0}", allowZeroInvocations = true)
    @MethodSource("jdks")
    void withAllPermissionForItsJarTheAgentRetriesAndCounts(Jdks.Jdk jdk) {
        Map<String, ScriptedServer> servers = flakyServers("okhttp", "jdk");
        ForkedApp.Result run = metricsApp(jdk, "sm-agent-granted", true, servers).args("--expect-calls", "2").run();

        assertRetriedOnceEach(run, servers);
        ReportLine total = run.lines("MBEAN").stream()
                .filter(l -> l.get("name").equals("retry-agent:type=total")).findFirst()
                .orElseThrow(() -> new AssertionError("no total MBean\n" + run.describe()));
        assertEquals("2:Long", total.get("calls"), run.describe());
        assertEquals("2:Long", total.get("retries"), run.describe());
    }

    @ParameterizedTest(name = "{0}", allowZeroInvocations = true)
    @MethodSource("jdksWithJavaNetHttp")
    void withAllPermissionForItsJarTheAgentRetriesJavaNetHttp(Jdks.Jdk jdk) {
        Map<String, ScriptedServer> servers = flakyServers("sync", "async");
        // No wait: a retry then mostly starts on the client's own thread, at the end of the attempt before.
        ForkedApp app = ForkedApp.batch("jdk-httpclient").name("sm-jdkhttp-" + jdk).java(jdk.java())
                .policy(NO_WAIT_POLICY).args(callPerMode(servers));
        ForkedApp.Result run = underSecurityManager(app, "sm-jdkhttp-" + jdk, true, appCodeBases(), "").run();

        assertRetriedOnceEach(run, servers);
    }

    /** The agent's adapter classes defined in the application's own class loader (ClassInjector), under its grant. */
    @ParameterizedTest(name = "{0}", allowZeroInvocations = true)
    @MethodSource("jdksForTheTests")
    void withAllPermissionForItsJarAnApplicationInAClassLoaderOfItsOwnIsRetried(Jdks.Jdk jdk) {
        Map<String, ScriptedServer> servers = flakyServers("sync", "async");
        ForkedApp app = ChildLoaderLauncher.app(BatchApp.class, ClientLibs.OKHTTP_5).args("okhttp")
                .name("sm-child-loader-" + jdk).java(jdk.java()).policy(POLICY).args(callPerMode(servers));
        List<Path> codeBases = appCodeBases(ClientLibs.OKHTTP_5.dir(), ForkedApp.testClasses());
        // The launcher makes the application's class loader, of the code bases' jars and directories.
        StringBuilder launcher = new StringBuilder()
                .append("  permission java.lang.RuntimePermission \"createClassLoader\";\n")
                .append("  permission java.lang.RuntimePermission \"getClassLoader\";\n")
                .append("  permission java.lang.RuntimePermission \"setContextClassLoader\";\n");
        for (Path base : codeBases) {
            launcher.append("  permission java.io.FilePermission \"").append(base).append("\", \"read\";\n")
                    .append("  permission java.io.FilePermission \"").append(base.resolve("-")).append("\", \"read\";\n");
        }
        ForkedApp.Result run = underSecurityManager(app, "sm-child-loader-" + jdk, true, codeBases, launcher.toString())
                .run();

        assertEquals("application", run.single("LAUNCHER").get("loader"), run.describe());
        assertRetriedOnceEach(run, servers);
    }

    @ParameterizedTest(name = "{0}", allowZeroInvocations = true)
    @MethodSource("jdks")
    void attachWithoutAGrantIsRefusedAndTheTargetGoesOn(Jdks.Jdk jdk) throws Exception {
        ScriptedServer server = Runs.open(closer, Step.status(503), Step.ok());
        try (ForkedApp.Running target = attachTarget(jdk, "sm-attach-not-granted", false).start()) {
            long pid = awaitReady(target);
            AttachCommandRun attach = attach(jdk, target, pid);
            assertEquals(1, attach.exitCode(), attach.describe());
            assertTrue(attach.stderr().contains("did not start"), attach.describe());
            target.awaitStderrLine(l -> l.startsWith(START_REFUSED), CALL);

            assertEquals(503, call(target, server, "httpurlconnection", "refused"), target.stderrSoFar());
            assertEquals(Arrays.asList((String) null), Runs.markers(server.requests()), target.stderrSoFar());
            target.writeLine("exit");
            ForkedApp.Result result = target.await();
            result.assertExitCode(0);
            assertEquals(1, result.agentLog().size(), result.describe());
        }
    }

    @ParameterizedTest(name = "{0}", allowZeroInvocations = true)
    @MethodSource("jdks")
    void attachWithAllPermissionForTheJarRetries(Jdks.Jdk jdk) throws Exception {
        Map<String, ScriptedServer> servers = flakyServers("httpurlconnection", "okhttp", "okhttp-async", "httpclient5",
                "httpclient5-async", "httpclient4", "httpclient4-async");
        try (ForkedApp.Running target = attachTarget(jdk, "sm-attach-granted", true).start()) {
            long pid = awaitReady(target);
            AttachCommandRun attach = attach(jdk, target, pid);
            assertEquals(0, attach.exitCode(), attach.describe());
            target.awaitStderrLine(l -> l.startsWith("retry-agent started") && l.contains("attached=true"), CALL);

            for (Map.Entry<String, ScriptedServer> client : servers.entrySet()) {
                assertEquals(200, call(target, client.getValue(), client.getKey(), "attached"), target.stderrSoFar());
                assertEquals(List.of("1", "2"), Runs.markers(client.getValue().requests()),
                        client.getKey() + "\n" + target.stderrSoFar());
            }
            target.writeLine("exit");
            ForkedApp.Result result = target.await();
            result.assertExitCode(0);
            assertClean(result.stderr(), result.describe());
        }
    }

    // ---- the applications and their policy ----

    /** Servers that answer 503, then 200, by call id. */
    private Map<String, ScriptedServer> flakyServers(String... ids) {
        Map<String, ScriptedServer> servers = new LinkedHashMap<>();
        for (String id : ids) {
            servers.put(id, Runs.open(closer, Step.status(503), Step.ok()));
        }
        return servers;
    }

    /** A batch application's {@code --call} for each server, its id the call's {@code mode}. */
    private static List<String> callPerMode(Map<String, ScriptedServer> servers) {
        List<String> args = new ArrayList<>();
        servers.forEach((mode, server) -> args.addAll(List.of("--call",
                "id=" + mode + ";mode=" + mode + ";url=" + server.url("/" + mode))));
        return args;
    }

    /**
     * MetricsApp calling the servers {@code okhttp} with OkHttp and {@code jdk} with HttpURLConnection, under a security
     * manager.
     */
    private static ForkedApp metricsApp(Jdks.Jdk jdk, String name, boolean grantAgent,
            Map<String, ScriptedServer> servers) {
        ForkedApp app = ForkedApp.of(MetricsApp.class).name(name + "-" + jdk).java(jdk.java())
                .clientLibs(ClientLibs.OKHTTP_5).classpath(ForkedApp.testClasses()).policy(POLICY);
        servers.forEach((client, server) -> app.args("--call",
                "id=" + client + ";client=" + client + ";url=" + server.url("/" + client)));
        return underSecurityManager(app, name + "-" + jdk, grantAgent,
                appCodeBases(ClientLibs.OKHTTP_5.dir(), ForkedApp.testClasses()), "");
    }

    /** LongRunningClientsApp (OkHttp, HttpClient 5 and HttpURLConnection) for attach, under a security manager. */
    private static ForkedApp attachTarget(Jdks.Jdk jdk, String name, boolean grantAgent) {
        ForkedApp app = ForkedApp.of(LongRunningClientsApp.class).name(name + "-" + jdk).java(jdk.java())
                .clientLibs(ClientLibs.OKHTTP_5).timeout(Duration.ofSeconds(120));
        ClientLibs.HTTPCLIENT5_NEWEST.jars().forEach(app::classpath);
        ClientLibs.HTTPCLIENT4_NEWEST.jars().forEach(app::classpath);
        return underSecurityManager(app, name + "-" + jdk, grantAgent, appCodeBases(ClientLibs.OKHTTP_5.dir(),
                ClientLibs.HTTPCLIENT5_NEWEST.dir(), ClientLibs.HTTPCLIENT4_NEWEST.dir()), "");
    }

    private static List<Path> appCodeBases(Path... more) {
        List<Path> bases = new ArrayList<>();
        bases.add(ForkedApp.appClasses());
        bases.addAll(Arrays.asList(more));
        return bases;
    }

    /**
     * {@code -Djava.security.manager} with the JDK's default policy and, added to it, a file granting each of
     * {@code appCodeBases} what the applications need (never AllPermission) and {@code morePermissions}, and the agent
     * jar AllPermission if {@code grantAgent}.
     */
    private static ForkedApp underSecurityManager(ForkedApp app, String name, boolean grantAgent, List<Path> appCodeBases,
            String morePermissions) {
        StringBuilder policy = new StringBuilder();
        if (grantAgent) {
            policy.append("grant codeBase \"").append(codeBase(ForkedApp.agentJarPath(), false)).append("\" {\n")
                    .append("  permission java.security.AllPermission;\n};\n");
        }
        for (Path base : appCodeBases) {
            policy.append("grant codeBase \"").append(codeBase(base, true)).append("\" {\n")
                    .append(APPLICATION_PERMISSIONS).append(morePermissions).append("};\n");
        }
        Path file = ForkedApp.workRoot().resolve("security").resolve(name + ".policy");
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, policy.toString(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // One '=': the file adds to the JDK's default policy, as an operator's usually does.
        return app.sysProp("java.security.manager", "").sysProp("java.security.policy", file.toString());
    }

    /** What the applications and their clients need: loopback calls, properties to read, their own threads. */
    private static final String APPLICATION_PERMISSIONS = ""
            + "  permission java.net.SocketPermission \"127.0.0.1:1024-\", \"connect,resolve,accept\";\n"
            + "  permission java.net.SocketPermission \"localhost:1024-\", \"connect,resolve,accept\";\n"
            + "  permission java.util.PropertyPermission \"*\", \"read\";\n"
            + "  permission java.lang.RuntimePermission \"modifyThread\";\n"
            + "  permission java.lang.RuntimePermission \"exitVM\";\n"
            + "  permission java.lang.management.ManagementPermission \"monitor\";\n"
            + "  permission javax.management.MBeanServerPermission \"createMBeanServer\";\n"
            + "  permission javax.management.MBeanPermission \"*\", \"queryNames,getAttribute,getMBeanInfo\";\n"
            + "  permission java.net.NetPermission \"getProxySelector\";\n"
            + "  permission java.net.URLPermission \"http://127.0.0.1:*/-\", \"*:*\";\n"
            + "  permission jdk.net.NetworkPermission \"setOption.*\";\n";

    /** A policy file's code base URL for a jar or a directory of class files or jars (with everything under it). */
    private static String codeBase(Path path, boolean everythingUnder) {
        String url = path.toAbsolutePath().normalize().toUri().toString();
        if (!everythingUnder) {
            return url;
        }
        return (url.endsWith("/") ? url : url + "/") + "-";
    }

    // ---- driving the running application ----

    private static long awaitReady(ForkedApp.Running target) {
        long pid = Long.parseLong(ReportLine.parse(target.awaitStdoutLine(l -> l.startsWith("READY "), CALL)).get("pid"));
        assertEquals(target.pid(), pid);
        return pid;
    }

    private static AttachCommandRun attach(Jdks.Jdk jdk, ForkedApp.Running target, long pid) throws IOException {
        Path operatorDir = target.runDir().resolve("operator");
        Files.createDirectories(operatorDir);
        Files.writeString(operatorDir.resolve("policy.yaml"), POLICY, StandardCharsets.UTF_8);
        return AttachCommandRun.run(jdk, operatorDir, List.of(), Long.toString(pid), "policy=policy.yaml");
    }

    /** One call through {@code client}; its status, failing on a failure. */
    private static int call(ForkedApp.Running target, ScriptedServer server, String client, String phase) {
        String id = client + "-" + phase;
        target.writeLine("call " + id + " " + client + " " + server.url("/" + id));
        ReportLine result = ReportLine.parse(target.awaitStdoutLine(l -> l.startsWith("RESULT id=" + id + " "), CALL));
        assertTrue(result.has("status"), result + "\n" + target.stderrSoFar());
        return result.getInt("status");
    }

    /** The run ended well, each call was retried once by the agent (2 requests, marked) and got 200, nothing logged amiss. */
    private static void assertRetriedOnceEach(ForkedApp.Result run, Map<String, ScriptedServer> servers) {
        run.assertExitCode(0);
        assertClean(run.stderr(), run.describe());
        for (Map.Entry<String, ScriptedServer> server : servers.entrySet()) {
            assertEquals(List.of("1", "2"), Runs.markers(server.getValue().requests()), server.getKey() + "\n" + run.describe());
            assertEquals(200, Runs.result(run, server.getKey()).getInt("status"), server.getKey() + "\n" + run.describe());
        }
    }

    private static void assertClean(String stderr, String describe) {
        for (String bad : List.of("permission-missing", "internal-error", "start-failed", "AccessControlException",
                "FATAL")) {
            assertFalse(stderr.contains(bad), bad + "\n" + describe);
        }
    }

    /** An agent line up to its {@code ;}, where the consequence begins. */
    private static String upToConsequence(String line) {
        int semicolon = line.indexOf(';');
        return semicolon < 0 ? line : line.substring(0, semicolon);
    }
}
