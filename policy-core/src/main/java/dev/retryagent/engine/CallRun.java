package dev.retryagent.engine;

import dev.retryagent.policy.Mode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One call as both loops run it: what is settled before the first attempt (nested or not, the marker, whether the
 * attempts open an {@link AttemptScope}, whether the call's start is read from the clock) and the step after each
 * attempt (outcome, decision, log line). The sync and the async loop differ only in how they send, wait and deliver.
 *
 * <p>The work is in static methods over the run's values, so that {@link RetryLoop} can keep them in locals and
 * allocate nothing per call (C2's escape analysis does not remove a run object reliably); {@link AsyncRetryLoop},
 * whose attempts end on other threads, keeps them in an instance.
 */
final class CallRun {
    /** What {@link #settle} answers for a call the agent leaves alone. */
    static final int OFF = -1;
    /** {@link #settle}: the attempts carry the marker header. */
    static final int MARKED = 1;
    /** {@link #settle}: the attempts run in an {@link AttemptScope}: this layer may retry the call, or it is nested. */
    static final int SCOPED = 2;
    /**
     * {@link #settle}: the call's start is read from the clock, for its deadline and the budget's window
     * ({@link RetryEngine#decidesOnTime}); a call that can only be done or refused reads no clock.
     */
    static final int TIMED = 4;

    final CallFacts call;
    /** The marker header's name, or null when the attempts carry none. */
    private final String marker;
    /** Whether the attempts run in an {@link AttemptScope}. */
    private final boolean scoped;
    /** The attempt of another call this one was started inside, on the starting thread; 0 when none. */
    private final int enclosing;
    private final boolean timed;
    /** When the call started, if {@link #timed}. */
    private final long startNanos;

    private CallRun(CallFacts call, String marker, boolean scoped, int enclosing, boolean timed, long startNanos) {
        this.call = call;
        this.marker = marker;
        this.scoped = scoped;
        this.enclosing = enclosing;
        this.timed = timed;
        this.startNanos = startNanos;
    }

    /**
     * The run of {@code call}, or null when the agent leaves it alone: mode {@code off}, or the engine failed before
     * the first attempt (fail open, logged once under {@code where}). A call started while this thread makes an
     * attempt of another is nested: executed once, its marker the enclosing attempt's number.
     */
    static CallRun start(RetryEngine engine, Clock clock, CallFacts call, String where) {
        int enclosing = AttemptScope.current();
        CallFacts c = begin(call, enclosing);
        int how = settle(engine, c, enclosing, where);
        if (how == OFF) {
            return null;
        }
        boolean timed = (how & TIMED) != 0;
        return new CallRun(c, marker(engine, c, how), (how & SCOPED) != 0, enclosing, timed,
                startNanos(clock, timed));
    }

    /** The call's start on {@code clock} when it is {@code timed}, else 0 (no reading). */
    static long startNanos(Clock clock, boolean timed) {
        return timed ? clock.nanoTime() : 0;
    }

    /**
     * The facts a call started inside attempt {@code enclosing} (0: none) runs under: {@code call}, or a nested copy
     * of it; with no redirect seen yet.
     */
    static CallFacts begin(CallFacts call, int enclosing) {
        if (enclosing > 0) {
            return call.insideAttempt(enclosing);
        }
        call.redirectsSeen = null;
        return call;
    }

    /**
     * What the call's rule says before its first attempt: {@link #OFF} (mode off, or the engine failed: fail open,
     * logged once under {@code where}), else {@link #MARKED}, {@link #SCOPED} and {@link #TIMED} as they apply. The
     * rule is looked up once; mode, marker and "may retry" all come from it, as modeFor, markerHeaderFor and mayRetry
     * answer them.
     */
    static int settle(RetryEngine engine, CallFacts call, int enclosing, String where) {
        try {
            Resolution r = engine.resolution(call);
            if (r.mode == Mode.OFF) {
                return OFF;
            }
            GiveUpReason refused = RetryEngine.refusal(r.settings, call, 1);
            boolean mayRetry = RetryEngine.mayRetry(r, refused);
            return (RetryEngine.markerHeaderFor(r, call, mayRetry) != null ? MARKED : 0)
                    | (enclosing > 0 || mayRetry ? SCOPED : 0)
                    | (RetryEngine.decidesOnTime(r, call, refused) ? TIMED : 0);
        } catch (RuntimeException e) {
            RetryLog.internalError(where, e);
            return OFF;
        }
    }

    /** The marker header's name for a call {@link #settle} answered {@code how} for, or null. */
    static String marker(RetryEngine engine, CallFacts call, int how) {
        return (how & MARKED) != 0 ? engine.resolution(call).marker : null;
    }

    /** The number attempt {@code attempt} goes out as: its own, or the enclosing attempt's for a nested call. */
    private static int number(int enclosing, int attempt) {
        return enclosing > 0 ? enclosing : attempt;
    }

    /** The marker header value for attempt {@code attempt}, or null when none is sent. */
    String markerValue(int attempt) {
        return markerValue(marker, enclosing, attempt);
    }

    static String markerValue(String marker, int enclosing, int attempt) {
        if (marker == null) {
            return null;
        }
        int n = number(enclosing, attempt);
        return n < NUMBERS.length ? NUMBERS[n] : Integer.toString(n);
    }

    /** The marker values of the first attempts, made once: a marked call allocates no string for them. */
    private static final String[] NUMBERS = new String[16];

    static {
        for (int i = 0; i < NUMBERS.length; i++) {
            NUMBERS[i] = Integer.toString(i);
        }
    }

    /** The {@link AttemptScope} number attempt {@code attempt} runs in, or 0 when it opens no scope. */
    int scope(int attempt) {
        return scope(scoped, enclosing, attempt);
    }

    static int scope(boolean scoped, int enclosing, int attempt) {
        return scoped ? number(enclosing, attempt) : 0;
    }

    /**
     * Whether attempt {@code attempt} of {@code call}, decided under {@code at}, another destination than the call's
     * own (a client's redirect took it there), is the call's first there, so that the call is counted there once. The
     * call's own destination counts it at attempt 1 even when the client redirected that attempt elsewhere: it
     * received the call. (At the call's own destination, attempt 1 is the first.)
     */
    private static boolean firstAtOther(RetryEngine engine, CallFacts call, boolean timed, long startNanos,
                                        CallFacts at, int attempt) {
        if (attempt == 1) {
            engine.countCall(call, timed, startNanos);
        }
        List<CallFacts> seen = call.redirectsSeen;
        if (seen == null) {
            seen = new ArrayList<CallFacts>(2);
            call.redirectsSeen = seen;
        }
        for (CallFacts other : seen) {
            if (other.sameDestination(at)) {
                return false;
            }
        }
        seen.add(at);
        return true;
    }

    /**
     * What follows attempt {@code attempt}, which ended with {@code response} or {@code failure}: the engine's decision,
     * logged; done, when the call was cancelled or the engine failed (fail open, logged once under {@code where}).
     */
    <R> RetryDecision decide(RetryEngine engine, Clock clock, Outcomes<R> outcomes, int attempt, R response,
                             IOException failure, long previousWaitMillis, boolean cancelled, String where) {
        return decide(engine, clock, outcomes, call, timed, startNanos, attempt, response, failure,
                previousWaitMillis, cancelled, where);
    }

    /**
     * {@link #decide(RetryEngine, Clock, Outcomes, int, Object, IOException, long, boolean, String)} of {@code call},
     * which started at {@code startNanos} if {@code timed}.
     */
    static <R> RetryDecision decide(RetryEngine engine, Clock clock, Outcomes<R> outcomes, CallFacts call,
                                    boolean timed, long startNanos, int attempt, R response, IOException failure,
                                    long previousWaitMillis, boolean cancelled, String where) {
        try {
            Outcome outcome = failure != null ? Outcome.failure(outcomes.classify(failure)) : outcomes.outcome(response);
            CallFacts at = response == null ? call : outcomes.decidedUnder(call, response);
            if (at == null) {
                at = call;
            }
            RetryDecision decision = cancelled
                    ? RetryDecision.done()
                    : engine.decideSince(at, attempt, outcome, startNanos, timed, previousWaitMillis, clock,
                            at == call || at.sameDestination(call)
                                    ? attempt == 1
                                    : firstAtOther(engine, call, timed, startNanos, at, attempt));
            RetryLog.decision(at, outcome, decision);
            return decision;
        } catch (RuntimeException e) {
            RetryLog.internalError(where, e);
            return RetryDecision.done();
        }
    }
}
