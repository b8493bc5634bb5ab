package dev.retryagent.engine;

import static dev.retryagent.engine.TestPolicies.CLIENT;
import static dev.retryagent.engine.TestPolicies.HOST;
import static dev.retryagent.engine.TestPolicies.defaults;
import static dev.retryagent.engine.TestPolicies.exact;
import static dev.retryagent.engine.TestPolicies.facts;
import static dev.retryagent.engine.TestPolicies.get;
import static dev.retryagent.engine.TestPolicies.host;
import static dev.retryagent.engine.TestPolicies.noJitter;
import static dev.retryagent.engine.TestPolicies.policy;
import static dev.retryagent.engine.TestPolicies.rule;
import static dev.retryagent.engine.TestPolicies.withMarker;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.policy.BackoffPolicy;
import dev.retryagent.policy.BudgetPolicy;
import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Jitter;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetrySettings;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The synchronous loop, driven by a fake exchange that plays a script of outcomes; nothing sleeps. */
class RetryLoopTest {
    private final FakeClock clock = new FakeClock();
    private final FakeRandom random = new FakeRandom(0.5);
    private final FakeSleeper sleeper = new FakeSleeper(clock);

    @AfterEach
    void clearInterrupt() {
        // Never leak an interrupt into the next test (and fail the test that left one).
        Thread.interrupted();
    }

    private RetryEngine engine(Policy policy) {
        return new RetryEngine(policy, clock, random);
    }

    private RetryLoop loop(RetryEngine engine) {
        return new RetryLoop(engine, clock, sleeper);
    }

    private RetryLoop loop(Policy policy) {
        return loop(engine(policy));
    }

    /** A call made inside an attempt, from code that cannot throw an IOException: it fails the test instead. */
    private static FakeResponse executeInside(RetryLoop loop, CallFacts facts, FakeExchange exchange) {
        try {
            return loop.execute(facts, exchange);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Each attempt of {@code outer} notes its scope in {@code scopes}, then makes a call of its own to inner.example
     * (answered 503, then 200) through {@code loop}, which must end with {@code innerStatus}; its exchanges go to
     * {@code inner}.
     */
    private static void callInnerExampleInEachAttempt(FakeExchange outer, RetryLoop loop, int innerStatus,
                                                      List<Integer> scopes, List<FakeExchange> inner) {
        outer.duringSend = () -> {
            scopes.add(AttemptScope.current());
            FakeExchange e = new FakeExchange(Script.of().status(503).status(200));
            inner.add(e);
            assertEquals(innerStatus, executeInside(loop, TestPolicies.at("inner.example", "/"), e).status);
        };
    }

    /** An exchange that plays a script and records what the loop asked of it. */
    static class FakeExchange implements Exchange<FakeResponse> {
        final Script script;
        final List<Integer> attempts = new ArrayList<>();
        final List<String> markers = new ArrayList<>();
        final List<FakeResponse> sent = new ArrayList<>();
        final List<FakeResponse> discarded = new ArrayList<>();
        final List<IOException> thrown = new ArrayList<>();
        long attemptMillis;
        FakeClock clock;
        RuntimeException outcomeFailure;
        RuntimeException classifyFailure;
        RuntimeException discardFailure;
        Runnable duringSend;
        /** What {@link #cutShort} answers: the attempts' limits were the agent's. */
        boolean limitsCutShort;
        /** What {@link #callerLimitMillis} answers: the application's own limit for the call. */
        long callerLimit;
        /** What {@link #resendsAlone} answers: the client alone would resend after a failure. */
        boolean clientResends;

        @Override
        public boolean resendsAlone(IOException failure) {
            return clientResends;
        }

        @Override
        public long callerLimitMillis() {
            return callerLimit;
        }

        FakeExchange(Script script) {
            this.script = script;
        }

        /** Each attempt takes {@code millis} of the fake clock's time. */
        FakeExchange taking(FakeClock clock, long millis) {
            this.clock = clock;
            this.attemptMillis = millis;
            return this;
        }

        final List<Long> limits = new ArrayList<>();

        @Override
        public FakeResponse send(int attempt, String marker, long limitMillis) throws IOException {
            limits.add(limitMillis);
            return send(attempt, marker);
        }

        @Override
        public FakeResponse send(int attempt, String marker) throws IOException {
            attempts.add(attempt);
            markers.add(marker);
            if (clock != null) {
                clock.advanceMillis(attemptMillis);
            }
            if (duringSend != null) {
                duringSend.run();
            }
            IOException failure = script.failureAt(attempt);
            if (failure != null) {
                thrown.add(failure);
                throw failure;
            }
            FakeResponse response = script.responseAt(attempt);
            sent.add(response);
            return response;
        }

        @Override
        public Outcome outcome(FakeResponse response) {
            if (outcomeFailure != null) {
                throw outcomeFailure;
            }
            return Outcome.status(response.status, response.retryAfter);
        }

        @Override
        public FailureKind classify(IOException failure) {
            if (classifyFailure != null) {
                throw classifyFailure;
            }
            return script.kindOf(failure);
        }

        @Override
        public boolean cutShort(IOException failure) {
            return limitsCutShort;
        }

        @Override
        public void discard(FakeResponse response) {
            discarded.add(response);
            if (discardFailure != null) {
                throw discardFailure;
            }
        }
    }

    @Test
    void aFirstAttemptSuccessIsReturnedAsIs() throws IOException {
        FakeExchange exchange = new FakeExchange(Script.of().status(200));
        FakeResponse response = loop(exact()).execute(get(), exchange);
        assertSame(exchange.sent.get(0), response);
        assertEquals(Arrays.asList(1), exchange.attempts);
        assertEquals(Arrays.asList("1"), exchange.markers);
        assertTrue(exchange.discarded.isEmpty());
        assertTrue(sleeper.sleeps().isEmpty());
    }

    @Test
    void retriesUntilASuccessAndReturnsTheLastResponse() throws IOException {
        RetryEngine engine = engine(exact());
        FakeExchange exchange = new FakeExchange(Script.of().status(503).status(502).status(200));
        FakeResponse response = loop(engine).execute(get(), exchange);

        assertEquals(Arrays.asList(1, 2, 3), exchange.attempts);
        assertEquals(Arrays.asList("1", "2", "3"), exchange.markers);
        assertSame(exchange.sent.get(2), response);
        assertEquals(200, response.status);
        // Exactly the responses the caller never sees are released, each once.
        assertEquals(Arrays.asList(exchange.sent.get(0), exchange.sent.get(1)), exchange.discarded);
        assertEquals(Arrays.asList(100L, 200L), sleeper.sleeps());

        RetryCounters c = engine.counters(CLIENT, "https", HOST, 443);
        assertEquals(1, c.calls());
        assertEquals(3, c.attempts());
        assertEquals(2, c.retries());
        assertEquals(1, c.successesAfterRetry());
    }

    @Test
    void whenAttemptsRunOutTheLastResponseIsReturnedUndiscarded() throws IOException {
        FakeExchange exchange = new FakeExchange(Script.of().status(503).status(503).status(503));
        FakeResponse response = loop(exact()).execute(get(), exchange);
        assertEquals(3, exchange.attempts.size());
        assertSame(exchange.sent.get(2), response);
        assertEquals(Arrays.asList(exchange.sent.get(0), exchange.sent.get(1)), exchange.discarded);
        assertFalse(exchange.discarded.contains(response));
    }

    @Test
    void theFinalFailureIsRethrownAsTheSameInstance() {
        FakeExchange exchange = new FakeExchange(
                Script.of().fail(FailureKind.CONNECT).fail(FailureKind.RESET).fail(FailureKind.TIMEOUT));
        IOException thrown = assertThrows(IOException.class, () -> loop(exact()).execute(get(), exchange));
        assertSame(exchange.thrown.get(2), thrown);
        assertEquals(Arrays.asList(1, 2, 3), exchange.attempts);
        assertEquals(Arrays.asList(100L, 200L), sleeper.sleeps());
        assertTrue(exchange.discarded.isEmpty());
    }

    @Test
    void aFailureThenASuccess() throws IOException {
        FakeExchange exchange = new FakeExchange(Script.of().fail(FailureKind.RESET).status(204));
        FakeResponse response = loop(exact()).execute(get(), exchange);
        assertSame(exchange.sent.get(0), response);
        assertEquals(204, response.status);
        assertEquals(Arrays.asList("1", "2"), exchange.markers);
    }

    @Test
    void aNonRetryableFailureIsRethrownAtOnce() {
        FakeExchange exchange = new FakeExchange(Script.of().fail(FailureKind.OTHER).status(200));
        IOException thrown = assertThrows(IOException.class, () -> loop(exact()).execute(get(), exchange));
        assertSame(exchange.thrown.get(0), thrown);
        assertEquals(Arrays.asList(1), exchange.attempts);
        assertTrue(sleeper.sleeps().isEmpty());
    }

    @Test
    void aNonRetryableResponseIsReturnedAtOnce() throws IOException {
        FakeExchange exchange = new FakeExchange(Script.of().status(404).status(200));
        assertEquals(404, loop(exact()).execute(get(), exchange).status);
        assertEquals(1, exchange.attempts.size());
        assertTrue(exchange.discarded.isEmpty());
    }

    @Test
    void aBudgetRefusalReturnsTheLastFailure() {
        Policy noBudget = policy(defaults(b -> noJitter(b).budget(new BudgetPolicy(0.0, 0))));
        FakeExchange exchange = new FakeExchange(Script.of().fail(FailureKind.RESET).status(200));
        IOException thrown = assertThrows(IOException.class, () -> loop(noBudget).execute(get(), exchange));
        assertSame(exchange.thrown.get(0), thrown);
        assertEquals(1, exchange.attempts.size());
    }

    @Test
    void sleepsAreTheDecidedWaits() throws IOException {
        // Full jitter with a draw of 0.5 waits e/2; a Retry-After of 2 s with spread 0.5 waits 2.5 s.
        Policy jittered = policy(defaults(b -> b.maxAttempts(5).deadlineMillis(60_000)
                .backoff(new BackoffPolicy(100, 2000, 2.0, Jitter.FULL))));
        FakeExchange exchange = new FakeExchange(
                Script.of().status(503).status(429, "2").fail(FailureKind.TIMEOUT).status(503).status(200));
        List<Long> logged = new ArrayList<>();
        Handler handler = captureWaits(logged);
        try {
            loop(jittered).execute(get(), exchange);
        } finally {
            RetryLog.logger().removeHandler(handler);
        }
        assertEquals(Arrays.asList(50L, 2500L, 200L, 400L), sleeper.sleeps());
        assertEquals(sleeper.sleeps(), logged, "each sleep is the wait the engine decided and logged");
    }

    private static Handler captureWaits(List<Long> waits) {
        Pattern retryLine = Pattern.compile("^retry-agent retry .* wait=(\\d+)ms$");
        return capture(Level.INFO, line -> {
            Matcher m = retryLine.matcher(line);
            if (m.matches()) {
                waits.add(Long.parseLong(m.group(1)));
            }
        });
    }

    /** Hands every line the agent's logger writes at {@code level} and above to {@code lines}. */
    private static Handler capture(Level level, Consumer<String> lines) {
        return LogCapture.capture(level, record -> lines.accept(record.getMessage()));
    }

    @Test
    void theWaitBeforeEachRetryIsPassedOnForDecorrelatedJitter() throws IOException {
        Policy decorrelated = policy(defaults(b -> b.maxAttempts(4).deadlineMillis(60_000)
                .backoff(new BackoffPolicy(100, 2000, 2.0, Jitter.DECORRELATED))));
        FakeExchange exchange = new FakeExchange(Script.of().status(503).status(503).status(503).status(200));
        loop(decorrelated).execute(get(), exchange);
        // U(100, 300) -> 200; U(100, 600) -> 350; U(100, 1050) -> 575.
        assertEquals(Arrays.asList(200L, 350L, 575L), sleeper.sleeps());
    }

    @Test
    void elapsedTimeIncludesAttemptsAndWaitsSoTheDeadlineHolds() throws IOException {
        Policy tight = policy(defaults(b -> noJitter(b).maxAttempts(10).deadlineMillis(1_000)));
        FakeExchange exchange = new FakeExchange(
                Script.of().status(503).status(503).status(503).status(503).status(200)).taking(clock, 150);
        FakeResponse response = loop(tight).execute(get(), exchange);
        // 150 + 100 + 150 + 200 + 150 = 750 ms elapsed after attempt 3; + 400 would reach 1150 ms.
        assertEquals(Arrays.asList(100L, 200L), sleeper.sleeps());
        assertEquals(3, exchange.attempts.size());
        assertSame(exchange.sent.get(2), response);
    }

    @Test
    void withoutAttemptTimeoutNoAttemptIsBounded() throws IOException {
        FakeExchange exchange = new FakeExchange(Script.of().status(503).status(200)).taking(clock, 150);
        loop(exact()).execute(get(), exchange);
        assertEquals(Arrays.asList(0L, 0L), exchange.limits);
    }

    @Test
    void eachAttemptIsBoundedByTheAttemptTimeoutAndTheTimeLeftBeforeTheDeadline() throws IOException {
        Policy bounded = policy(defaults(b -> noJitter(b).maxAttempts(5).deadlineMillis(1_000)
                .attemptTimeoutMillis(400)));
        FakeExchange exchange = new FakeExchange(
                Script.of().status(503).status(503).status(503).status(200)).taking(clock, 400);
        loop(bounded).execute(get(), exchange);
        // 400 + 100 wait = 500 ms used: 400 more; then 900 + 200 would pass the deadline: no third attempt.
        assertEquals(Arrays.asList(400L, 400L), exchange.limits);
        assertEquals(2, exchange.attempts.size());

        Policy late = policy(defaults(b -> noJitter(b).maxAttempts(5).deadlineMillis(700).attemptTimeoutMillis(400)));
        FakeExchange slow = new FakeExchange(Script.of().status(503).status(503).status(200)).taking(clock, 400);
        loop(late).execute(get(), slow);
        assertEquals(Arrays.asList(400L, 200L), slow.limits, "the last attempt ends at the deadline");
    }

    @Test
    void anEnforcedDeadlineBoundsTheAttemptsAndACallNotRetriedIsBoundedToo() throws IOException {
        Policy enforced = policy(defaults(b -> noJitter(b).deadlineMillis(2_000).deadlineEnforced(true)));
        FakeExchange post = new FakeExchange(Script.of().status(503)).taking(clock, 300);
        loop(enforced).execute(TestPolicies.call("POST"), post);
        assertEquals(Arrays.asList(2_000L), post.limits, "a POST without key is sent once, within the deadline");
    }

    @Test
    void anAttemptCutShortIsATimeoutToTheDecisionCountedAndLoggedAsTheAgents() throws IOException {
        RetryEngine engine = engine(policy(defaults(b -> noJitter(b).attemptTimeoutMillis(400))));
        RetryLoop loop = loop(engine);
        FakeExchange exchange = new FakeExchange(Script.of().fail(FailureKind.TIMEOUT).fail(FailureKind.TIMEOUT)
                .fail(FailureKind.TIMEOUT)).taking(clock, 400);
        exchange.limitsCutShort = true;
        List<String> lines = new ArrayList<>();
        Handler handler = capture(Level.ALL, lines::add);
        try {
            assertThrows(IOException.class, () -> loop.execute(get(), exchange));
        } finally {
            RetryLog.logger().removeHandler(handler);
        }
        assertEquals(3, exchange.attempts.size(), "retried as any timeout");
        assertEquals(3, engine.counters(CLIENT, "https", HOST, 443).attemptTimeouts());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("retry-agent retry ") && l.contains(" attempt=2/3 ")
                && l.contains(" cause=attempt-timeout ")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("retry-agent give up ")
                && l.contains(" cause=attempt-timeout ")), lines.toString());

        FakeExchange own = new FakeExchange(Script.of().fail(FailureKind.TIMEOUT).status(200)).taking(clock, 400);
        lines.clear();
        handler = capture(Level.ALL, lines::add);
        try {
            loop.execute(get(), own);
        } finally {
            RetryLog.logger().removeHandler(handler);
        }
        assertTrue(lines.stream().anyMatch(l -> l.contains(" cause=failure:timeout ")), "the application's own: " + lines);
        assertEquals(3, engine.counters(CLIENT, "https", HOST, 443).attemptTimeouts(), "not counted as the agent's");
    }

    @Test
    void theApplicationsLimitForTheCallIsADeadlineToo() throws IOException {
        RetryEngine engine = engine(exact());
        // Retry-After: 1 against 500 ms the application gave the call: no wait past it, the 503 goes back at once
        FakeExchange limited = new FakeExchange(Script.of().status(503, "1").status(200)).taking(clock, 10);
        limited.callerLimit = 500;
        FakeResponse response = loop(engine).execute(get(), limited);
        assertEquals(503, response.status);
        assertEquals(Arrays.asList(1), limited.attempts);
        assertTrue(sleeper.sleeps().isEmpty(), "no wait: " + sleeper.sleeps());
        assertEquals(1, engine.counters(CLIENT, "https", HOST, 443).giveUps(GiveUpReason.DEADLINE));

        // 5 s given: the wait fits, the call is retried as without a limit
        FakeExchange roomy = new FakeExchange(Script.of().status(503, "1").status(200)).taking(clock, 10);
        roomy.callerLimit = 5_000;
        assertEquals(200, loop(engine).execute(get(), roomy).status);
        assertEquals(Arrays.asList(1, 2), roomy.attempts);

        // a limit longer than the rule's deadline changes nothing: the rule's 10 s stays the bound
        FakeExchange longer = new FakeExchange(Script.of().status(503).status(503).status(200)).taking(clock, 10);
        longer.callerLimit = 60_000;
        assertEquals(200, loop(engine).execute(get(), longer).status);
    }

    @Test
    void aResetPastTheDeadlineGetsTheOneResendTheClientAloneWouldHaveMade() throws IOException {
        RetryEngine engine = engine(exact());
        // the first attempt hangs 20 s, past the 10 s deadline, then its connection drops; the resend is answered
        FakeExchange legacy = new FakeExchange(Script.of().fail(FailureKind.RESET).status(200)).taking(clock, 20_000);
        legacy.clientResends = true;
        List<String> lines = new ArrayList<>();
        Handler handler = capture(Level.ALL, lines::add);
        try {
            assertEquals(200, loop(engine).execute(get(), legacy).status);
        } finally {
            RetryLog.logger().removeHandler(handler);
        }
        assertEquals(Arrays.asList(1, 2), legacy.attempts);
        assertEquals(Arrays.asList(0L), sleeper.sleeps(), "at once, as the client resends");
        assertTrue(lines.stream().anyMatch(l -> l.contains(" attempt=2/3 cause=failure:reset wait=0ms past=deadline")),
                lines.toString());

        // once only: a second reset past the deadline goes back to the caller
        FakeExchange twice = new FakeExchange(Script.of().fail(FailureKind.RESET).fail(FailureKind.RESET).status(200))
                .taking(clock, 20_000);
        twice.clientResends = true;
        assertThrows(IOException.class, () -> loop(engine).execute(get(), twice));
        assertEquals(Arrays.asList(1, 2), twice.attempts);

        // a client that would not resend: the deadline ends the call
        FakeExchange other = new FakeExchange(Script.of().fail(FailureKind.RESET).status(200)).taking(clock, 20_000);
        assertThrows(IOException.class, () -> loop(engine).execute(get(), other));
        assertEquals(Arrays.asList(1), other.attempts);
        // nor after a timeout, which the JDK does not resend
        FakeExchange timedOut = new FakeExchange(Script.of().fail(FailureKind.TIMEOUT).status(200)).taking(clock, 20_000);
        timedOut.clientResends = true;
        assertThrows(IOException.class, () -> loop(engine).execute(get(), timedOut));
        assertEquals(Arrays.asList(1), timedOut.attempts);
    }

    @Test
    void observeModeBoundsNoAttempt() throws IOException {
        Policy observed = policy(Mode.OBSERVE, defaults(b -> noJitter(b).attemptTimeoutMillis(400)));
        FakeExchange exchange = new FakeExchange(Script.of().status(503)).taking(clock, 10);
        loop(observed).execute(get(), exchange);
        assertEquals(Arrays.asList(0L), exchange.limits);
    }

    @Test
    void observeModeSendsOnceWithoutMarker() throws IOException {
        RetryEngine engine = engine(policy(Mode.OBSERVE, RetrySettings.builtIn()));
        FakeExchange exchange = new FakeExchange(Script.of().status(503).status(200));
        FakeResponse response = loop(engine).execute(get(), exchange);
        assertSame(exchange.sent.get(0), response);
        assertEquals(1, exchange.attempts.size());
        assertNull(exchange.markers.get(0));
        assertTrue(exchange.discarded.isEmpty());
        assertTrue(sleeper.sleeps().isEmpty());
        assertEquals(1, engine.counters(CLIENT, "https", HOST, 443).wouldRetry());
    }

    @Test
    void observeModeRethrowsTheFailure() {
        FakeExchange exchange = new FakeExchange(Script.of().fail(FailureKind.RESET).status(200));
        IOException thrown = assertThrows(IOException.class,
                () -> loop(policy(Mode.OBSERVE, RetrySettings.builtIn())).execute(get(), exchange));
        assertSame(exchange.thrown.get(0), thrown);
    }

    @Test
    void offModeSendsOnceWithoutMarkerAndCountsNothing() throws IOException {
        RetryEngine engine = engine(policy(Mode.OFF, RetrySettings.builtIn()));
        FakeExchange exchange = new FakeExchange(Script.of().status(503).status(200));
        FakeResponse response = loop(engine).execute(get(), exchange);
        assertSame(exchange.sent.get(0), response);
        assertEquals(Arrays.asList(1), exchange.attempts);
        assertNull(exchange.markers.get(0));
        assertNull(engine.counters(CLIENT, "https", HOST, 443));
    }

    @Test
    void aRuleInOffModeLeavesItsCallsAlone() throws IOException {
        RetrySettings defaults = RetrySettings.builtIn();
        RetryLoop loop = loop(policy(defaults, rule(0, host("reports.internal"), defaults, b -> b.mode(Mode.OFF))));
        FakeExchange exchange = new FakeExchange(Script.of().status(503).status(200));
        assertEquals(503, loop.execute(TestPolicies.at("reports.internal", "/"), exchange).status);
        assertNull(exchange.markers.get(0));
    }

    @Test
    void aRequestAlreadyMarkedIsSentOnceWithoutAnotherMarker() throws IOException {
        FakeExchange exchange = new FakeExchange(Script.of().status(503).status(200));
        CallFacts nested = facts(CLIENT, "GET", HOST, "/", false, true, true);
        assertEquals(503, loop(exact()).execute(nested, exchange).status);
        assertEquals(1, exchange.attempts.size());
        assertNull(exchange.markers.get(0));
    }

    /**
     * One layer in one JVM (docs/reference.md#one-retry-layer): a call made inside an attempt of another, on the same
     * thread (an interceptor's own call, a wrapper client on another instrumented client), is executed once, with the
     * enclosing attempt's number as its marker; the outer call retries as usual. Never squared.
     */
    @Test
    void aCallMadeInsideAnAttemptIsSentOnceWithTheEnclosingAttemptsNumber() throws IOException {
        RetryEngine engine = engine(exact());
        RetryLoop loop = loop(engine);
        FakeExchange outer = new FakeExchange(Script.of().status(503).status(503).status(503));
        List<FakeExchange> inner = new ArrayList<>();
        List<Integer> scopes = new ArrayList<>();
        callInnerExampleInEachAttempt(outer, loop, 503, scopes, inner);
        assertEquals(503, loop.execute(get(), outer).status);

        assertEquals(Arrays.asList(1, 2, 3), outer.attempts);
        assertEquals(Arrays.asList(1, 2, 3), scopes, "each attempt runs in its own scope");
        assertEquals(3, inner.size(), "one inner call per outer attempt, never squared");
        for (int i = 0; i < 3; i++) {
            assertEquals(Arrays.asList(1), inner.get(i).attempts);
            assertEquals(Arrays.asList(Integer.toString(i + 1)), inner.get(i).markers);
        }
        assertEquals(0, AttemptScope.current(), "the scope ends with the call");
        assertEquals(3, engine.counters(CLIENT, "https", "inner.example", 443).giveUps(GiveUpReason.NESTED));
        assertEquals(2, engine.counters(CLIENT, "https", HOST, 443).retries());
    }

    /**
     * A call this layer will not retry (a POST without key) opens no scope: a call made inside its attempt is not
     * nested, and is retried under its own rule, so that one layer still retries where one may.
     */
    @Test
    void aCallMadeInsideACallThisLayerWillNotRetryIsRetriedItself() throws IOException {
        RetryEngine engine = engine(exact());
        RetryLoop loop = loop(engine);
        FakeExchange outer = new FakeExchange(Script.of().status(503));
        List<FakeExchange> inner = new ArrayList<>();
        List<Integer> scopes = new ArrayList<>();
        callInnerExampleInEachAttempt(outer, loop, 200, scopes, inner);
        assertEquals(503, loop.execute(TestPolicies.call("POST"), outer).status);

        assertEquals(Arrays.asList(1), outer.attempts);
        assertEquals(Arrays.asList((String) null), outer.markers);
        assertEquals(Arrays.asList(0), scopes, "no scope around an attempt this layer will not retry");
        assertEquals(1, inner.size());
        assertEquals(Arrays.asList(1, 2), inner.get(0).attempts);
        assertEquals(Arrays.asList("1", "2"), inner.get(0).markers);
        assertEquals(0, engine.counters(CLIENT, "https", "inner.example", 443).giveUps(GiveUpReason.NESTED));
    }

    @Test
    void aCallInsideANestedCallIsNestedToo() throws IOException {
        RetryLoop loop = loop(exact());
        FakeExchange outer = new FakeExchange(Script.of().status(503).status(200));
        List<FakeExchange> deepest = new ArrayList<>();
        outer.duringSend = () -> {
            FakeExchange middle = new FakeExchange(Script.of().status(503));
            middle.duringSend = () -> {
                FakeExchange e = new FakeExchange(Script.of().status(503));
                deepest.add(e);
                executeInside(loop, get(), e);
            };
            executeInside(loop, get(), middle);
            assertEquals(1, middle.attempts.size());
        };
        assertEquals(200, loop.execute(get(), outer).status);
        assertEquals(2, deepest.size());
        assertEquals(Arrays.asList("1"), deepest.get(0).markers);
        assertEquals(Arrays.asList("2"), deepest.get(1).markers);
    }

    @Test
    void aNestedCallKeepsAMarkerItCarriedAndTheScopeEndsOnAFailure() {
        RetryLoop loop = loop(exact());
        FakeExchange outer = new FakeExchange(Script.of().fail(FailureKind.RESET).fail(FailureKind.RESET)
                .fail(FailureKind.RESET));
        List<FakeExchange> inner = new ArrayList<>();
        outer.duringSend = () -> {
            FakeExchange e = new FakeExchange(Script.of().status(503));
            inner.add(e);
            executeInside(loop, facts(CLIENT, "GET", HOST, "/", false, true, true), e);
        };
        assertThrows(IOException.class, () -> loop.execute(get(), outer));
        assertEquals(3, inner.size());
        assertEquals(Arrays.asList((String) null), inner.get(0).markers, "the marker it carried is left as it was");
        assertEquals(0, AttemptScope.current());
    }

    @Test
    void aCallInModeOffOpensNoScope() throws IOException {
        RetrySettings defaults = RetrySettings.builtIn();
        RetryLoop loop = loop(policy(defaults, rule(0, host("reports.internal"), defaults, b -> b.mode(Mode.OFF))));
        FakeExchange outer = new FakeExchange(Script.of().status(200));
        List<FakeExchange> inner = new ArrayList<>();
        outer.duringSend = () -> {
            FakeExchange e = new FakeExchange(Script.of().status(503).status(200));
            inner.add(e);
            assertEquals(200, executeInside(loop, get(), e).status);
        };
        loop.execute(TestPolicies.at("reports.internal", "/"), outer);
        assertEquals(Arrays.asList(1, 2), inner.get(0).attempts, "the only layer that retries");
    }

    @Test
    void withTheMarkerDisabledRetriesCarryNone() throws IOException {
        FakeExchange exchange = new FakeExchange(Script.of().status(503).status(200));
        loop(withMarker(exact(), null)).execute(get(), exchange);
        assertEquals(Arrays.asList(null, null), exchange.markers);
    }

    @Test
    void anInterruptDuringTheWaitStopsAtOnceKeepingTheFlag() {
        sleeper.interruptAt(1);
        FakeExchange exchange = new FakeExchange(Script.of().status(503).status(200));
        InterruptedIOException thrown = assertThrows(InterruptedIOException.class,
                () -> loop(exact()).execute(get(), exchange));
        assertTrue(Thread.interrupted(), "the interrupt flag is kept");
        assertInstanceOf(InterruptedException.class, thrown.getCause());
        assertEquals(1, exchange.attempts.size(), "no attempt after the interrupt");
        assertEquals(Arrays.asList(exchange.sent.get(0)), exchange.discarded, "the held response was released");
    }

    @Test
    void anInterruptDuringTheWaitAfterAFailureRethrowsThatFailure() {
        sleeper.interruptAt(2);
        FakeExchange exchange = new FakeExchange(Script.of().fail(FailureKind.RESET).fail(FailureKind.TIMEOUT).status(200));
        IOException thrown = assertThrows(IOException.class, () -> loop(exact()).execute(get(), exchange));
        assertTrue(Thread.interrupted(), "the interrupt flag is kept");
        assertSame(exchange.thrown.get(1), thrown);
        assertEquals(2, exchange.attempts.size());
    }

    @Test
    void anInterruptThatArrivesDuringAnAttemptStopsTheRealSleeperAtOnce() {
        // Thread.sleep with the flag already set throws at once: nothing really waits here.
        FakeExchange exchange = new FakeExchange(Script.of().status(503).status(200));
        exchange.duringSend = () -> Thread.currentThread().interrupt();
        RetryLoop loop = new RetryLoop(engine(policy(defaults(b -> noJitter(b)
                .backoff(new BackoffPolicy(60_000, 60_000, 1.0, Jitter.NONE)).deadlineMillis(3_600_000)))),
                clock, Sleeper.SYSTEM);
        long start = System.nanoTime();
        assertThrows(InterruptedIOException.class, () -> loop.execute(get(), exchange));
        assertTrue(System.nanoTime() - start < 30_000_000_000L, "did not wait the minute");
        assertTrue(Thread.interrupted());
        assertEquals(1, exchange.attempts.size());
    }

    @Test
    void failOpenWhenTheOutcomeCannotBeRead() throws IOException {
        FakeExchange exchange = new FakeExchange(Script.of().status(503).status(200));
        exchange.outcomeFailure = new IllegalStateException("adapter bug");
        FakeResponse response = loop(exact()).execute(get(), exchange);
        assertSame(exchange.sent.get(0), response);
        assertEquals(1, exchange.attempts.size());
        assertTrue(exchange.discarded.isEmpty());
    }

    @Test
    void failOpenWhenTheFailureCannotBeClassified() {
        FakeExchange exchange = new FakeExchange(Script.of().fail(FailureKind.RESET).status(200));
        exchange.classifyFailure = new NullPointerException("adapter bug");
        IOException thrown = assertThrows(IOException.class, () -> loop(exact()).execute(get(), exchange));
        assertSame(exchange.thrown.get(0), thrown);
        assertEquals(1, exchange.attempts.size());
    }

    @Test
    void failOpenWhenTheEngineFailsToDecide() throws IOException {
        // A host the adapter could not read: the destination lookup fails inside the engine.
        CallFacts broken = new CallFacts(CLIENT, "GET", "https", null, 443, "/", false, true, false);
        FakeExchange exchange = new FakeExchange(Script.of().status(503).status(200));
        FakeResponse response = loop(exact()).execute(broken, exchange);
        assertSame(exchange.sent.get(0), response);
        assertEquals(1, exchange.attempts.size());
    }

    @Test
    void aPolicyLoadedDuringACallAppliesToTheNextCallOnly() throws IOException {
        RetryEngine engine = engine(exact(3));
        FakeExchange inFlight = new FakeExchange(Script.of().status(503).status(503).status(200));
        // The reload lands while the first attempt is on the wire.
        Policy off = exact(1).withModeOverride(Mode.OFF);
        inFlight.duringSend = () -> engine.setPolicy(off);
        FakeResponse response = loop(engine).execute(get(), inFlight);
        assertSame(inFlight.sent.get(2), response);
        assertEquals(Arrays.asList(1, 2, 3), inFlight.attempts);
        assertEquals(Arrays.asList("1", "2", "3"), inFlight.markers, "marked to the end, as it started");

        FakeExchange next = new FakeExchange(Script.of().status(503).status(200));
        FakeResponse nextResponse = loop(engine).execute(get(), next);
        assertSame(next.sent.get(0), nextResponse);
        assertEquals(Arrays.asList(1), next.attempts);
        assertNull(next.markers.get(0), "the kill switch: no marker, no retry");
    }

    @Test
    void failOpenWhenTheEngineFailsBeforeTheFirstAttempt() throws IOException {
        RetryEngine engine = engine(exact());
        engine.setPolicy(null);
        FakeExchange exchange = new FakeExchange(Script.of().status(503).status(200));
        FakeResponse response = loop(engine).execute(get(), exchange);
        assertSame(exchange.sent.get(0), response);
        assertEquals(Arrays.asList(1), exchange.attempts);
        assertNull(exchange.markers.get(0));
    }

    @Test
    void aResponseThatFailsToBeReleasedDoesNotReachTheCallerAsAnError() throws IOException {
        FakeExchange exchange = new FakeExchange(Script.of().status(503).status(200));
        exchange.discardFailure = new IllegalStateException("closing the body failed");
        FakeResponse response = loop(exact()).execute(get(), exchange);
        assertSame(exchange.sent.get(1), response);
        assertEquals(Arrays.asList(1, 2), exchange.attempts);
    }

    @Test
    void maxAttemptsOneSendsOnce() throws IOException {
        FakeExchange exchange = new FakeExchange(Script.of().status(503).status(200));
        assertEquals(503, loop(exact(1)).execute(get(), exchange).status);
        assertEquals(Arrays.asList((String) null), exchange.markers, "a request this layer will not retry goes out unmarked");
    }

    @Test
    void aPostWithoutKeyIsSentOnce() {
        FakeExchange exchange = new FakeExchange(Script.of().fail(FailureKind.RESET).status(200));
        IOException thrown = assertThrows(IOException.class, () -> loop(exact()).execute(TestPolicies.call("POST"), exchange));
        assertSame(exchange.thrown.get(0), thrown);
        assertEquals(Arrays.asList((String) null), exchange.markers, "a request this layer will not retry goes out unmarked");
    }
}
