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
    private final CallTracer tracer;

    public RetryLoop(RetryEngine engine, Clock clock, Sleeper sleeper) {
        this(engine, clock, sleeper, CallTracer.NONE);
    }

    public RetryLoop(RetryEngine engine, Clock clock, Sleeper sleeper, CallTracer tracer) {
        this.engine = engine;
        this.clock = clock;
        this.sleeper = sleeper;
        this.tracer = tracer;
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
        AttemptScope.OfThread thread = AttemptScope.ofThisThread();
        CallRun run = thread.takeRun();
        return execute(run.start(engine, clock, tracer, call, null, thread.attempt, "retry-loop.start"), run, thread,
                exchange);
    }

    /** {@link #execute(CallFacts, Exchange)} for {@code call} planned already by this loop's engine as {@code plan}. */
    public <R> R execute(CallFacts call, CallPlan plan, Exchange<R> exchange) throws IOException {
        AttemptScope.OfThread thread = AttemptScope.ofThisThread();
        CallRun run = thread.takeRun();
        return execute(run.start(engine, clock, tracer, call, plan, thread.attempt, "retry-loop.start"), run, thread,
                exchange);
    }

    private <R> R execute(boolean started, CallRun run, AttemptScope.OfThread thread, Exchange<R> exchange)
            throws IOException {
        if (!started) {
            thread.giveBack(run);
            return thread.outsideAttempts(exchange);
        }
        run.limitByCaller(exchange, "retry-loop.caller-limit");
        try {
            return attempts(run, thread, exchange);
        } finally {
            run.end();
            thread.giveBack(run);
        }
    }

    /** The attempts of the started {@code run} and the waits between them, on {@code thread}. */
    private <R> R attempts(CallRun run, AttemptScope.OfThread thread, Exchange<R> exchange) throws IOException {
        long previousWaitMillis = 0;
        for (int attempt = 1; ; attempt++) {
            R response = null;
            IOException failure = null;
            int scope = run.scope(attempt);
            int outer = thread.attempt;
            if (scope > 0) {
                thread.attempt = scope; // AttemptScope.enter
            }
            AttemptScope.RunningCall outerRunning = thread.enter(run);
            CallTrace.Scope traced = run.traceAttempt(attempt);
            try {
                response = exchange.send(attempt, run.markerValue(attempt), run.attemptLimitMillis());
            } catch (IOException e) {
                failure = e;
            } finally {
                if (traced != null) {
                    traced.close();
                }
                if (scope > 0) {
                    thread.attempt = outer; // AttemptScope.exit
                }
                thread.leave(run, outerRunning);
            }
            RetryDecision decision = run.decide(exchange, attempt, response, failure, previousWaitMillis, false,
                    "retry-loop.decide");
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
