package dev.retryagent.it.attach;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import org.junit.jupiter.api.Tag;

import dev.retryagent.it.apps.LongRunningClientsApp;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.Runs;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code attach PID [ARGS]} (docs/operations.md) against a forked JVM that runs without the agent: its clients are
 * built and used before the attach, and the same objects are used afterwards. Prints one {@code ATTACH ...} line per
 * client and phase: the requests the server saw for one call and their markers.
 */
@Tag(Jdks.MATRIX)
class AttachIT {
    private static final List<String> CLIENTS =
            List.of("okhttp", "okhttp-async", "httpclient5", "httpclient5-async", "httpclient4", "httpclient4-async",
                    "httpurlconnection");
    private static final String POLICY = "version: 1\n"
            + "defaults:\n"
            + "  maxAttempts: 3\n"
            + "  backoff: { base: 10ms, cap: 50ms }\n";
    private static final Duration CALL = Duration.ofSeconds(60);

    /** Both library sets on the test JDK, the newest on Java 8, 11 and 25 as well. */
    static Stream<Arguments> targets() {
        Jdks.Jdk own = Jdks.testJdk();
        return Stream.concat(Stream.of(Arguments.of(ClientLibs.OKHTTP_5, ClientLibs.HTTPCLIENT5_NEWEST, own),
                        Arguments.of(ClientLibs.OKHTTP_4, ClientLibs.HTTPCLIENT5_OLDEST, own)),
                Jdks.besides(Jdks.ALL).stream()
                        .map(jdk -> Arguments.of(ClientLibs.OKHTTP_5, ClientLibs.HTTPCLIENT5_NEWEST, jdk)));
    }

    @ParameterizedTest(name = "{0} + {1} {2}")
    @MethodSource("targets")
    void callsThroughClientsBuiltBeforeTheAttachAreRetriedAfterItAndOnlyOnce(ClientLibs okHttp, ClientLibs httpClient5,
            Jdks.Jdk jdk) throws Exception {
        Map<String, ScriptedServer> servers = new LinkedHashMap<>();
        List<AutoCloseable> closer = new ArrayList<>();
        ForkedApp app = ForkedApp.of(LongRunningClientsApp.class)
                .name("attach-target-" + okHttp + "-" + httpClient5 + "-" + jdk).java(jdk.java())
                .clientLibs(okHttp).timeout(Duration.ofSeconds(120));
        httpClient5.jars().forEach(app::classpath);
        (httpClient5 == ClientLibs.HTTPCLIENT5_NEWEST ? ClientLibs.HTTPCLIENT4_NEWEST : ClientLibs.HTTPCLIENT4_OLDEST)
                .jars().forEach(app::classpath);
        try (ForkedApp.Running target = app.start()) {
            for (String client : CLIENTS) {
                servers.put(client, Runs.open(closer, Step.status(503), Step.ok()));
            }
            long pid = Long.parseLong(ReportLine.parse(target.awaitStdoutLine(l -> l.startsWith("READY "), CALL)).get("pid"));
            assertEquals(target.pid(), pid);

            // 1. Without the agent: each client's own behaviour, no marker anywhere.
            for (String client : CLIENTS) {
                List<RecordedRequest> seen = call(target, servers.get(client), client, "before");
                report("before", client, seen);
                assertEquals(List.of(), Runs.markers(seen).stream().filter(m -> m != null).toList(), client);
                // HttpClient 5's default client resends a 503 once by itself (DefaultHttpRequestRetryStrategy).
                assertEquals(client.startsWith("httpclient5") ? 2 : 1, seen.size(), client);
            }

            // 2. Attach, with a policy path relative to the command's working directory (not the target's).
            Path operatorDir = target.runDir().resolve("operator");
            Files.createDirectories(operatorDir.resolve("conf"));
            Files.writeString(operatorDir.resolve("conf/policy.yaml"), POLICY, StandardCharsets.UTF_8);
            AttachCommandRun attach = AttachCommandRun.run(jdk, operatorDir, List.of(), Long.toString(pid),
                    "policy=conf/policy.yaml");
            assertEquals(0, attach.exitCode(), attach.describe());
            assertEquals(1, attach.lines().size(), attach.describe());
            assertTrue(attach.stdout().contains("attached to JVM " + pid), attach.describe());
            assertTrue(attach.stdout().contains(operatorDir.resolve("conf/policy.yaml").toString()), attach.describe());
            target.awaitStderrLine(l -> l.startsWith("retry-agent started") && l.contains("attached=true"), CALL);

            // 3. The same client objects: retried by the agent, with the marker; 503 then 200.
            for (String client : CLIENTS) {
                servers.get(client).script(Step.status(503), Step.ok());
                List<RecordedRequest> seen = call(target, servers.get(client), client, "attached");
                report("attached", client, seen);
                assertEquals(List.of("1", "2"), Runs.markers(seen), client + " " + target.stderrSoFar());
            }

            // 4. A second attach says so and changes nothing.
            AttachCommandRun again = AttachCommandRun.run(jdk, operatorDir, List.of(), Long.toString(pid),
                    "policy=conf/policy.yaml,mode=observe");
            assertEquals(3, again.exitCode(), again.describe());
            assertEquals(1, again.lines().size(), again.describe());
            assertTrue(again.stderr().contains("runs the agent already") && again.stderr().contains("nothing changed"),
                    again.describe());
            assertNoStackTrace(again);

            // 5. Always 503, maxAttempts 3: 3 requests per call, not 6 (the client's own resend) nor 9 (two agents).
            for (String client : CLIENTS) {
                servers.get(client).script(Step.status(503));
                List<RecordedRequest> seen = call(target, servers.get(client), client, "always-503");
                report("always-503", client, seen);
                assertEquals(List.of("1", "2", "3"), Runs.markers(seen), client + " " + target.stderrSoFar());
            }
            target.writeLine("exit");
            ForkedApp.Result result = target.await();
            result.assertExitCode(0);
            assertEquals(1, result.stderrLines().stream().filter(l -> l.contains("retry-agent started")).count(),
                    result.describe());
            assertFalse(result.stderr().contains("internal-error"), result.describe());
        } finally {
            for (AutoCloseable c : closer) {
                c.close();
            }
        }
    }

    @Test
    void aBadPidMissingArgumentsAndAJvmThatRefusesAttachAreOneLineAndNonZero() throws Exception {
        Path dir = ForkedApp.workRoot().resolve("attach-errors");
        assertError(AttachCommandRun.run(dir), 64, "attach needs the process id");
        assertError(AttachCommandRun.run(dir, "not-a-pid"), 64, "is not a process id");
        assertError(AttachCommandRun.run(dir, "2147483000"), 1, "no process with id 2147483000");
        assertError(AttachCommandRun.run(dir, "1", "policy=absent.yaml"), 2, "nothing attached");

        // A Java runtime without the attach API (a JRE): here a JDK limited to the modules a JRE image may hold.
        assertError(AttachCommandRun.run(dir, List.of("--limit-modules", "java.base,java.logging,java.instrument"),
                Long.toString(ProcessHandle.current().pid())), 1, "has no attach API");

        // A process that is not a JVM: refused before the attach API would send it SIGQUIT (which ends it).
        Process sleeper = new ProcessBuilder("sleep", "60").start();
        try {
            assertError(AttachCommandRun.run(dir, Long.toString(sleeper.pid())), 1, "is not a Java VM");
            assertTrue(sleeper.isAlive());
        } finally {
            sleeper.destroyForcibly();
        }

        ForkedApp app = ForkedApp.of(LongRunningClientsApp.class).name("attach-refused")
                .clientLibs(ClientLibs.OKHTTP_5).jvmArg("-XX:+DisableAttachMechanism");
        ClientLibs.HTTPCLIENT5_NEWEST.jars().forEach(app::classpath);
        try (ForkedApp.Running refusing = app.start()) {
            refusing.awaitStdoutLine(l -> l.startsWith("READY "), CALL);
            assertError(AttachCommandRun.run(dir, Long.toString(refusing.pid())), 1, "does not support the attach mechanism");
            assertTrue(refusing.isAlive());
        }
    }

    @Test
    void aJvmStartedWithTheAgentIsLeftAsItIs() {
        ForkedApp app = ForkedApp.of(LongRunningClientsApp.class).name("attach-premain").clientLibs(ClientLibs.OKHTTP_5)
                .agentArg("log", "warn");
        ClientLibs.HTTPCLIENT5_NEWEST.jars().forEach(app::classpath);
        try (ForkedApp.Running target = app.start()) {
            target.awaitStdoutLine(l -> l.startsWith("READY "), CALL);
            AttachCommandRun again = AttachCommandRun.run(target.runDir(), Long.toString(target.pid()), "mode=off");
            assertEquals(3, again.exitCode(), again.describe());
            assertEquals(1, again.lines().size(), again.describe());
            assertTrue(again.stderr().contains("retry-agent.started=premain") && again.stderr().contains("nothing changed")
                    && again.stderr().contains("not applied"), again.describe());
            assertNoStackTrace(again);
            System.out.println("ATTACH-ERROR exit=" + again.exitCode() + " line=" + again.lines().get(0));
        }
    }

    private static void assertError(AttachCommandRun run, int exitCode, String text) {
        assertEquals(exitCode, run.exitCode(), run.describe());
        assertEquals("", run.stdout(), run.describe());
        List<String> lines = run.lines();
        assertEquals(exitCode == 2 ? 2 : 1, lines.size(), run.describe()); // invalid policy: the error, then the summary
        assertTrue(run.stderr().contains(text), run.describe());
        assertNoStackTrace(run);
        System.out.println("ATTACH-ERROR exit=" + run.exitCode() + " line=" + lines.get(lines.size() - 1));
    }

    private static void assertNoStackTrace(AttachCommandRun run) {
        String output = run.stdout() + run.stderr();
        assertFalse(output.contains("Exception") || output.contains("\tat "), run.describe());
    }

    /** One call through {@code client}; the requests the server saw for it. */
    private static List<RecordedRequest> call(ForkedApp.Running target, ScriptedServer server, String client, String phase) {
        int before = server.requestCount();
        String id = client + "-" + phase;
        target.writeLine("call " + id + " " + client + " " + server.url("/" + id));
        ReportLine result = ReportLine.parse(target.awaitStdoutLine(l -> l.startsWith("RESULT id=" + id + " "), CALL));
        assertTrue(result.has("status"), result.toString());
        List<RecordedRequest> all = server.requests();
        return List.copyOf(all.subList(before, all.size()));
    }

    private static void report(String phase, String client, List<RecordedRequest> seen) {
        System.out.println("ATTACH phase=" + phase + " client=" + client + " requests=" + seen.size()
                + " markers=" + Runs.markers(seen));
    }
}
