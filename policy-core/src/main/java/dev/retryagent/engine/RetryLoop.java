package dev.retryagent.engine;

import java.io.IOException;
import java.io.InterruptedIOException;

/**
 * The one synchronous retry loop, shared by every client: make an attempt, ask the engine, wait on
 * the calling thread, make the next. Fails open: if the engine itself fails, the attempt in hand goes
 * back to the caller as the client produced it.
 */
public final class RetryLoop {
    private final RetryEngine engine;
    private final Clock clock;
    private final Sleeper sleeper;

    public RetryLoop(RetryEngine engine, Clock clock, Sleeper sleeper) {
        this.engine = engine;
        this.clock = clock;
        this.sleeper = sleeper;
    }

    public RetryEngine engine() {
        return engine;
    }

    /**
     * Runs {@code call}: its attempts, the waits between them, and what goes back to the caller. A call made while
     * this thread is making an attempt of another (see {@link AttemptScope}) is nested: it is executed exactly
     * once, and its marker, if any, carries the enclosing attempt's number. Each attempt of a call this layer may
     * retry runs inside the scope, so that calls made inside it are nested in turn; a call it will not retry opens
     * no scope, and the calls made inside it may be retried themselves.
     */
    public <R> R execute(CallFacts call, Exchange<R> exchange) throws IOException {
        int[] scopeOfThread = AttemptScope.ofThisThread();
        int enclosing = scopeOfThread[0];
        CallFacts facts = CallRun.begin(call, enclosing);
        int how = CallRun.settle(engine, facts, enclosing, "retry-loop.start");
        if (how == CallRun.OFF) {
            return exchange.send(1, null);
        }
        // The run's values, in locals (see CallRun): nothing is allocated for a call whose first attempt succeeds.
        String marker = CallRun.marker(engine, facts, how);
        boolean scoped = (how & CallRun.SCOPED) != 0;
        boolean timed = (how & CallRun.TIMED) != 0;
        long startNanos = CallRun.startNanos(clock, timed);
        long previousWaitMillis = 0;
        for (int attempt = 1; ; attempt++) {
            R response = null;
            IOException failure = null;
            int scope = CallRun.scope(scoped, enclosing, attempt);
            int outer = scopeOfThread[0];
            if (scope > 0) {
                scopeOfThread[0] = scope; // AttemptScope.enter
            }
            try {
                response = exchange.send(attempt, CallRun.markerValue(marker, enclosing, attempt));
            } catch (IOException e) {
                failure = e;
            } finally {
                if (scope > 0) {
                    scopeOfThread[0] = outer; // AttemptScope.exit
                }
            }
            RetryDecision decision = CallRun.decide(engine, clock, exchange, facts, timed, startNanos, attempt,
                    response, failure, previousWaitMillis, false, "retry-loop.decide");
            if (!decision.shouldRetry()) {
                if (failure != null) {
                    throw failure;
                }
                return response;
            }
            if (response != null) {
                // Released before the wait: a response held across it would pin a pooled connection.
                try {
                    exchange.discard(response);
                } catch (RuntimeException e) {
                    // Fail open: the caller never sees this response, so a failure to release it
                    // must not become the caller's exception; the retry goes ahead.
                    RetryLog.internalError("retry-loop.discard", e);
                }
            }
            try {
                sleeper.sleep(decision.waitMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                if (failure != null) {
                    throw failure;
                }
                InterruptedIOException interrupted = new InterruptedIOException(
                        "retry-agent: interrupted while waiting to retry; the last response was released");
                interrupted.initCause(e);
                throw interrupted;
            }
            previousWaitMillis = decision.waitMillis();
        }
    }
}
