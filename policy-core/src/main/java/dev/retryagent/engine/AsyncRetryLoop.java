package dev.retryagent.engine;

import dev.retryagent.policy.Mode;
import java.io.IOException;

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

    public <R> void execute(CallFacts call, AsyncExchange<R> exchange, AttemptCallback<R> caller) {
        String marker;
        try {
            if (engine.modeFor(call) == Mode.OFF) {
                exchange.send(1, null, caller);
                return;
            }
            marker = engine.markerHeaderFor(call);
        } catch (RuntimeException e) {
            RetryLog.internalError("async-retry-loop.start", e);
            exchange.send(1, null, caller);
            return;
        }
        new Attempts<R>(call, exchange, caller, marker, clock.nanoTime()).start(1, 0);
    }

    /** The state of one call across its attempts. */
    private final class Attempts<R> {
        private final CallFacts call;
        private final AsyncExchange<R> exchange;
        private final AttemptCallback<R> caller;
        private final String marker;
        private final long startNanos;

        Attempts(CallFacts call, AsyncExchange<R> exchange, AttemptCallback<R> caller, String marker, long startNanos) {
            this.call = call;
            this.exchange = exchange;
            this.caller = caller;
            this.marker = marker;
            this.startNanos = startNanos;
        }

        void start(final int attempt, final long previousWaitMillis) {
            exchange.send(attempt, marker == null ? null : Integer.toString(attempt), new AttemptCallback<R>() {
                @Override
                public void onResponse(R response) {
                    ended(attempt, previousWaitMillis, response, null);
                }

                @Override
                public void onFailure(IOException failure) {
                    ended(attempt, previousWaitMillis, null, failure);
                }
            });
        }

        private void ended(final int attempt, long previousWaitMillis, R response, IOException failure) {
            RetryDecision decision;
            try {
                Outcome outcome = failure != null ? Outcome.failure(exchange.classify(failure)) : exchange.outcome(response);
                long elapsedMillis = (clock.nanoTime() - startNanos) / 1_000_000L;
                decision = exchange.isCancelled()
                        ? RetryDecision.done()
                        : engine.decide(call, attempt, outcome, elapsedMillis, previousWaitMillis);
                RetryLog.decision(call, outcome, decision);
            } catch (RuntimeException e) {
                RetryLog.internalError("async-retry-loop.decide", e);
                decision = RetryDecision.done();
            }
            if (!decision.shouldRetry()) {
                deliver(response, failure);
                return;
            }
            if (response != null) {
                exchange.discard(response);
            }
            final long waitMillis = decision.waitMillis();
            final IOException lastFailure = failure;
            scheduler.schedule(new Runnable() {
                @Override
                public void run() {
                    if (exchange.isCancelled()) {
                        caller.onFailure(lastFailure != null ? lastFailure : new IOException("Canceled"));
                        return;
                    }
                    start(attempt + 1, waitMillis);
                }
            }, waitMillis);
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
