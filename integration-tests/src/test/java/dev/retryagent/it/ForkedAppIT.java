package dev.retryagent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.apps.HttpUrlConnectionScenario;
import dev.retryagent.it.apps.OkHttpScenario;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The forked-JVM runner itself: command line, output parsing, timeouts, client library sets. */
@Timeout(120)
class ForkedAppIT {

    @Test
    void clientLibrarySetsArePrepared() {
        for (ClientLibs libs : ClientLibs.values()) {
            if (libs == ClientLibs.NONE) {
                continue;
            }
            List<Path> jars = libs.jars();
            assertFalse(libs.version() == null || libs.version().isBlank(), libs + " has no version property");
            String names = jars.toString();
            assertTrue(names.contains(libs.version() + ".jar"), libs + " lacks its client jar: " + names);
        }
        String okhttp4 = ClientLibs.OKHTTP_4.jars().toString();
        assertTrue(okhttp4.contains("okio-jvm-") && okhttp4.contains("kotlin-stdlib-"), okhttp4);
        String okhttp5 = ClientLibs.OKHTTP_5.jars().toString();
        assertTrue(okhttp5.contains("okhttp-jvm-") && okhttp5.contains("okio-jvm-")
                && okhttp5.contains("kotlin-stdlib-"), okhttp5);
        for (ClientLibs libs : List.of(ClientLibs.HTTPCLIENT5_OLDEST, ClientLibs.HTTPCLIENT5_NEWEST)) {
            String hc = libs.jars().toString();
            assertTrue(hc.contains("httpcore5-") && hc.contains("httpcore5-h2-") && hc.contains("slf4j-api-")
                    && hc.contains("httpclient5-fluent-"), hc);
        }
    }

    @Test
    void agentArgumentsPolicyFileAndPropertiesBecomeTheCommandLine(@TempDir Path tmp) throws IOException {
        Path fakeJar = Files.createFile(tmp.resolve("agent.jar"));
        List<String> command = ForkedApp.of(OkHttpScenario.class).clientLibs(ClientLibs.OKHTTP_4)
                .agentJar(fakeJar).policy("version: 1\n").agentArg("log", "debug").sysProp("k", "v")
                .args("--url", "http://127.0.0.1:1/").commandLine();

        String agent = command.stream().filter(a -> a.startsWith("-javaagent:")).findFirst().orElseThrow();
        assertTrue(agent.startsWith("-javaagent:" + fakeJar + "=policy="), agent);
        assertTrue(agent.endsWith("policy.yaml,log=debug"), agent);
        Path policy = Path.of(agent.substring(agent.indexOf("policy=") + 7, agent.indexOf(",log=")));
        assertEquals("version: 1\n", Files.readString(policy));
        assertTrue(command.contains("-Dk=v"), command.toString());
        int cp = command.indexOf("-cp");
        assertTrue(command.get(cp + 1).startsWith(ForkedApp.appClasses().toString()), command.toString());
        assertTrue(command.get(cp + 1).contains("okhttp-4.12.0.jar"), command.toString());
        assertEquals(OkHttpScenario.class.getName(), command.get(cp + 2));
        assertTrue(command.indexOf(agent) < cp, "JVM options come before the class path");

        List<String> raw = ForkedApp.of(OkHttpScenario.class).agentJar(fakeJar).withAgent("mode=observe")
                .commandLine();
        assertTrue(raw.contains("-javaagent:" + fakeJar + "=mode=observe"), raw.toString());
        List<String> none = ForkedApp.of(OkHttpScenario.class).commandLine();
        assertTrue(none.stream().noneMatch(a -> a.startsWith("-javaagent")), none.toString());
    }

    @Test
    void anExecutableJarRunsWithMinusJarAndNoClassPath(@TempDir Path tmp) throws IOException {
        Path fakeAgent = Files.createFile(tmp.resolve("agent.jar"));
        Path app = tmp.resolve("app.jar");
        List<String> command = ForkedApp.ofJar(app).agentJar(fakeAgent).policy("version: 1\n").sysProp("k", "v")
                .args("okhttp", "--call", "x").commandLine();
        int jar = command.indexOf("-jar");
        assertEquals(app.toString(), command.get(jar + 1), command.toString());
        assertEquals(List.of("okhttp", "--call", "x"), command.subList(jar + 2, command.size()));
        assertTrue(command.indexOf("-Dk=v") < jar && command.stream().anyMatch(a -> a.startsWith("-javaagent:")));
        assertFalse(command.contains("-cp"), command.toString());
        assertThrows(IllegalStateException.class,
                () -> ForkedApp.ofJar(app).clientLibs(ClientLibs.OKHTTP_4).commandLine());
    }

    @Test
    void aMissingAgentJarFailsClearly(@TempDir Path tmp) {
        AssertionError e = assertThrows(AssertionError.class, () -> ForkedApp.of(OkHttpScenario.class)
                .agentJar(tmp.resolve("missing.jar")).withAgent().commandLine());
        assertTrue(e.getMessage().contains("agent jar not found"), e.getMessage());
    }

    @Test
    void usageErrorsExitWith2AndExplainOnStderr() {
        ForkedApp.Result run = ForkedApp.of(HttpUrlConnectionScenario.class)
                .args("--url", "http://127.0.0.1:1/", "--no-such-option", "x").run();
        run.assertExitCode(2);
        assertTrue(run.stderr().contains("unknown option --no-such-option"), run.describe());
        assertTrue(run.results().isEmpty());
    }

    @Test
    void aHangingApplicationIsKilledAtTheTimeout() {
        try (ScriptedServer server = ScriptedServer.start(Step.ok().delay(Duration.ofSeconds(60)))) {
            long start = System.nanoTime();
            AssertionError e = assertThrows(AssertionError.class, () -> ForkedApp.of(HttpUrlConnectionScenario.class)
                    .args("--url", server.url("/hang")).timeout(Duration.ofSeconds(3)).run());
            long tookMs = Duration.ofNanos(System.nanoTime() - start).toMillis();
            assertTrue(e.getMessage().contains("did not finish within 3000 ms"), e.getMessage());
            assertTrue(e.getMessage().contains("APP client=httpurlconnection"), "output so far is shown");
            assertTrue(tookMs < 20_000, "took " + tookMs + " ms");
        }
    }

    @Test
    void startedApplicationsCanBeWatchedWhileTheyRun() {
        try (ScriptedServer server = ScriptedServer.start(Step.ok().body("one"), Step.ok().delayMillis(300).body("two"));
                ForkedApp.Running running = ForkedApp.of(HttpUrlConnectionScenario.class)
                        .args("--url", server.url("/w"), "--repeat", "2").start()) {
            String first = running.awaitStdoutLine(l -> l.startsWith("RESULT seq=1"), Duration.ofSeconds(30));
            assertEquals("one", ReportLine.parse(first).get("body"));
            assertTrue(running.pid() > 0);
            ForkedApp.Result result = running.await();
            result.assertExitCode(0);
            assertEquals("two", result.results().get(1).get("body"));
            assertTrue(Files.exists(result.runDir().resolve("stdout.txt")));
        }
    }

    @Test
    void reportValuesRoundTripThroughTheEncoding() {
        String tricky = "a b=c%d\té☃";
        try (ScriptedServer server = ScriptedServer.start(Step.ok().body(tricky))) {
            ReportLine result = ForkedApp.of(HttpUrlConnectionScenario.class).args("--url", server.url("/enc"))
                    .run().assertExitCode(0).result();
            assertEquals(tricky, result.get("body"));
        }
    }
}
