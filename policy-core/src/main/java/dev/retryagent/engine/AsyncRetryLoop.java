package dev.retryagent.engine;

import java.io.IOException;

/**
 * The asynchronous form of {@link RetryLoop}: each attempt's report ({@link AsyncAttempt}) asks the engine, and a
 * retry is scheduled on the {@link Scheduler} instead of slept. The loop keeps the order of a call's attempts: each is
 * reported once; the next starts only when the wait is over and the previous one has finished (its connection
 * released), from whichever of the two comes last; a cancelled call starts no more; and the caller's callback fires
 * once, with the final response or failure. Fails open: if the engine or the scheduler fails, the attempt in hand
 * goes back to the caller as the client produced it.
 */
public final class AsyncRetryLoop {
    private final RetryEngine engine;
    private final Clock clock;
    private final Scheduler scheduler;
    private final CallTracer tracer;

    public AsyncRetryLoop(RetryEngine engine, Clock clock, Scheduler scheduler) {
        this(engine, clock, scheduler, CallTracer.NONE);
    }

    public AsyncRetryLoop(RetryEngine engine, Clock clock, Scheduler scheduler, CallTracer tracer) {
        this.engine = engine;
        this.clock = clock;
        this.scheduler = scheduler;
        this.tracer = tracer;
    }

    /** This loop with its waits on {@code waits}: the same engine, clock and tracer. */
    public AsyncRetryLoop withScheduler(Scheduler waits) {
        return new AsyncRetryLoop(engine, clock, waits, tracer);
    }

    /**
     * Runs {@code call} asynchronously. A call started while this thread is making an attempt of another call (see
     * {@link AttemptScope}) is nested: it is executed exactly once, and its marker, if any, carries the enclosing
     * attempt's number. That is decided here, on the starting thread, and travels with the call's facts. A call the
     * loop leaves alone is sent once, its attempt reporting straight to {@code caller}.
     */
    public <R> void execute(CallFacts call, AsyncExchange<R> exchange, CallCompletion<R> caller) {
        CallRun run = new CallRun();
        execute(run.start(engine, clock, tracer, call, null, AttemptScope.current(), "async-retry-loop.start"), run,
                exchange, caller);
    }

    /**
     * {@link #execute(CallFacts, AsyncExchange, CallCompletion)} for {@code call}, planned already by this loop's
     * engine as {@code plan}.
     */
    public <R> void execute(CallFacts call, CallPlan plan, AsyncExchange<R> exchange, CallCompletion<R> caller) {
        CallRun run = new CallRun();
        execute(run.start(engine, clock, tracer, call, plan, AttemptScope.current(), "async-retry-loop.start"), run,
                exchange, caller);
    }

    private <R> void execute(boolean started, CallRun run, AsyncExchange<R> exchange, CallCompletion<R> caller) {
        if (!started) {
            exchange.send(1, 0, null, new AsyncAttempt<R>(this, null, exchange, caller, 1, 0));
            return;
        }
        run.limitByCaller(exchange, "async-retry-loop.caller-limit");
        send(new AsyncAttempt<R>(this, run, exchange, caller, 1, 0));
    }

    /**
     * Sends {@code attempt}. An exception that the client throws from send before the attempt has been reported is
     * the client's own for the first attempt and propagates, as it would without the agent; for a retry it is
     * returned, so that the caller can still be called back.
     */
    private <R> RuntimeException send(AsyncAttempt<R> attempt) {
        int n = attempt.number;
        CallTrace.Scope traced = attempt.run.traceAttempt(n);
        try {
            attempt.exchange.send(n, attempt.run.scope(n), attempt.run.markerValue(n), attempt.run.attemptLimitMillis(),
                    attempt);
        } catch (RuntimeException e) {
            // Thrown after the attempt was reported inline, it came from the application's own callback.
            if (n == 1 || attempt.reported()) {
                throw e;
            }
            return e;
        } finally {
            if (traced != null) {
                traced.close();
            }
        }
        return null;
    }

    /** {@code attempt} ended with {@code response} or {@code failure}: deliver it, or schedule the next attempt. */
    <R> void ended(final AsyncAttempt<R> attempt, R response, IOException failure) {
        AsyncExchange<R> exchange = attempt.exchange;
        RetryDecision decision = attempt.run.decide(exchange, attempt.number, response, failure,
                attempt.previousWaitMillis, exchange.isCancelled(), "async-retry-loop.decide");
        if (!decision.shouldRetry()) {
            deliver(attempt, response, failure);
            return;
        }
        attempt.waitMillis = decision.waitMillis();
        attempt.failure = failure;
        try {
            scheduler.schedule(new Runnable() {
                @Override
                public void run() {
                    if (!cancelled(attempt) && attempt.due()) {
                        startNext(attempt);
                    }
                }
            }, attempt.waitMillis);
        } catch (RuntimeException e) {
            // A scheduler that is shut down (or broken): the attempt in hand goes back to the caller.
            RetryLog.internalError("async-retry-loop.schedule", e);
            deliver(attempt, response, failure);
            return;
        }
        if (response != null) {
            // Released right after the retry is scheduled, not before: had scheduling failed, the
            // caller would have got this response.
            try {
                exchange.discard(response);
            } catch (RuntimeException e) {
                RetryLog.internalError("async-retry-loop.discard", e);
            }
        }
    }

    /**
     * Starts the attempt after {@code previous}, whose wait is over and which has finished: on the scheduler's thread,
     * or on the client's, from the end of {@code previous}.
     */
    <R> void startNext(AsyncAttempt<R> previous) {
        if (cancelled(previous)) {
            return;
        }
        RuntimeException notSent = send(new AsyncAttempt<R>(this, previous.run, previous.exchange, previous.caller,
                previous.number + 1, previous.waitMillis));
        if (notSent != null) {
            // Fail open: the caller is still called back, once. The last response was
            // released before the wait, so a failure is all there is to give.
            RetryLog.internalError("async-retry-loop.send", notSent);
            IOException failed = previous.failure;
            if (failed == null) {
                failed = new IOException("retry-agent: the retry could not be sent");
                failed.initCause(notSent);
            }
            previous.caller.onFailure(failed);
        }
    }

    /** Whether the call was cancelled during the wait after {@code previous}: then the caller has been called back. */
    private static <R> boolean cancelled(AsyncAttempt<R> previous) {
        if (!previous.exchange.isCancelled()) {
            return false;
        }
        IOException last = previous.failure;
        previous.caller.onFailure(last != null ? last : new IOException("Canceled"));
        return true;
    }

    private static <R> void deliver(AsyncAttempt<R> attempt, R response, IOException failure) {
        if (failure != null) {
            attempt.caller.onFailure(failure);
        } else {
            attempt.deliver();
            attempt.caller.onResponse(response);
        }
    }
}
