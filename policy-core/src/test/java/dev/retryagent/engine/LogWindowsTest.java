package dev.retryagent.engine;

import static dev.retryagent.engine.TestPolicies.CLIENT;
import static dev.retryagent.engine.TestPolicies.defaults;
import static dev.retryagent.engine.TestPolicies.facts;
import static dev.retryagent.engine.TestPolicies.noJitter;
import static dev.retryagent.engine.TestPolicies.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.engine.RetryDecision.Action;
import dev.retryagent.policy.BudgetPolicy;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetrySettings;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The log at fleet volume (docs/reference.md#what-it-reports): {@link LogWindows} with a fake clock, fed the engine's
 * real decisions. */
class LogWindowsTest {
    private static final String A = "a.internal";
    private static final String B = "b.internal";
    private static final Pattern SUMMARY = Pattern.compile("^retry-agent summary host=(\\S+) port=(\\d+) scheme=(\\S+)"
            + " calls=(\\d+) retries=(\\d+) would-retry=(\\d+) give-ups=(\\d+) budget-refused=(\\d+)"
            + "( give-up-reasons=\\S+)? window=10s$");

    private final FakeClock clock = new FakeClock();
    private final Decisions decisions = new Decisions(clock);
    private int firstWindows;
    private final List<String> lines = new ArrayList<>();
    private final Logger logger = capturing(lines);
    private RetryEngine engine = engine(defaults(b -> noJitter(b).maxAttempts(3)));
    private LogWindows windows = windows(engine);

    private RetryEngine engine(RetrySettings defaults) {
        return engine(policy(defaults));
    }

    private RetryEngine engine(Policy policy) {
        return new RetryEngine(policy, clock, new FakeRandom(0.5));
    }

    private LogWindows windows(RetryEngine e) {
        return new LogWindows(e, clock, TimeUnit.SECONDS.toNanos(10), logger, () -> firstWindows++);
    }

    private static Logger capturing(List<String> into) {
        Logger logger = Logger.getAnonymousLogger();
        logger.setUseParentHandlers(false);
        logger.setLevel(Level.INFO);
        logger.addHandler(new Handler() {
            @Override
            public void publish(LogRecord record) {
                synchronized (into) {
                    into.add(record.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        });
        return logger;
    }

    private static CallFacts get(String host) {
        return facts(CLIENT, "GET", host, "/items", false, true, false);
    }

    /** One call answered 503 on every attempt, driven as the loop drives it (no waiting: the clock is fake). */
    private void failingCall(String host) {
        call(get(host), Outcome.status(503, null));
    }

    private void call(CallFacts call, Outcome every) {
        for (int attempt = 1; ; attempt++) {
            RetryDecision d = decisions.decide(engine, call, attempt, every, 0, 0);
            if (d.action() != Action.DONE) {
                windows.event(call, engine.plan(call).mode(), every, d);
            }
            if (!d.shouldRetry()) {
                return;
            }
        }
    }

    /** {@code calls} calls answered 503 on every attempt, each decision logged through {@link RetryLog}. */
    private void logFailingCalls(int calls) {
        for (int i = 0; i < calls; i++) {
            CallFacts call = get(A);
            for (int attempt = 1; ; attempt++) {
                Outcome o = Outcome.status(503, null);
                RetryDecision d = decisions.decide(engine, call, attempt, o, 0, 0);
                RetryLog.decision(call, engine.plan(call).mode(), o, d);
                if (!d.shouldRetry()) {
                    break;
                }
            }
        }
    }

    private void succeedingCall(String host) {
        call(get(host), Outcome.status(200, null));
    }

    private List<String> summaries() {
        return lines.stream().filter(l -> l.startsWith("retry-agent summary ")).collect(Collectors.toList());
    }

    private List<String> events() {
        return lines.stream().filter(l -> !l.startsWith("retry-agent summary ")).collect(Collectors.toList());
    }

    @Test
    void theFirstEventOfEachKindIsWrittenInFullTheRestOnlyCounted() {
        for (int i = 0; i < 5; i++) {
            failingCall(A);
        }
        assertEquals(List.of(
                "retry-agent retry client=okhttp method=GET host=a.internal path=/items attempt=2/3 cause=status:503 wait=100ms",
                "retry-agent give up client=okhttp method=GET host=a.internal path=/items attempt=3/3 cause=status:503 reason=attempts"),
                lines);
    }

    @Test
    void theSummaryIsWrittenWhenTheWindowIsOverWithTheWindowsTotals() {
        for (int i = 0; i < 5; i++) {
            failingCall(A);
        }
        clock.advanceMillis(9_999);
        windows.flush();
        assertEquals(List.of(), summaries(), "not before the window's end");
        clock.advanceMillis(1);
        windows.flush();
        assertEquals(List.of("retry-agent summary host=a.internal port=443 scheme=https calls=5 retries=10 would-retry=0"
                + " give-ups=5 budget-refused=0 give-up-reasons=attempts:5 window=10s"), summaries());
        windows.flush();
        assertEquals(1, summaries().size(), "once");
    }

    @Test
    void eachGiveUpReasonIsAKindOfItsOwnAndBudgetRefusalsAreCountedApart() {
        // 10 retries in 10 s: the first 5 calls retry twice each, the other 5 are refused at once.
        engine = engine(defaults(b -> noJitter(b).maxAttempts(3).budget(new BudgetPolicy(0.0, 1))));
        windows = windows(engine);
        for (int i = 0; i < 10; i++) {
            failingCall(A);
        }
        List<String> full = events();
        assertEquals(3, full.size(), String.join("\n", lines));
        assertTrue(full.get(0).startsWith("retry-agent retry "), full.get(0));
        assertTrue(full.get(1).startsWith("retry-agent give up ") && full.get(1).endsWith(" reason=attempts"), full.get(1));
        assertTrue(full.get(2).startsWith("retry-agent give up ") && full.get(2).endsWith(" attempt=1/3 cause=status:503 reason=budget"),
                full.get(2));
        clock.advanceSeconds(10);
        windows.flush();
        assertEquals(List.of("retry-agent summary host=a.internal port=443 scheme=https calls=10 retries=10 would-retry=0"
                + " give-ups=10 budget-refused=5 give-up-reasons=attempts:5,budget:5 window=10s"), summaries());
    }

    @Test
    void observeModeCountsWouldRetry() {
        engine = engine(policy(Mode.OBSERVE, defaults(b -> noJitter(b).maxAttempts(3))));
        windows = windows(engine);
        for (int i = 0; i < 4; i++) {
            failingCall(A);
        }
        assertEquals(List.of("retry-agent would retry client=okhttp method=GET host=a.internal path=/items attempt=2/3"
                + " cause=status:503 wait=100ms"), lines);
        clock.advanceSeconds(10);
        windows.flush();
        assertEquals(List.of("retry-agent summary host=a.internal port=443 scheme=https calls=4 retries=0 would-retry=4"
                + " give-ups=0 budget-refused=0 window=10s"), summaries());
    }

    @Test
    void callsAreTheDestinationsCallsInTheWindowSuccessesIncludedAndNotThoseBefore() {
        for (int i = 0; i < 7; i++) {
            succeedingCall(A);
        }
        assertEquals(List.of(), lines, "a success writes nothing");
        clock.advanceSeconds(3);
        failingCall(A);
        succeedingCall(A);
        succeedingCall(A);
        failingCall(A);
        clock.advanceSeconds(10);
        windows.flush();
        assertEquals(List.of("retry-agent summary host=a.internal port=443 scheme=https calls=4 retries=4 would-retry=0"
                + " give-ups=2 budget-refused=0 give-up-reasons=attempts:2 window=10s"), summaries());
    }

    @Test
    void callsCountedByOtherThreadsWhileTheWindowOpenedAreNotMissed() {
        // Three threads' first attempts end (the engine counts their calls) before any of their events reaches
        // the log, as when the first event of a burst is slow to be written.
        CallFacts[] calls = {get(A), get(A), get(A)};
        Outcome unavailable = Outcome.status(503, null);
        RetryDecision[] decided = new RetryDecision[calls.length];
        for (int i = 0; i < calls.length; i++) {
            decided[i] = decisions.decide(engine, calls[i], 1, unavailable, 0, 0);
        }
        for (int i = 0; i < calls.length; i++) {
            windows.event(calls[i], engine.plan(calls[i]).mode(), unavailable, decided[i]);
        }
        clock.advanceSeconds(10);
        windows.flush();
        assertEquals(List.of("retry-agent summary host=a.internal port=443 scheme=https calls=3 retries=3 would-retry=0"
                + " give-ups=0 budget-refused=0 window=10s"), summaries());
    }

    @Test
    void windowsFollowEachOtherWhileTheDestinationKeepsFailing() {
        failingCall(A);
        clock.advanceSeconds(10);
        windows.flush();
        clock.advanceSeconds(2);
        failingCall(A);
        failingCall(A);
        assertEquals(4, events().size(), "the first of each kind again, in the new window: " + lines);
        clock.advanceMillis(7_999);
        windows.flush();
        assertEquals(1, summaries().size(), "the second window ends 20 s after the first event: " + lines);
        clock.advanceMillis(1);
        windows.flush();
        assertEquals(List.of(
                "retry-agent summary host=a.internal port=443 scheme=https calls=1 retries=2 would-retry=0 give-ups=1"
                        + " budget-refused=0 give-up-reasons=attempts:1 window=10s",
                "retry-agent summary host=a.internal port=443 scheme=https calls=2 retries=4 would-retry=0 give-ups=2"
                        + " budget-refused=0 give-up-reasons=attempts:2 window=10s"), summaries());
    }

    @Test
    void anEventAfterTheWindowsEndWritesItsSummaryFirstWhenNoFlushCameBetween() {
        failingCall(A);
        clock.advanceSeconds(11);
        failingCall(A);
        assertEquals(5, lines.size(), String.join("\n", lines));
        assertTrue(lines.get(2).startsWith("retry-agent summary host=a.internal port=443 scheme=https calls=1 retries=2 "),
                lines.get(2));
        assertTrue(lines.get(3).startsWith("retry-agent retry "), lines.get(3));
        clock.advanceSeconds(9);
        windows.flush();
        assertTrue(lines.get(5).startsWith("retry-agent summary host=a.internal port=443 scheme=https calls=1 retries=2 "),
                "the next window ends 10 s after the first one did: " + lines);
    }

    @Test
    void twoDestinationsAreIndependent() {
        failingCall(A);
        failingCall(A);
        clock.advanceSeconds(4);
        failingCall(B);
        assertEquals(4, events().size(), "first retry and give-up at each destination: " + lines);
        assertEquals(1, firstWindows, "flushes are asked for once");
        assertEquals(2, events().stream().filter(l -> l.contains(" host=b.internal ")).count(), String.join("\n", lines));
        clock.advanceSeconds(6);
        windows.flush();
        assertEquals(List.of("retry-agent summary host=a.internal port=443 scheme=https calls=2 retries=4 would-retry=0"
                + " give-ups=2 budget-refused=0 give-up-reasons=attempts:2 window=10s"), summaries());
        clock.advanceSeconds(4);
        windows.flush();
        assertEquals("retry-agent summary host=b.internal port=443 scheme=https calls=1 retries=2 would-retry=0"
                + " give-ups=1 budget-refused=0 give-up-reasons=attempts:1 window=10s", summaries().get(1));
    }

    @Test
    void aQuietWindowWritesNothingAndForgetsItsDestination() {
        windows.flush();
        succeedingCall(A);
        clock.advanceSeconds(30);
        windows.flush();
        assertEquals(List.of(), lines, "no event, no line");
        assertEquals(0, firstWindows, "nothing asks for flushes while no call failed");

        failingCall(A);
        clock.advanceSeconds(10);
        windows.flush();
        assertEquals(1, summaries().size());
        assertEquals(1, windows.size(), "kept for the window after a busy one");
        succeedingCall(A);
        clock.advanceSeconds(10);
        windows.flush();
        assertEquals(3, lines.size(), "nothing for the quiet window: " + lines);
        assertEquals(0, windows.size(), "a quiet window ends the destination's state");
    }

    @Test
    void atExitEveryOpenWindowsSummaryIsReturnedWithTheTimeItCovered() {
        failingCall(A);
        clock.advanceSeconds(10);
        windows.flush();
        clock.advanceMillis(3_500);
        failingCall(A);
        failingCall(B);
        int written = lines.size();
        assertEquals(List.of(
                "retry-agent summary host=a.internal port=443 scheme=https calls=1 retries=2 would-retry=0 give-ups=1"
                        + " budget-refused=0 give-up-reasons=attempts:1 window=3500ms",
                "retry-agent summary host=b.internal port=443 scheme=https calls=1 retries=2 would-retry=0 give-ups=1"
                        + " budget-refused=0 give-up-reasons=attempts:1 window=0s"),
                windows.endAll().stream().sorted().collect(Collectors.toList()));
        assertEquals(written, lines.size(), "returned, not written: the handlers may be closed at exit");
        assertEquals(0, windows.size());
        clock.advanceSeconds(10);
        windows.flush();
        assertEquals(written, lines.size(), "ended once");
    }

    @Test
    void memoryStaysBoundedWithoutFlushesToo() {
        int hosts = LogWindows.SWEEP_ABOVE + 100;
        for (int i = 0; i < hosts; i++) {
            failingCall("h" + i + ".internal");
        }
        assertEquals(hosts, windows.size());
        clock.advanceSeconds(25);
        failingCall("late1.internal");
        assertEquals(hosts, summaries().size(), "opening one more window ended the others first");
        clock.advanceSeconds(15);
        failingCall("late2.internal");
        assertTrue(windows.size() <= 2, "the quiet ones were forgotten: " + windows.size());
    }

    @Test
    void atDebugEveryEventIsALineAndNoSummaryIsWritten() {
        Logger global = RetryLog.logger();
        Level before = global.getLevel();
        boolean parents = global.getUseParentHandlers();
        global.setUseParentHandlers(false);
        List<String> seen = new ArrayList<>();
        Logger capture = capturing(seen);
        Handler handler = capture.getHandlers()[0];
        global.addHandler(handler);
        LogWindows installed = new LogWindows(engine, clock, TimeUnit.SECONDS.toNanos(10), global, () -> firstWindows++);
        RetryLog.install(installed);
        try {
            global.setLevel(Level.FINE);
            logFailingCalls(5);
            clock.advanceSeconds(10);
            RetryLog.flushWindows();
            assertEquals(15, seen.size(), String.join("\n", seen));
            assertEquals(10, seen.stream().filter(l -> l.startsWith("retry-agent retry ")).count());
            assertEquals(5, seen.stream().filter(l -> l.startsWith("retry-agent give up ")).count());
            assertEquals(0, installed.size(), "nothing is counted at debug");

            global.setLevel(Level.INFO);
            seen.clear();
            logFailingCalls(5);
            assertEquals(2, seen.size(), "the same calls at info, through the installed windows: " + seen);
        } finally {
            RetryLog.install(null);
            global.removeHandler(handler);
            global.setLevel(before);
            global.setUseParentHandlers(parents);
        }
    }

    /**
     * A total outage at fleet volume: 200 calls a second for 60 s, every attempt answered 503, the built-in default
     * policy (3 attempts, budget 10 % + 10/s), the agent's flush every second. The SPEC's target is at most 100 lines.
     */
    @Test
    void aMinuteOfTotalOutageAt200CallsASecondIsAFewDozenLines() {
        engine = engine(Policy.builtIn());
        windows = windows(engine);
        CallFacts call = get(A);
        for (int ms = 0; ms < 60_000; ms += 5) {
            failingCall(A);
            clock.advanceMillis(5);
            if (ms % 1000 == 995) {
                windows.flush();
            }
        }
        clock.advanceSeconds(10);
        windows.flush();

        long calls = 0;
        long retries = 0;
        long giveUps = 0;
        for (String s : summaries()) {
            Matcher m = SUMMARY.matcher(s);
            assertTrue(m.matches(), s);
            calls += Long.parseLong(m.group(4));
            retries += Long.parseLong(m.group(5));
            giveUps += Long.parseLong(m.group(7));
        }
        RetryCounters counters = engine.counters(CLIENT, call.scheme(), A, call.port());
        assertEquals(12_000, counters.calls());
        assertEquals(counters.calls(), calls, "the summaries account for every call");
        assertEquals(counters.retries(), retries, "and every retry");
        assertEquals(12_000, giveUps, "every call gave up, for attempts or budget");
        assertEquals(6, summaries().size(), String.join("\n", lines));
        assertEquals(18, events().size(), "a retry, a give-up for attempts and one for budget per window: "
                + String.join("\n", lines));
        assertTrue(lines.size() <= 100, "lines: " + lines.size());
    }
}
