package dev.retryagent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import org.junit.jupiter.api.Tag;

import dev.retryagent.it.apps.OutageApp;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/reference.md#what-it-reports, logs at fleet volume, in a forked JVM with the built agent: a burst of calls to
 * one loopback destination that always answers 503. At {@code info} the first event of each kind is a line and the
 * window's summary follows when its 10 s are over, with no further call; at {@code debug} every event is a line.
 */
@Tag(Jdks.MATRIX)
class LogVolumeIT {
    /** 3 attempts and 10 retries per 10 s: of 20 calls, 5 retry twice and 15 are refused by the budget. */
    private static final String POLICY = """
            version: 1
            defaults:
              maxAttempts: 3
              backoff: { base: 1ms, cap: 1ms, jitter: none }
              budget: { ratio: 0, minPerSecond: 1 }
            """;

    private static ForkedApp app(String log) {
        return app(log, Jdks.testJdk());
    }

    private static ForkedApp app(String log, Jdks.Jdk jdk) {
        return ForkedApp.of(OutageApp.class).name("log-volume-" + log + "-" + jdk).java(jdk.java()).policy(POLICY)
                .agentArg("log", log).timeout(Duration.ofSeconds(90));
    }

    /** The summary at exit and the debug lines on every JDK; the 10 s window on the test JDK. */
    static List<Jdks.Jdk> jdks() {
        return Jdks.of(Jdks.ALL);
    }

    private static List<String> events(List<String> agentLog) {
        return agentLog.stream()
                .filter(l -> l.startsWith("retry-agent retry ") || l.startsWith("retry-agent give up ")
                        || l.startsWith("retry-agent would retry ") || l.startsWith("retry-agent summary "))
                .collect(Collectors.toList());
    }

    @Test
    void atInfoOneLinePerKindThenTheSummaryAtTheWindowsEnd() {
        try (ScriptedServer server = ScriptedServer.start(Step.status(503))) {
            ForkedApp.Result run;
            String summary;
            try (ForkedApp.Running app = app("info").args("--url", server.url("/items"), "--calls", "20", "--await-line")
                    .start()) {
                app.awaitStdoutLine(l -> l.startsWith("CALLS-DONE"), Duration.ofSeconds(60));
                // No call is made any more: the summary must come from the window's end alone.
                summary = app.awaitStderrLine(l -> l.startsWith("retry-agent summary "), Duration.ofSeconds(30));
                app.writeLine("end");
                run = app.await();
            }
            run.assertExitCode(0);
            assertEquals(30, server.requestCount(), "20 first attempts and 10 retries\n" + run.describe());
            assertTrue(run.stdout().contains("CALLS-DONE calls=20 ok=0 failed=20"), run.describe());

            int port = server.port();
            assertEquals("retry-agent summary host=127.0.0.1 port=" + port + " scheme=http calls=20 retries=10"
                    + " would-retry=0 give-ups=20 budget-refused=15 give-up-reasons=attempts:5,budget:15 window=10s",
                    summary, run.describe());
            List<String> events = events(run.agentLog());
            assertEquals(4, events.size(), "one line per kind, then the summary\n" + run.describe());
            assertEquals("retry-agent retry client=httpurlconnection method=GET host=127.0.0.1 path=/items attempt=2/3"
                    + " cause=status:503 wait=1ms", events.get(0));
            assertEquals("retry-agent give up client=httpurlconnection method=GET host=127.0.0.1 path=/items"
                    + " attempt=3/3 cause=status:503 reason=attempts", events.get(1));
            assertEquals("retry-agent give up client=httpurlconnection method=GET host=127.0.0.1 path=/items"
                    + " attempt=1/3 cause=status:503 reason=budget", events.get(2));
            assertEquals(summary, events.get(3));
            assertFalse(run.stderr().contains("internal-error"), run.describe());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aJvmThatExitsBeforeTheWindowsEndWritesItsSummaryAtExit(Jdks.Jdk jdk) {
        try (ScriptedServer server = ScriptedServer.start(Step.status(503))) {
            ForkedApp.Result run = app("info", jdk).args("--url", server.url("/items"), "--calls", "20").run()
                    .assertExitCode(0);
            List<String> events = events(run.agentLog());
            assertEquals(4, events.size(), run.describe());
            assertTrue(events.get(3).startsWith("retry-agent summary host=127.0.0.1 port=" + server.port()
                    + " scheme=http calls=20 retries=10 would-retry=0 give-ups=20 budget-refused=15"
                    + " give-up-reasons=attempts:5,budget:15 window="), run.describe());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void atDebugEveryEventIsALine(Jdks.Jdk jdk) {
        try (ScriptedServer server = ScriptedServer.start(Step.status(503))) {
            ForkedApp.Result run = app("debug", jdk).args("--url", server.url("/items"), "--calls", "20").run()
                    .assertExitCode(0);
            assertEquals(30, server.requestCount(), run.describe());
            List<String> events = events(run.agentLog());
            assertEquals(10, events.stream().filter(l -> l.startsWith("retry-agent retry ")).count(), run.describe());
            assertEquals(5, events.stream().filter(l -> l.endsWith(" reason=attempts")).count(), run.describe());
            assertEquals(15, events.stream().filter(l -> l.endsWith(" reason=budget")).count(), run.describe());
            assertEquals(30, events.size(), "nothing else, no summary\n" + run.describe());
        }
    }
}
