package dev.retryagent.engine;

import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.RetrySettings;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One call as both loops run it: what is settled before the first attempt (nested or not, the rule, the marker,
 * whether the attempts open an {@link AttemptScope}, whether the call's start is read from the clock), what the run
 * learns (the destinations a client's redirect took its attempts to) and the step after each attempt (outcome,
 * decision, log line). The sync and the async loop differ only in how they send, wait and deliver.
 *
 * <p>A run is made for one call at a time: {@link #start} fills it, {@link #end} empties it. The sync loop reuses one
 * per thread ({@link AttemptScope.OfThread#takeRun}), so that a call allocates nothing for its run; the async loop,
 * whose attempts end on other threads, makes one per call.
 */
final class CallRun {
    private RetryEngine engine;
    private Clock clock;
    /** The facts the call runs under: the caller's, or a nested copy of them. */
    private CallFacts call;
    /** The call's rule, looked up once at its start: the call runs under one policy to its end. */
    private Resolution rule;
    /** The marker header's name, or null when the attempts carry none. */
    private String marker;
    /** Whether the attempts run in an {@link AttemptScope}: this layer may retry the call, or it is nested. */
    private boolean scoped;
    /** The attempt of another call this one was started inside, on the starting thread; 0 when none. */
    private int enclosing;
    /**
     * Whether the call's start is read from the clock, for its deadline and the budget's window
     * ({@link RetryEngine#decidesOnTime}); a call that can only be done or refused reads no clock.
     */
    private boolean timed;
    /** When the call started, if {@link #timed}. */
    private long startNanos;
    /** The application's own limit for the whole call ({@link Outcomes#callerLimitMillis}), or 0. */
    private long callerLimitMillis;
    /** The client's own resend past the deadline ({@link Outcomes#resendsAlone}) has been made. */
    private boolean clientsResendMade;
    /** The other destinations a client's redirect took the attempts to, each counted once; null until one did. */
    private List<CallFacts> redirectsSeen;
    /** The call's trace, or null when nothing traces it ({@link CallTracer}). */
    private CallTrace trace;

    /**
     * Starts the run of {@code call}, started inside attempt {@code enclosing} (0: none) of another call on the
     * starting thread: such a call is nested, executed once, its marker the enclosing attempt's number. False when
     * the agent leaves the call alone: mode {@code off}, or the engine failed before the first attempt (fail open,
     * logged once under {@code where}). The rule is looked up once; mode, marker and "may retry" all come from it,
     * as modeFor, markerHeaderFor and mayRetry answer them.
     */
    boolean start(RetryEngine engine, Clock clock, CallTracer tracer, CallFacts call, int enclosing, String where) {
        CallFacts facts = enclosing > 0 ? call.insideAttempt(enclosing) : call;
        Resolution r;
        String markerName;
        boolean mayRetry;
        boolean onTime;
        try {
            r = engine.resolution(facts);
            if (r.mode == Mode.OFF) {
                return false;
            }
            GiveUpReason refused = RetryEngine.refusal(r.settings, facts, 1);
            mayRetry = RetryEngine.mayRetry(r, refused);
            markerName = RetryEngine.markerHeaderFor(r, facts, mayRetry);
            // A call whose attempts are bounded reads its start even when it cannot be retried: the bound runs from it.
            onTime = RetryEngine.decidesOnTime(r, facts, refused) || bounded(r);
        } catch (RuntimeException e) {
            RetryLog.internalError(where, e);
            return false;
        }
        if (this.engine != engine) { // a reused run: no write (and GC barrier) for what has not changed
            this.engine = engine;
        }
        if (this.clock != clock) {
            this.clock = clock;
        }
        this.call = facts;
        this.rule = r;
        this.marker = markerName;
        this.scoped = enclosing > 0 || mayRetry;
        this.enclosing = enclosing;
        this.timed = onTime;
        this.startNanos = onTime ? clock.nanoTime() : 0;
        this.callerLimitMillis = 0;
        this.clientsResendMade = false;
        this.trace = mayRetry && enclosing == 0 ? traceOf(tracer, where) : null;
        return true;
    }

    private static CallTrace traceOf(CallTracer tracer, String where) {
        try {
            return tracer.callStarting();
        } catch (RuntimeException e) {
            RetryLog.internalError(where, e, "the call is not traced");
            return null;
        }
    }

    /**
     * Opens the call's trace context on this thread for attempt {@code attempt} ({@link CallTrace#attemptStarting});
     * null when nothing traces the call.
     */
    CallTrace.Scope traceAttempt(int attempt) {
        return trace == null ? null : trace.attemptStarting(attempt);
    }

    /**
     * The application limits the whole call to {@code outcomes}' {@link Outcomes#callerLimitMillis}: a deadline of the
     * call besides the rule's. Only a call decided on time waits, so only its run takes it (fail open: an error
     * reading it leaves the rule's deadline alone).
     */
    void limitByCaller(Outcomes<?> outcomes, String where) {
        if (!timed) {
            return;
        }
        try {
            callerLimitMillis = Math.max(0, outcomes.callerLimitMillis());
        } catch (RuntimeException e) {
            RetryLog.internalError(where, e);
        }
    }

    private static boolean bounded(Resolution r) {
        return r.mode == Mode.ENFORCE && r.settings.boundsAttempts();
    }

    /**
     * The most the next attempt may take, in milliseconds: the rule's {@code attemptTimeout} and the time left before
     * the deadline when the rule sets one or enforces the deadline, at least 1 (an attempt that starts is given a
     * timeout the clients accept; 0 means none to them); 0 when the rule bounds no attempt, or traffic is not the
     * agent's to change (observe).
     */
    long attemptLimitMillis() {
        if (!bounded(rule)) {
            return 0;
        }
        RetrySettings s = rule.settings;
        long left = s.deadlineMillis() - (clock.nanoTime() - startNanos) / 1_000_000L;
        long limit = s.attemptTimeoutMillis() > 0 ? Math.min(s.attemptTimeoutMillis(), left) : left;
        return Math.max(1, limit);
    }

    /** Ends the run: it holds on to nothing of the call (its facts, rule, redirects), and may run the next one. */
    void end() {
        call = null;
        rule = null;
        redirectsSeen = null;
        trace = null;
    }

    /** The number attempt {@code attempt} goes out as: its own, or the enclosing attempt's for a nested call. */
    private int number(int attempt) {
        return enclosing > 0 ? enclosing : attempt;
    }

    /** The marker header value for attempt {@code attempt}, or null when none is sent. */
    String markerValue(int attempt) {
        if (marker == null) {
            return null;
        }
        int n = number(attempt);
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
        return scoped ? number(attempt) : 0;
    }

    /**
     * Whether attempt {@code attempt}, decided under {@code at}, another destination than the call's own (a client's
     * redirect took it there), is the call's first there, so that the call is counted there once. The call's own
     * destination counts it at attempt 1 even when the client redirected that attempt elsewhere: it received the
     * call. (At the call's own destination, attempt 1 is the first.)
     */
    private boolean firstAtOther(CallFacts at, int attempt) {
        if (attempt == 1) {
            engine.countCall(call, timed, startNanos);
        }
        List<CallFacts> seen = redirectsSeen;
        if (seen == null) {
            seen = new ArrayList<CallFacts>(2);
            redirectsSeen = seen;
        }
        for (CallFacts other : seen) {
            if (other.sameDestination(at)) {
                return false;
            }
        }
        seen.add(at);
        return true;
    }

    private static <R> Outcome failureOutcome(Outcomes<R> outcomes, IOException failure) {
        FailureKind kind = outcomes.classify(failure);
        if (kind == FailureKind.TIMEOUT && outcomes.cutShort(failure)) {
            return Outcome.attemptTimeout();
        }
        return outcomes.unsent(failure, kind) ? Outcome.unsentFailure(kind) : Outcome.failure(kind);
    }

    /**
     * What follows attempt {@code attempt}, which ended with {@code response} or {@code failure}: the engine's decision,
     * logged; done, when the call was cancelled or the engine failed (fail open, logged once under {@code where}).
     */
    <R> RetryDecision decide(Outcomes<R> outcomes, int attempt, R response, IOException failure,
                             long previousWaitMillis, boolean cancelled, String where) {
        try {
            Outcome outcome = failure != null ? failureOutcome(outcomes, failure) : outcomes.outcome(response);
            CallFacts at = response == null ? call : outcomes.decidedUnder(call, response);
            if (at == null) {
                at = call;
            }
            Resolution atRule = at == call || cancelled ? rule : engine.resolution(at, rule);
            RetryDecision decision = cancelled
                    ? RetryDecision.done()
                    : engine.decide(at, atRule, attempt, outcome, previousWaitMillis, startNanos, callerLimitMillis,
                            failure != null && !clientsResendMade && outcomes.resendsAlone(failure), timed, clock,
                            at == call || at.sameDestination(call) ? attempt == 1 : firstAtOther(at, attempt));
            if (decision.isClientsResend()) {
                clientsResendMade = true; // the client resends once
            } else if (trace != null && decision.shouldRetry()) {
                trace.retrying(attempt + 1, decision.waitMillis(), outcome.cause());
            }
            RetryLog.decision(at, atRule.mode, outcome, decision);
            return decision;
        } catch (RuntimeException e) {
            RetryLog.internalError(where, e);
            return RetryDecision.done();
        }
    }
}
