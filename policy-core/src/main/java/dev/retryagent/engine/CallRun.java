package dev.retryagent.engine;

import dev.retryagent.policy.Mode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One call as both loops run it: what is settled before the first attempt (nested or not, the marker, whether the
 * attempts open an {@link AttemptScope}) and the step after each attempt (outcome, decision, log line). The sync and
 * the async loop differ only in how they send, wait and deliver.
 */
final class CallRun {
    final CallFacts call;
    /** The marker header's name, or null when the attempts carry none. */
    private final String marker;
    /** Whether the attempts run in an {@link AttemptScope}: this layer may retry the call, or it is nested. */
    private final boolean scoped;
    /** The attempt of another call this one was started inside, on the starting thread; 0 when none. */
    private final int enclosing;
    private final long startNanos;
    /** The other destinations a client's redirect took this call's attempts to; null until one did. */
    private List<CallFacts> redirectedTo;

    private CallRun(CallFacts call, String marker, boolean scoped, int enclosing, long startNanos) {
        this.call = call;
        this.marker = marker;
        this.scoped = scoped;
        this.enclosing = enclosing;
        this.startNanos = startNanos;
    }

    /**
     * The run of {@code call}, or null when the agent leaves it alone: mode {@code off}, or the engine failed before
     * the first attempt (fail open, logged once under {@code where}). A call started while this thread makes an
     * attempt of another is nested: executed once, its marker the enclosing attempt's number.
     */
    static CallRun start(RetryEngine engine, Clock clock, CallFacts call, String where) {
        try {
            int enclosing = AttemptScope.current();
            if (enclosing > 0) {
                call = call.insideAttempt(enclosing);
            }
            if (engine.modeFor(call) == Mode.OFF) {
                return null;
            }
            return new CallRun(call, engine.markerHeaderFor(call), enclosing > 0 || engine.mayRetry(call), enclosing,
                    clock.nanoTime());
        } catch (RuntimeException e) {
            RetryLog.internalError(where, e);
            return null;
        }
    }

    /** The number attempt {@code attempt} goes out as: its own, or the enclosing attempt's for a nested call. */
    private int number(int attempt) {
        return enclosing > 0 ? enclosing : attempt;
    }

    /** The marker header value for attempt {@code attempt}, or null when none is sent. */
    String markerValue(int attempt) {
        return marker == null ? null : Integer.toString(number(attempt));
    }

    /** The {@link AttemptScope} number attempt {@code attempt} runs in, or 0 when it opens no scope. */
    int scope(int attempt) {
        return scoped ? number(attempt) : 0;
    }

    /**
     * Whether attempt {@code attempt}, decided under {@code at}, is the call's first at {@code at}'s destination, so
     * that the call is counted there once. The call's own destination counts it at attempt 1 even when the client
     * redirected that attempt elsewhere: it received the call.
     */
    private boolean firstAt(RetryEngine engine, CallFacts at, int attempt, long now) {
        if (at == call || at.sameDestination(call)) {
            return attempt == 1;
        }
        if (attempt == 1) {
            engine.countCall(call, now);
        }
        if (redirectedTo == null) {
            redirectedTo = new ArrayList<CallFacts>(2);
        }
        for (CallFacts seen : redirectedTo) {
            if (seen.sameDestination(at)) {
                return false;
            }
        }
        redirectedTo.add(at);
        return true;
    }

    /**
     * What follows attempt {@code attempt}, which ended with {@code response} or {@code failure}: the engine's decision,
     * logged; done, when the call was cancelled or the engine failed (fail open, logged once under {@code where}).
     */
    <R> RetryDecision decide(RetryEngine engine, Clock clock, Outcomes<R> outcomes, int attempt, R response,
                             IOException failure, long previousWaitMillis, boolean cancelled, String where) {
        try {
            Outcome outcome = failure != null ? Outcome.failure(outcomes.classify(failure)) : outcomes.outcome(response);
            long now = clock.nanoTime();
            long elapsedMillis = (now - startNanos) / 1_000_000L;
            CallFacts at = response == null ? call : outcomes.decidedUnder(call, response);
            if (at == null) {
                at = call;
            }
            RetryDecision decision = cancelled
                    ? RetryDecision.done()
                    : engine.decideAt(at, attempt, outcome, elapsedMillis, previousWaitMillis, now,
                            firstAt(engine, at, attempt, now));
            RetryLog.decision(at, outcome, decision);
            return decision;
        } catch (RuntimeException e) {
            RetryLog.internalError(where, e);
            return RetryDecision.done();
        }
    }
}
