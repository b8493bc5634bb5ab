package dev.retryagent.engine;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One attempt of an asynchronous call, as its client reports it to the {@link AsyncRetryLoop}: its response (head)
 * arrived, it failed, its exchange is over. The client's events come from its own threads, in any order and possibly
 * more than once (a head, then a failure of its body); the attempt turns them into one report to the loop and one
 * start of the next attempt, which waits until this one has finished: its dropped body read to its end, its
 * connection released. After its response went to the caller ({@link #delivered}), the adapter passes the rest of
 * the attempt (body, end, failure) straight to the application.
 *
 * <p>The state is one int: nothing but this object is allocated for an attempt.
 *
 * @param <R> the client's response type
 */
public final class AsyncAttempt<R> {
    /** The attempt has been reported to the loop (or handed over): later reports are dropped. */
    private static final int REPORTED = 1;
    /** The attempt's response is the caller's. */
    private static final int DELIVERED = 2;
    /** The attempt's exchange is over: the next attempt may start. */
    private static final int FINISHED = 4;
    /** The wait before the next attempt is over: it starts as soon as this one has finished. */
    private static final int DUE = 8;

    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<AsyncAttempt> STATE =
            AtomicIntegerFieldUpdater.newUpdater(AsyncAttempt.class, "state");

    private final AsyncRetryLoop loop;
    /** The call's run, or null when the loop leaves the call alone: every report goes straight to the caller. */
    final CallRun run;
    final AsyncExchange<R> exchange;
    final CallCompletion<R> caller;
    final int number;
    final long previousWaitMillis;
    /** Set when a retry after this attempt is scheduled: the wait, and this attempt's failure if it failed. */
    long waitMillis;
    IOException failure;
    private volatile int state;

    AsyncAttempt(AsyncRetryLoop loop, CallRun run, AsyncExchange<R> exchange, CallCompletion<R> caller, int number,
                 long previousWaitMillis) {
        this.loop = loop;
        this.run = run;
        this.exchange = exchange;
        this.caller = caller;
        this.number = number;
        this.previousWaitMillis = previousWaitMillis;
    }

    /** The plan of the call this is an attempt of, or null when the loop leaves the call alone. */
    public CallPlan plan() {
        return run == null ? null : run.plan();
    }

    /** The facts of the call this is an attempt of, or null when the loop leaves the call alone. */
    public CallFacts call() {
        return run == null ? null : run.call();
    }

    /**
     * The attempt's response (or its head: the body still to come) has arrived. The loop decides at once, on this
     * thread: true when the response is the caller's (its {@code onResponse} has run, here: a response is
     * delivered nowhere else; the adapter gives the application the head, the body and the end), false when it is
     * dropped (a retry follows, or the attempt was reported already): the adapter reads the body to its end,
     * releases the connection and calls {@link #finished}.
     */
    public boolean arrived(R response) {
        if (run == null) {
            if (!set(REPORTED | DELIVERED, REPORTED)) {
                return false;
            }
            caller.onResponse(response);
            return true;
        }
        if (!set(REPORTED, REPORTED)) {
            return false;
        }
        loop.ended(this, response, null);
        return delivered();
    }

    /**
     * The attempt failed. Before its response, that is its end, reported to the loop; after a dropped response
     * (its body failed), the attempt is {@link #finished}. The adapter passes the failure of a delivered attempt to
     * the application itself.
     */
    public void failed(IOException failure) {
        int before = update(REPORTED | FINISHED);
        if ((before & REPORTED) == 0) {
            if (run == null) {
                caller.onFailure(failure);
            } else {
                loop.ended(this, null, failure);
            }
        } else if ((before & DUE) != 0 && (before & FINISHED) == 0) {
            loop.startNext(this);
        }
    }

    /** The attempt's exchange is over (a dropped body read to its end, its connection released). */
    public void finished() {
        int before = update(FINISHED);
        if ((before & DUE) != 0 && (before & FINISHED) == 0) {
            loop.startNext(this);
        }
    }

    /**
     * Fail open: the attempt's response goes to the application as the client produced it, without a decision (the
     * adapter could not read it). True when it did; false when the attempt was reported already.
     */
    public boolean handOver() {
        return set(REPORTED | DELIVERED, REPORTED);
    }

    /** Whether the attempt's response went to the caller. */
    public boolean delivered() {
        return (state & DELIVERED) != 0;
    }

    /** Whether the attempt has been reported (its response or its failure). */
    public boolean reported() {
        return (state & REPORTED) != 0;
    }

    /** The loop delivers this attempt's response to the caller. */
    void deliver() {
        update(DELIVERED);
    }

    /** The wait after this attempt is over: true when the next attempt is to start now (this one has finished). */
    boolean due() {
        return (update(DUE) & FINISHED) != 0;
    }

    /** Sets {@code bits} unless one of {@code unless} is set; true when it did. */
    private boolean set(int bits, int unless) {
        for (;;) {
            int s = state;
            if ((s & unless) != 0) {
                return false;
            }
            if (STATE.compareAndSet(this, s, s | bits)) {
                return true;
            }
        }
    }

    /** Sets {@code bits}; returns the state before. */
    private int update(int bits) {
        for (;;) {
            int s = state;
            if (STATE.compareAndSet(this, s, s | bits)) {
                return s;
            }
        }
    }
}
