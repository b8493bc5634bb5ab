package dev.retryagent.engine;

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
        CallRun run = CallRun.start(engine, clock, call, "async-retry-loop.start");
        if (run == null) {
            exchange.send(1, 0, null, caller);
            return;
        }
        new Attempts<R>(run, exchange, caller).start(1, 0);
    }

    /** The state of one call across its attempts. */
    private final class Attempts<R> {
        private final CallRun run;
        private final AsyncExchange<R> exchange;
        private final AttemptCallback<R> caller;

        Attempts(CallRun run, AsyncExchange<R> exchange, AttemptCallback<R> caller) {
            this.run = run;
            this.exchange = exchange;
            this.caller = caller;
        }

        /**
         * Sends attempt {@code attempt}. An exception that the client throws from send before it has
         * called back is the client's own for the first attempt and propagates, as it would without the
         * agent; for a retry it is returned, so that the caller can still be called back.
         */
        RuntimeException start(final int attempt, final long previousWaitMillis) {
            final AtomicBoolean calledBack = new AtomicBoolean();
            try {
                exchange.send(attempt, run.scope(attempt), run.markerValue(attempt), new AttemptCallback<R>() {
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
            RetryDecision decision = run.decide(engine, clock, exchange, attempt, response, failure, previousWaitMillis,
                    exchange.isCancelled(), "async-retry-loop.decide");
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
