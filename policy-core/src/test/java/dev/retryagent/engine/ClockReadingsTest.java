package dev.retryagent.engine;

import static dev.retryagent.engine.TestPolicies.CLIENT;
import static dev.retryagent.engine.TestPolicies.HOST;
import static dev.retryagent.engine.TestPolicies.call;
import static dev.retryagent.engine.TestPolicies.defaults;
import static dev.retryagent.engine.TestPolicies.facts;
import static dev.retryagent.engine.TestPolicies.get;
import static dev.retryagent.engine.TestPolicies.host;
import static dev.retryagent.engine.TestPolicies.noJitter;
import static dev.retryagent.engine.TestPolicies.policy;
import static dev.retryagent.engine.TestPolicies.rule;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.retryagent.policy.BudgetPolicy;
import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetrySettings;
import java.io.IOException;
import java.util.Arrays;
import java.util.Collections;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Which calls read the clock: one that may be retried (or would be, in observe) reads it once at its start, for its
 * deadline and the budget's window, and again only to decide on a retryable outcome; one that can only be done or
 * refused (a POST without key where no rule retries a request that never left, one attempt allowed, nested, inside a
 * layer above the client, a body that cannot be replayed, mode off) reads it never. The clock here fails the test at
 * any reading it was not told to expect.
 */
class ClockReadingsTest {
    private static final String OTHER = "b.internal";

    private final FakeClock time = new FakeClock();
    private final StrictClock clock = new StrictClock(time);
    private final FakeSleeper sleeper = new FakeSleeper(time);

    @AfterEach
    void leaveEveryLoop() {
        while (UpperLayer.current() != null) {
            UpperLayer.exit();
        }
    }

    /** A clock that counts its readings and fails at one it does not allow. */
    static final class StrictClock implements Clock {
        private final FakeClock time;
        private boolean allowed = true;
        int readings;

        StrictClock(FakeClock time) {
            this.time = time;
        }

        /** From now on, every reading fails the test (with {@code false}). */
        StrictClock allowReadings(boolean allow) {
            this.allowed = allow;
            return this;
        }

        private void read() {
            readings++;
            if (!allowed) {
                throw new AssertionError("the clock was read");
            }
        }

        @Override
        public long nanoTime() {
            read();
            return time.nanoTime();
        }

        @Override
        public long currentTimeMillis() {
            read();
            return time.currentTimeMillis();
        }
    }

    private RetryEngine engine(Policy policy) {
        return new RetryEngine(policy, clock, new FakeRandom(0.5));
    }

    /**
     * A loop over an engine whose destination {@link TestPolicies#HOST} exists already (its first call reads the
     * clock once, to start the destination's budget), with every reading forbidden from then on.
     */
    private RetryLoop strictLoop(RetryEngine engine) throws IOException {
        RetryLoop loop = new RetryLoop(engine, clock, sleeper);
        loop.execute(facts(CLIENT, "GET", HOST, "/items", false, true, true),
                new RetryLoopTest.FakeExchange(Script.of().status(200)));
        clock.allowReadings(false);
        clock.readings = 0;
        return loop;
    }

    /** A policy without jitter, where a POST without key is never retried, not even when it never left. */
    private static Policy exact(UnaryOperator<RetrySettings.Builder> change) {
        return policy(defaults(b -> change.apply(noJitter(b).retryUnsent(false))));
    }

    private static RetrySettings.Builder postsNeverRetried(RetrySettings.Builder b) {
        return noJitter(b).retryUnsent(false);
    }

    private static FakeResponse run(RetryLoop loop, CallFacts call, int... statuses) throws IOException {
        Script script = Script.of();
        for (int status : statuses) {
            script.status(status);
        }
        return loop.execute(call, new RetryLoopTest.FakeExchange(script));
    }

    private static RetryCounters counters(RetryEngine engine) {
        return engine.counters(CLIENT, "https", HOST, 443);
    }

    /** Makes destination {@link #OTHER} exist, reading the clock as its first call does. */
    private void makeOther(RetryLoop loop) throws IOException {
        boolean allowed = clock.allowed;
        int readings = clock.readings;
        clock.allowReadings(true);
        run(loop, facts(CLIENT, "GET", OTHER, "/items", false, true, true), 200);
        clock.allowReadings(allowed);
        clock.readings = readings;
    }

    @Test
    void aPostWithoutKeyReadsNoClockAndIsCountedAndRefusedAsBefore() throws IOException {
        RetryEngine engine = engine(exact(b -> b));
        RetryLoop loop = strictLoop(engine);

        assertEquals(200, run(loop, call("POST"), 200).status);
        assertEquals(503, run(loop, call("POST"), 503, 200).status);

        assertEquals(0, clock.readings);
        assertEquals(3, counters(engine).calls()); // the GET that made the destination, then the two POSTs
        assertEquals(1, counters(engine).giveUps(GiveUpReason.NOT_IDEMPOTENT));
    }

    @Test
    void aFailureOfAPostWithoutKeyReadsNoClock() throws IOException {
        RetryLoop loop = strictLoop(engine(exact(b -> b)));
        RetryLoopTest.FakeExchange exchange = new RetryLoopTest.FakeExchange(Script.of().fail(FailureKind.RESET));
        assertThrows(IOException.class, () -> loop.execute(call("POST"), exchange));
        assertEquals(0, clock.readings);
    }

    /** {@code call}, answered 503 once, goes back at once, refused for {@code reason}, and reads no clock. */
    private void assertRefusedWithoutReading(RetryEngine engine, CallFacts call, GiveUpReason reason)
            throws IOException {
        assertEquals(503, run(strictLoop(engine), call, 503, 200).status);
        assertEquals(0, clock.readings);
        assertEquals(1, counters(engine).giveUps(reason));
    }

    @Test
    void aCallAllowedOneAttemptReadsNoClock() throws IOException {
        assertRefusedWithoutReading(engine(exact(b -> b.maxAttempts(1))), get(), GiveUpReason.ATTEMPTS);
    }

    @Test
    void aNestedCallReadsNoClock() throws IOException {
        assertRefusedWithoutReading(engine(exact(b -> b)), facts(CLIENT, "GET", HOST, "/items", false, true, true),
                GiveUpReason.NESTED);
    }

    @Test
    void aCallInsideAnAttemptOfAnotherReadsNoClockOfItsOwn() throws IOException {
        RetryEngine engine = engine(exact(b -> b));
        RetryLoop loop = strictLoop(engine);
        clock.allowReadings(true);
        RetryLoopTest.FakeExchange outer = new RetryLoopTest.FakeExchange(Script.of().status(200));
        int[] readingsInside = new int[1];
        outer.duringSend = () -> {
            int before = clock.readings;
            try {
                run(loop, get(), 503, 200);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
            readingsInside[0] = clock.readings - before;
        };
        loop.execute(get(), outer);
        assertEquals(0, readingsInside[0]);
        assertEquals(1, clock.readings, "the outer call's start");
        assertEquals(1, counters(engine).giveUps(GiveUpReason.NESTED));
    }

    @Test
    void aCallInsideALayerAboveTheClientReadsNoClock() throws IOException {
        RetryEngine engine = engine(exact(b -> b));
        UpperLayer.enter("spring-retry");
        CallFacts inLayer = CallFacts.builder(CLIENT, "GET", "https", HOST, 443, "/items").build(engine, name -> false);
        assertRefusedWithoutReading(engine, inLayer, GiveUpReason.UPPER_LAYER);
    }

    @Test
    void aBodyThatCannotBeReplayedReadsNoClock() throws IOException {
        assertRefusedWithoutReading(engine(exact(b -> b)), facts(CLIENT, "PUT", HOST, "/items", false, false, false),
                GiveUpReason.BODY_NOT_REPLAYABLE);
    }

    @Test
    void aCallInModeOffReadsNoClock() throws IOException {
        RetryLoop loop = new RetryLoop(engine(exact(b -> b.mode(Mode.OFF))), clock.allowReadings(false), sleeper);
        assertEquals(503, run(loop, get(), 503, 200).status);
        assertEquals(0, clock.readings);
    }

    @Test
    void inObserveAPostWithoutKeyReadsNoClockAndAGetReadsItForItsWouldRetry() throws IOException {
        RetryEngine engine = engine(policy(Mode.OBSERVE, defaults(ClockReadingsTest::postsNeverRetried)));
        RetryLoop loop = strictLoop(engine);
        assertEquals(503, run(loop, call("POST"), 503, 200).status);
        assertEquals(0, clock.readings);
        assertEquals(1, counters(engine).giveUps(GiveUpReason.NOT_IDEMPOTENT));

        clock.allowReadings(true);
        assertEquals(503, run(loop, get(), 503, 200).status);
        assertEquals(2, clock.readings, "the start, for the deadline; the decision, for the deadline and the budget");
        assertEquals(1, counters(engine).wouldRetry());
    }

    @Test
    void aCallThatSucceedsAtOnceReadsTheClockOnceAndARetryableOutcomeOnceMore() throws IOException {
        RetryEngine engine = engine(exact(b -> b));
        RetryLoop loop = strictLoop(engine);
        clock.allowReadings(true);
        run(loop, get(), 200);
        assertEquals(1, clock.readings);
        run(loop, get(), 503, 200);
        assertEquals(1 + 2, clock.readings);
        assertEquals(1, counters(engine).retries());
    }

    @Test
    void theAsyncLoopReadsNoClockForAPostWithoutKey() throws IOException {
        RetryEngine engine = engine(exact(b -> b));
        strictLoop(engine);
        AsyncRetryLoop loop = new AsyncRetryLoop(engine, clock, new FakeScheduler(time));
        AsyncRetryLoopTest.Caller caller = new AsyncRetryLoopTest.Caller();
        loop.execute(call("POST"), new AsyncRetryLoopTest.FakeAsyncExchange(Script.of().status(503), true), caller);
        assertEquals(503, ((FakeResponse) caller.only()).status);
        assertEquals(0, clock.readings);
        assertEquals(1, counters(engine).giveUps(GiveUpReason.NOT_IDEMPOTENT));
    }

    /** A client that followed a redirect inside the attempt to {@link #OTHER}. */
    private static RetryLoopTest.FakeExchange redirectedToOther(Script script) {
        return new RetryLoopTest.FakeExchange(script) {
            @Override
            public CallFacts decidedUnder(CallFacts call, FakeResponse response) {
                return call.redirectedTo("https", OTHER, 443, "/items");
            }
        };
    }

    @Test
    void aPostWithoutKeyRedirectedElsewhereReadsNoClockAndIsCountedAtBoth() throws IOException {
        RetrySettings d = defaults(ClockReadingsTest::postsNeverRetried);
        RetryEngine engine = engine(policy(d, rule(0, host(OTHER), d, b -> b.maxAttempts(4))));
        RetryLoop loop = strictLoop(engine);
        makeOther(loop);

        FakeResponse response = loop.execute(call("POST"), redirectedToOther(Script.of().status(503)));

        assertEquals(503, response.status);
        assertEquals(0, clock.readings);
        // Each destination: the call that made it, and the POST.
        assertEquals(2, counters(engine).calls());
        assertEquals(2, engine.counters(CLIENT, "https", OTHER, 443).calls());
        assertEquals(1, engine.counters(CLIENT, "https", OTHER, 443).giveUps(GiveUpReason.NOT_IDEMPOTENT));
    }

    @Test
    void aCallThatAnotherRuleCouldRetryReadsItsStartForTheDeadlineThere() throws IOException {
        // One attempt at the call's own host, but a redirect may take it to a host whose rule retries GETs: there the
        // deadline counts from the call's start, so the attempt that ran out of time is not retried.
        RetrySettings d = defaults(b -> noJitter(b).maxAttempts(1));
        RetryEngine engine = engine(policy(d, rule(0, host(OTHER), d, b -> b.maxAttempts(3).deadlineMillis(1_000))));
        RetryLoop loop = strictLoop(engine);
        makeOther(loop);
        clock.allowReadings(true);

        RetryLoopTest.FakeExchange exchange = redirectedToOther(Script.of().status(503).status(200)).taking(time, 950);
        FakeResponse response = loop.execute(get(), exchange);

        assertEquals(503, response.status);
        assertEquals(Arrays.asList(1), exchange.attempts);
        assertEquals(1, engine.counters(CLIENT, "https", OTHER, 443).giveUps(GiveUpReason.DEADLINE));
        assertEquals(2, clock.readings, "the start, and the decision on time");
    }

    @Test
    void aPostWithoutKeyReadsTheClockWhereSomeRuleRetriesPosts() throws IOException {
        RetrySettings d = defaults(TestPolicies::noJitter);
        RetryEngine engine = engine(policy(d, rule(0, host(OTHER), d,
                b -> b.idempotentMethods(Collections.singletonList("POST")))));
        RetryLoop loop = strictLoop(engine);
        clock.allowReadings(true);
        run(loop, call("POST"), 200);
        assertEquals(1, clock.readings);
    }

    @Test
    void aPostWithoutKeyReadsItsStartWhereARequestThatNeverLeftIsRetried() throws IOException {
        RetryEngine engine = engine(policy(defaults(TestPolicies::noJitter)));
        RetryLoop loop = strictLoop(engine);
        clock.allowReadings(true);
        run(loop, call("POST"), 200);
        assertEquals(1, clock.readings, "the start, for the deadline of a retry after a refused connection");
    }

    @Test
    void theFirstAttemptsOfCallsThatReadNoClockCountInTheBudget() throws IOException {
        // Ratio 0.5 and no floor. The call that made the destination, two POSTs and the GET are four first attempts:
        // two retries (without the POSTs, one).
        RetryEngine engine = engine(exact(b -> b.maxAttempts(4).budget(new BudgetPolicy(0.5, 0))));
        RetryLoop loop = strictLoop(engine);
        run(loop, call("POST"), 200);
        run(loop, call("POST"), 200);
        assertEquals(0, clock.readings);
        clock.allowReadings(true);

        RetryLoopTest.FakeExchange exchange = new RetryLoopTest.FakeExchange(
                Script.of().status(503).status(503).status(503).status(200));
        FakeResponse response = loop.execute(get(), exchange);

        assertEquals(503, response.status);
        assertEquals(Arrays.asList(1, 2, 3), exchange.attempts);
        assertEquals(2, counters(engine).retries());
        assertEquals(1, counters(engine).budgetRefusals());
    }

    @Test
    void redirectedFactsThatNamedNoPolicyAreDecidedUnderTheOneTheCallStartedWith() throws IOException {
        RetrySettings d = defaults(ClockReadingsTest::postsNeverRetried);
        RetryEngine engine = engine(policy(d));
        RetryLoop loop = strictLoop(engine);
        makeOther(loop);
        Policy after = policy(d, rule(0, host(OTHER), d, b -> b.idempotentMethods(Collections.singletonList("POST"))));
        RetryLoopTest.FakeExchange exchange = new RetryLoopTest.FakeExchange(Script.of().status(503).status(200)) {
            @Override
            public CallFacts decidedUnder(CallFacts call, FakeResponse response) {
                return call.redirectedTo("https", OTHER, 443, "/");
            }
        };
        exchange.duringSend = () -> engine.setPolicy(after);
        CallFacts post = call("POST");

        assertEquals(503, loop.execute(post, exchange).status);
        assertEquals(Arrays.asList(1), exchange.attempts);
        RetryCounters other = engine.counters(CLIENT, "https", OTHER, 443);
        assertEquals(1, other.giveUps(GiveUpReason.NOT_IDEMPOTENT), "decided under the policy the call started with");
        assertNull(post.redirectedTo("https", OTHER, 443, "/").policy(), "the run, not the facts, names the policy");
    }
}
