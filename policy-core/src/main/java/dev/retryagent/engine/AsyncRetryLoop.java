package dev.retryagent.engine;

import dev.retryagent.policy.Mode;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The asynchronous form of {@link RetryLoop}: each attempt's callback asks the engine, and a retry is
 * scheduled on the {@link Scheduler} instead of slept. The caller's callback fires once, with the final
 * response or failure.
 */
public final class AsyncRetryLoop {
    private final RetryEngine engine;
    private final Clock clock;
    private final Scheduler scheduler;

    public AsyncRetryLoop(RetryEngine engine, Clock clock, Scheduler scheduler) {
        this.engine = engine;
        this.clock = clock;
        this.scheduler = scheduler;
    }

    /**
     * Runs {@code call} asynchronously. A call started while this thread is making an attempt of another call (see
     * {@link AttemptScope}) is nested: it is executed exactly once, and its marker, if any, carries the enclosing
     * attempt's number. That is decided here, on the starting thread, and travels with the call's facts.
     */
    public <R> void execute(CallFacts call, AsyncExchange<R> exchange, AttemptCallback<R> caller) {
        String marker;
        boolean scoped;
        int enclosing = 0;
        try {
            enclosing = AttemptScope.current();
            if (enclosing > 0) {
                call = call.insideAttempt(enclosing);
            }
            if (engine.modeFor(call) == Mode.OFF) {
                exchange.send(1, 0, null, caller);
                return;
            }
            marker = engine.markerHeaderFor(call);
            scoped = enclosing > 0 || engine.mayRetry(call);
        } catch (RuntimeException e) {
            RetryLog.internalError("async-retry-loop.start", e);
            exchange.send(1, 0, null, caller);
            return;
        }
        new Attempts<R>(call, exchange, caller, marker, scoped, enclosing, clock.nanoTime()).start(1, 0);
    }

    /** The state of one call across its attempts. */
    private final class Attempts<R> {
        private final CallFacts call;
        private final AsyncExchange<R> exchange;
        private final AttemptCallback<R> caller;
        private final String marker;
        /** Whether the attempts run in an {@link AttemptScope}: this layer may retry the call, or it is nested. */
        private final boolean scoped;
        /** The attempt of another call this one was started inside, or 0. */
        private final int enclosing;
        private final long startNanos;

        Attempts(CallFacts call, AsyncExchange<R> exchange, AttemptCallback<R> caller, String marker, boolean scoped,
                 int enclosing, long startNanos) {
            this.call = call;
            this.exchange = exchange;
            this.caller = caller;
            this.marker = marker;
            this.scoped = scoped;
            this.enclosing = enclosing;
            this.startNanos = startNanos;
        }

        /**
         * Sends attempt {@code attempt}. An exception that the client throws from send before it has
         * called back is the client's own for the first attempt and propagates, as it would without the
         * agent; for a retry it is returned, so that the caller can still be called back.
         */
        RuntimeException start(final int attempt, final long previousWaitMillis) {
            final AtomicBoolean calledBack = new AtomicBoolean();
            try {
                int number = enclosing > 0 ? enclosing : attempt;
                String value = marker == null ? null : Integer.toString(number);
                exchange.send(attempt, scoped ? number : 0, value, new AttemptCallback<R>() {
                    @Override
                    public void onResponse(R response) {
                        calledBack.set(true);
                        ended(attempt, previousWaitMillis, response, null);
                    }

                    @Override
                    public void onFailure(IOException failure) {
                        calledBack.set(true);
                        ended(attempt, previousWaitMillis, null, failure);
                    }
                });
            } catch (RuntimeException e) {
                // Thrown after the callback ran inline, it came from the application's own callback.
                if (attempt == 1 || calledBack.get()) {
                    throw e;
                }
                return e;
            }
            return null;
        }

        private void ended(final int attempt, long previousWaitMillis, R response, IOException failure) {
            RetryDecision decision;
            try {
                Outcome outcome = failure != null ? Outcome.failure(exchange.classify(failure)) : exchange.outcome(response);
                long now = clock.nanoTime();
                long elapsedMillis = (now - startNanos) / 1_000_000L;
                decision = exchange.isCancelled()
                        ? RetryDecision.done()
                        : engine.decideAt(call, attempt, outcome, elapsedMillis, previousWaitMillis, now);
                RetryLog.decision(call, outcome, decision);
            } catch (RuntimeException e) {
                RetryLog.internalError("async-retry-loop.decide", e);
                decision = RetryDecision.done();
            }
            if (!decision.shouldRetry()) {
                deliver(response, failure);
                return;
            }
            final long waitMillis = decision.waitMillis();
            final IOException lastFailure = failure;
            try {
                scheduler.schedule(new Runnable() {
                    @Override
                    public void run() {
                        if (exchange.isCancelled()) {
                            caller.onFailure(lastFailure != null ? lastFailure : new IOException("Canceled"));
                            return;
                        }
                        RuntimeException notSent = start(attempt + 1, waitMillis);
                        if (notSent != null) {
                            // Fail open: the caller is still called back, once. The last response was
                            // released before the wait, so a failure is all there is to give.
                            RetryLog.internalError("async-retry-loop.send", notSent);
                            IOException failed = lastFailure;
                            if (failed == null) {
                                failed = new IOException("retry-agent: the retry could not be sent");
                                failed.initCause(notSent);
                            }
                            caller.onFailure(failed);
                        }
                    }
                }, waitMillis);
            } catch (RuntimeException e) {
                // A scheduler that is shut down (or broken): the attempt in hand goes back to the caller.
                RetryLog.internalError("async-retry-loop.schedule", e);
                deliver(response, failure);
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

        private void deliver(R response, IOException failure) {
            if (failure != null) {
                caller.onFailure(failure);
            } else {
                caller.onResponse(response);
            }
        }
    }
}
