package dev.retryagent.engine;

import static dev.retryagent.engine.TestPolicies.CLIENT;
import static dev.retryagent.engine.TestPolicies.HOST;
import static dev.retryagent.engine.TestPolicies.defaults;
import static dev.retryagent.engine.TestPolicies.exact;
import static dev.retryagent.engine.TestPolicies.facts;
import static dev.retryagent.engine.TestPolicies.get;
import static dev.retryagent.engine.TestPolicies.noJitter;
import static dev.retryagent.engine.TestPolicies.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.policy.BackoffPolicy;
import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Jitter;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetrySettings;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

/**
 * The asynchronous loop with a fake client that completes attempts when the test says so (or at once,
 * inside send), and a fake scheduler that runs retries when the test says so. Nothing sleeps.
 */
class AsyncRetryLoopTest {
    private final FakeClock clock = new FakeClock();
    private final FakeRandom random = new FakeRandom(0.5);
    private final FakeScheduler scheduler = new FakeScheduler(clock);

    private RetryEngine engine(Policy policy) {
        return new RetryEngine(policy, clock, random);
    }

    private AsyncRetryLoop loop(RetryEngine engine) {
        return new AsyncRetryLoop(engine, clock, scheduler);
    }

    private AsyncRetryLoop loop(Policy policy) {
        return loop(engine(policy));
    }

    /** The application's callback: records every call, so that "exactly once" can be checked. */
    static final class Caller implements CallCompletion<FakeResponse> {
        final List<Object> results = new ArrayList<>();

        @Override
        public void onResponse(FakeResponse response) {
            results.add(response);
        }

        @Override
        public void onFailure(IOException failure) {
            results.add(failure);
        }

        Object only() {
            assertEquals(1, results.size(), "the caller's callback fires exactly once: " + results);
            return results.get(0);
        }
    }

    /**
     * A client that plays a script. With {@code inline}, an attempt completes inside send, on the
     * caller's thread (as a client may do for an immediate failure); otherwise the test completes it.
     */
    static class FakeAsyncExchange implements AsyncExchange<FakeResponse> {
        final Script script;
        final boolean inline;
        final List<Integer> attempts = new ArrayList<>();
        final List<String> markers = new ArrayList<>();
        final List<Integer> scopes = new ArrayList<>();
        final List<FakeResponse> sent = new ArrayList<>();
        final List<FakeResponse> discarded = new ArrayList<>();
        final List<IOException> failed = new ArrayList<>();
        final List<AsyncAttempt<FakeResponse>> pending = new ArrayList<>();
        /** Attempts whose response arrived and that have not finished yet (with {@link #finishLater}). */
        final List<AsyncAttempt<FakeResponse>> unfinished = new ArrayList<>();
        /** Whether an attempt whose response is dropped finishes only when the test says so. */
        boolean finishLater;
        volatile boolean cancelled;
        RuntimeException outcomeFailure;
        RuntimeException sendFailureFromAttempt2;
        int sendDepth;
        int maxSendDepth;

        FakeAsyncExchange(Script script, boolean inline) {
            this.script = script;
            this.inline = inline;
        }

        @Override
        public void send(int attempt, int scope, String marker, long limitMillis,
                         AsyncAttempt<FakeResponse> callback) {
            limits.add(limitMillis);
            send(attempt, scope, marker, callback);
        }

        final List<Long> limits = new ArrayList<>();

        @Override
        public void send(int attempt, int scope, String marker, AsyncAttempt<FakeResponse> callback) {
            if (attempt >= 2 && sendFailureFromAttempt2 != null) {
                throw sendFailureFromAttempt2;
            }
            attempts.add(attempt);
            markers.add(marker);
            scopes.add(scope);
            sendDepth++;
            maxSendDepth = Math.max(maxSendDepth, sendDepth);
            try {
                if (inline) {
                    complete(attempt, callback);
                } else {
                    pending.add(callback);
                }
            } finally {
                sendDepth--;
            }
        }

        /** Completes the oldest attempt still in flight. */
        void completeNext() {
            assertEquals(1, pending.size(), "one attempt in flight");
            AsyncAttempt<FakeResponse> callback = pending.remove(0);
            complete(attempts.get(attempts.size() - 1), callback);
        }

        /** The oldest attempt whose response arrived finishes (its body read, its connection released). */
        void finishNext() {
            unfinished.remove(0).finished();
        }

        private void complete(int attempt, AsyncAttempt<FakeResponse> callback) {
            IOException failure = script.failureAt(attempt);
            if (failure != null) {
                failed.add(failure);
                callback.failed(failure);
            } else {
                FakeResponse response = script.responseAt(attempt);
                sent.add(response);
                boolean delivered = callback.arrived(response);
                if (delivered || !finishLater) {
                    callback.finished();
                } else {
                    unfinished.add(callback);
                }
            }
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
            return script.kindOf(failure);
        }

        @Override
        public void discard(FakeResponse response) {
            discarded.add(response);
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }
    }

    @Test
    void aFirstAttemptSuccessIsDeliveredOnceWithoutScheduling() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(200), false);
        Caller caller = new Caller();
        loop(exact()).execute(get(), exchange, caller);
        assertTrue(caller.results.isEmpty(), "not before the attempt completes");
        exchange.completeNext();
        assertSame(exchange.sent.get(0), caller.only());
        assertEquals(Arrays.asList("1"), exchange.markers);
        assertEquals(0, scheduler.pendingCount());
        assertTrue(exchange.discarded.isEmpty());
    }

    @Test
    void retriesGoThroughTheSchedulerNeverFromTheCallback() {
        RetryEngine engine = engine(exact());
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).fail(FailureKind.RESET).status(200), false);
        Caller caller = new Caller();
        loop(engine).execute(get(), exchange, caller);

        exchange.completeNext();
        assertEquals(1, exchange.attempts.size(), "the callback did not send the retry itself");
        assertEquals(1, scheduler.pendingCount());
        assertEquals(Arrays.asList(exchange.sent.get(0)), exchange.discarded, "released before the wait");
        assertTrue(scheduler.runNext());
        assertEquals(Arrays.asList(1, 2), exchange.attempts);

        exchange.completeNext();
        assertEquals(2, exchange.attempts.size());
        assertTrue(scheduler.runNext());
        exchange.completeNext();

        assertSame(exchange.sent.get(1), caller.only());
        assertEquals(Arrays.asList("1", "2", "3"), exchange.markers);
        assertEquals(Arrays.asList(100L, 200L), scheduler.delays(), "the delays are the decided waits");
        assertEquals(Arrays.asList(exchange.sent.get(0)), exchange.discarded);
        assertEquals(0, scheduler.pendingCount());
        RetryCounters c = engine.counters(CLIENT, "https", HOST, 443);
        assertEquals(1, c.calls());
        assertEquals(3, c.attempts());
        assertEquals(1, c.successesAfterRetry());
    }

    @Test
    void eachAttemptIsBoundedByTheAttemptTimeoutAndTheTimeLeftBeforeTheDeadline() {
        Policy bounded = policy(defaults(b -> noJitter(b).deadlineMillis(1_000).attemptTimeoutMillis(800)));
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(503).status(200), true);
        Caller caller = new Caller();
        loop(bounded).execute(get(), exchange, caller);
        assertEquals(2, scheduler.runAll());
        assertEquals(200, ((FakeResponse) caller.only()).status);
        // waits of 100 and 200 ms: 900 ms left for the second attempt (800 of them), 700 for the third
        assertEquals(Arrays.asList(800L, 800L, 700L), exchange.limits);

        FakeAsyncExchange unbounded = new FakeAsyncExchange(Script.of().status(503).status(200), true);
        loop(exact()).execute(get(), unbounded, new Caller());
        scheduler.runAll();
        assertEquals(Arrays.asList(0L, 0L), unbounded.limits, "no attemptTimeout: the client's own timeouts");
    }

    @Test
    void anAttemptThatCompletesInsideSendStillHasItsRetryScheduled() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(
                Script.of().fail(FailureKind.CONNECT).fail(FailureKind.CONNECT).status(503), true);
        Caller caller = new Caller();
        loop(exact()).execute(get(), exchange, caller);
        assertEquals(1, exchange.attempts.size());
        assertEquals(1, scheduler.pendingCount());
        assertEquals(2, scheduler.runAll());
        assertEquals(1, exchange.maxSendDepth, "no attempt was sent from inside another");
        assertSame(exchange.sent.get(0), caller.only());
        assertEquals(503, exchange.sent.get(0).status);
    }

    @Test
    void theLastFailureIsDeliveredAsTheSameInstance() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(
                Script.of().fail(FailureKind.RESET).fail(FailureKind.TIMEOUT).fail(FailureKind.RESET), true);
        Caller caller = new Caller();
        loop(exact()).execute(get(), exchange, caller);
        scheduler.runAll();
        assertEquals(3, exchange.attempts.size());
        assertSame(exchange.failed.get(2), caller.only());
    }

    @Test
    void theLastResponseIsDeliveredUndiscardedWhenAttemptsRunOut() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(502).status(504), true);
        Caller caller = new Caller();
        loop(exact()).execute(get(), exchange, caller);
        scheduler.runAll();
        assertSame(exchange.sent.get(2), caller.only());
        assertEquals(Arrays.asList(exchange.sent.get(0), exchange.sent.get(1)), exchange.discarded);
    }

    @Test
    void aNonRetryableOutcomeIsDeliveredAtOnce() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().fail(FailureKind.OTHER), true);
        Caller caller = new Caller();
        loop(exact()).execute(get(), exchange, caller);
        assertSame(exchange.failed.get(0), caller.only());
        assertEquals(0, scheduler.pendingCount());
    }

    @Test
    void theSchedulersClockCountsTowardsTheDeadline() {
        Policy tight = policy(defaults(b -> noJitter(b).maxAttempts(10).deadlineMillis(250)));
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(503).status(200), true);
        Caller caller = new Caller();
        loop(tight).execute(get(), exchange, caller);
        scheduler.runAll();
        // 100 ms waited; then 100 + 200 would reach 250 ms.
        assertEquals(Arrays.asList(100L), scheduler.delays());
        assertSame(exchange.sent.get(1), caller.only());
    }

    @Test
    void theWaitBeforeEachRetryIsPassedOnForDecorrelatedJitter() {
        Policy decorrelated = policy(defaults(b -> b.maxAttempts(4).deadlineMillis(60_000)
                .backoff(new BackoffPolicy(100, 2000, 2.0, Jitter.DECORRELATED))));
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(503).status(503).status(200), true);
        loop(decorrelated).execute(get(), exchange, new Caller());
        scheduler.runAll();
        assertEquals(Arrays.asList(200L, 350L, 575L), scheduler.delays());
    }

    @Test
    void cancelBeforeTheScheduledRetryStopsIt() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(200), true);
        Caller caller = new Caller();
        loop(exact()).execute(get(), exchange, caller);
        assertEquals(1, scheduler.pendingCount());
        exchange.cancelled = true;
        scheduler.runAll();
        assertEquals(1, exchange.attempts.size(), "no attempt after the cancel");
        Object result = caller.only();
        assertTrue(result instanceof IOException, "a cancelled call fails: " + result);
    }

    @Test
    void cancelBeforeTheScheduledRetryAfterAFailureDeliversThatFailure() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().fail(FailureKind.RESET).status(200), true);
        Caller caller = new Caller();
        loop(exact()).execute(get(), exchange, caller);
        exchange.cancelled = true;
        scheduler.runAll();
        assertEquals(1, exchange.attempts.size());
        assertSame(exchange.failed.get(0), caller.only());
    }

    @Test
    void anAttemptEndingAfterACancelIsDeliveredAsIs() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(200), false);
        Caller caller = new Caller();
        loop(exact()).execute(get(), exchange, caller);
        exchange.cancelled = true;
        exchange.completeNext();
        assertSame(exchange.sent.get(0), caller.only());
        assertEquals(0, scheduler.pendingCount());
        assertTrue(exchange.discarded.isEmpty());
    }

    @Test
    void observeModeSendsOnceWithoutMarker() {
        RetryEngine engine = engine(policy(Mode.OBSERVE, RetrySettings.builtIn()));
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(200), true);
        Caller caller = new Caller();
        loop(engine).execute(get(), exchange, caller);
        assertSame(exchange.sent.get(0), caller.only());
        assertNull(exchange.markers.get(0));
        assertEquals(0, scheduler.pendingCount());
        assertEquals(1, engine.counters(CLIENT, "https", HOST, 443).wouldRetry());
    }

    @Test
    void offModeHandsTheCallersCallbackToTheClient() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(200), false);
        Caller caller = new Caller();
        loop(policy(Mode.OFF, RetrySettings.builtIn())).execute(get(), exchange, caller);
        assertNull(exchange.markers.get(0));
        AsyncAttempt<FakeResponse> attempt = exchange.pending.get(0);
        exchange.completeNext();
        assertSame(exchange.sent.get(0), caller.only(), "the 503 goes straight to the caller");
        assertTrue(attempt.delivered());
        assertEquals(0, scheduler.pendingCount());
    }

    @Test
    void aRequestAlreadyMarkedIsSentOnceWithoutAnotherMarker() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(200), true);
        Caller caller = new Caller();
        loop(exact()).execute(facts(CLIENT, "GET", HOST, "/", false, true, true), exchange, caller);
        assertSame(exchange.sent.get(0), caller.only());
        assertNull(exchange.markers.get(0));
        assertEquals(0, scheduler.pendingCount());
    }

    /**
     * An async call started inside an attempt of a sync call (an interceptor that enqueues its own call and waits)
     * is nested: decided on the starting thread, it holds for every later decision, on whatever thread.
     */
    @Test
    void aCallStartedInsideAnAttemptIsSentOnceWithTheEnclosingAttemptsNumber() {
        RetryEngine engine = engine(exact());
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(200), false);
        Caller caller = new Caller();
        int outer = AttemptScope.enter(2);
        try {
            loop(engine).execute(get(), exchange, caller);
        } finally {
            AttemptScope.exit(outer);
        }
        exchange.completeNext(); // on "another thread": the scope is gone
        assertSame(exchange.sent.get(0), caller.only());
        assertEquals(Arrays.asList("2"), exchange.markers);
        assertEquals(Arrays.asList(2), exchange.scopes, "its attempt stays in the enclosing scope");
        assertEquals(0, scheduler.pendingCount());
        assertEquals(1, engine.counters(CLIENT, "https", HOST, 443).giveUps(GiveUpReason.NESTED));
    }

    @Test
    void eachAttemptOfACallThisLayerMayRetryCarriesItsScopeAndMarker() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(200), true);
        Caller caller = new Caller();
        loop(exact()).execute(get(), exchange, caller);
        scheduler.runAll();
        assertEquals(Arrays.asList(1, 2), exchange.scopes);
        assertEquals(Arrays.asList("1", "2"), exchange.markers);
    }

    @Test
    void aCallThisLayerWillNotRetryGoesOutUnmarkedAndOpensNoScope() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(200), true);
        Caller caller = new Caller();
        loop(exact()).execute(TestPolicies.call("POST"), exchange, caller);
        assertSame(exchange.sent.get(0), caller.only());
        assertEquals(Arrays.asList(0), exchange.scopes);
        assertEquals(Arrays.asList((String) null), exchange.markers);
    }

    @Test
    void failOpenWhenTheOutcomeCannotBeRead() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(200), true);
        exchange.outcomeFailure = new IllegalStateException("adapter bug");
        Caller caller = new Caller();
        loop(exact()).execute(get(), exchange, caller);
        assertSame(exchange.sent.get(0), caller.only());
        assertTrue(exchange.discarded.isEmpty());
        assertEquals(0, scheduler.pendingCount());
    }

    @Test
    void failOpenWhenTheEngineFailsBeforeTheFirstAttempt() {
        RetryEngine engine = engine(exact());
        engine.setPolicy(null);
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(200), false);
        Caller caller = new Caller();
        loop(engine).execute(get(), exchange, caller);
        assertNull(exchange.markers.get(0));
        exchange.completeNext();
        assertSame(exchange.sent.get(0), caller.only(), "the client's response goes to the application as it is");
        assertEquals(0, scheduler.pendingCount());
    }

    @Test
    void aRejectingSchedulerDeliversTheResponseInHand() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(200), true);
        Caller caller = new Caller();
        Scheduler rejecting = (task, delay) -> {
            throw new RejectedExecutionException("shut down");
        };
        new AsyncRetryLoop(engine(exact()), clock, rejecting).execute(get(), exchange, caller);
        assertSame(exchange.sent.get(0), caller.only());
        assertTrue(exchange.discarded.isEmpty(), "the response the caller gets was not released");
    }

    @Test
    void aRejectingSchedulerDeliversTheFailureInHand() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().fail(FailureKind.RESET).status(200), true);
        Caller caller = new Caller();
        Scheduler rejecting = (task, delay) -> {
            throw new RejectedExecutionException("shut down");
        };
        new AsyncRetryLoop(engine(exact()), clock, rejecting).execute(get(), exchange, caller);
        assertSame(exchange.failed.get(0), caller.only());
    }

    @Test
    void aRetryThatCannotBeSentStillCallsTheCallerBackOnce() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().fail(FailureKind.RESET).status(200), true);
        exchange.sendFailureFromAttempt2 = new IllegalStateException("Already Executed");
        Caller caller = new Caller();
        loop(exact()).execute(get(), exchange, caller);
        scheduler.runAll();
        assertSame(exchange.failed.get(0), caller.only());
    }

    @Test
    void anExceptionFromTheCallersOwnCallbackIsNotMistakenForAFailedSend() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(200), true);
        List<Object> seen = new ArrayList<>();
        CallCompletion<FakeResponse> throwing = new CallCompletion<FakeResponse>() {
            @Override
            public void onResponse(FakeResponse response) {
                seen.add(response);
                throw new IllegalStateException("application bug");
            }

            @Override
            public void onFailure(IOException failure) {
                seen.add(failure);
            }
        };
        loop(exact()).execute(get(), exchange, throwing);
        IllegalStateException thrown = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                scheduler::runNext, "the application's exception is the client's business, as without the agent");
        assertEquals("application bug", thrown.getMessage());
        assertEquals(Arrays.asList(exchange.sent.get(1)), seen, "called back once, with the response");
    }

    @Test
    void aRetryOfAResponseThatCannotBeSentStillCallsTheCallerBackOnce() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(200), true);
        exchange.sendFailureFromAttempt2 = new IllegalStateException("Already Executed");
        Caller caller = new Caller();
        loop(exact()).execute(get(), exchange, caller);
        scheduler.runAll();
        assertTrue(caller.only() instanceof IOException, "the 503 was released before the wait; the caller gets a failure");
    }

    @Test
    void theNextAttemptWaitsUntilThePreviousHasFinishedAndStartsFromItsEnd() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(200), false);
        exchange.finishLater = true;
        Caller caller = new Caller();
        loop(exact()).execute(get(), exchange, caller);
        exchange.completeNext();
        assertTrue(scheduler.runNext(), "the wait is over");
        assertEquals(Arrays.asList(1), exchange.attempts, "the dropped body is still being read");
        exchange.finishNext();
        assertEquals(Arrays.asList(1, 2), exchange.attempts, "started from the end of the attempt before");
        exchange.completeNext();
        assertSame(exchange.sent.get(1), caller.only());
    }

    @Test
    void anAttemptThatFinishedDuringTheWaitHasTheNextStartedByTheScheduler() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(200), false);
        exchange.finishLater = true;
        Caller caller = new Caller();
        loop(exact()).execute(get(), exchange, caller);
        exchange.completeNext();
        exchange.finishNext();
        assertEquals(Arrays.asList(1), exchange.attempts, "not before the wait is over");
        assertTrue(scheduler.runNext());
        assertEquals(Arrays.asList(1, 2), exchange.attempts);
        exchange.completeNext();
        assertSame(exchange.sent.get(1), caller.only());
    }

    @Test
    void anAttemptIsReportedOnceAndTheFailureOfItsDroppedBodyEndsIt() {
        RetryEngine engine = engine(exact());
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(200), false);
        exchange.finishLater = true;
        Caller caller = new Caller();
        loop(engine).execute(get(), exchange, caller);
        exchange.completeNext();
        AsyncAttempt<FakeResponse> first = exchange.unfinished.remove(0);
        assertTrue(first.reported());
        assertTrue(!first.arrived(new FakeResponse(1, 200, null)), "a second head is dropped");
        first.failed(new IOException("body cut short"));
        first.failed(new IOException("and again"));
        assertEquals(Arrays.asList(1), exchange.attempts);
        assertTrue(scheduler.runNext());
        assertEquals(Arrays.asList(1, 2), exchange.attempts, "the retry goes ahead once the attempt has ended");
        exchange.completeNext();
        assertSame(exchange.sent.get(1), caller.only());
        assertEquals(2, engine.counters(CLIENT, "https", HOST, 443).attempts(), "each attempt decided once");
        assertEquals(0, scheduler.pendingCount());
    }

    @Test
    void aFailureAfterTheFailureReportedIsDropped() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().fail(FailureKind.OTHER), false);
        Caller caller = new Caller();
        loop(exact()).execute(get(), exchange, caller);
        AsyncAttempt<FakeResponse> attempt = exchange.pending.get(0);
        exchange.completeNext();
        attempt.failed(new IOException("late"));
        assertTrue(!attempt.arrived(new FakeResponse(1, 200, null)));
        assertSame(exchange.failed.get(0), caller.only());
        assertTrue(!attempt.delivered());
    }

    @Test
    void theEventsOfADeliveredAttemptAfterItsResponseAreTheAdaptersToPassOn() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(200), false);
        Caller caller = new Caller();
        loop(exact()).execute(get(), exchange, caller);
        AsyncAttempt<FakeResponse> attempt = exchange.pending.get(0);
        exchange.completeNext();
        assertTrue(attempt.delivered());
        attempt.failed(new IOException("body failed"));
        attempt.finished();
        assertSame(exchange.sent.get(0), caller.only());
        assertEquals(0, scheduler.pendingCount());
    }

    @Test
    void aCallCancelledWhileTheAttemptBeforeFinishesStartsNoMore() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(200), false);
        exchange.finishLater = true;
        Caller caller = new Caller();
        loop(exact()).execute(get(), exchange, caller);
        exchange.completeNext();
        assertTrue(scheduler.runNext());
        exchange.cancelled = true;
        exchange.finishNext();
        assertEquals(Arrays.asList(1), exchange.attempts, "nothing sent after the cancel");
        assertTrue(caller.only() instanceof IOException);
    }

    @Test
    void aCallCancelledDuringTheWaitIsCalledBackAtOnceEvenIfTheAttemptBeforeNeverFinishes() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().fail(FailureKind.RESET).status(200), false);
        Caller caller = new Caller();
        loop(exact()).execute(get(), exchange, caller);
        exchange.completeNext();
        exchange.cancelled = true;
        assertTrue(scheduler.runNext());
        assertSame(exchange.failed.get(0), caller.only(), "the last failure");
        assertEquals(Arrays.asList(1), exchange.attempts);
    }

    @Test
    void anAttemptHandedOverGoesToTheApplicationWithoutADecision() {
        RetryEngine engine = engine(exact());
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(200), false);
        Caller caller = new Caller();
        loop(engine).execute(get(), exchange, caller);
        AsyncAttempt<FakeResponse> attempt = exchange.pending.get(0);
        assertTrue(attempt.handOver());
        assertTrue(attempt.delivered());
        assertTrue(!attempt.handOver(), "once");
        assertTrue(!attempt.arrived(new FakeResponse(1, 503, null)));
        attempt.failed(new IOException("late"));
        assertTrue(caller.results.isEmpty(), "the adapter gives the application the response itself");
        assertEquals(0, scheduler.pendingCount());
    }
}
