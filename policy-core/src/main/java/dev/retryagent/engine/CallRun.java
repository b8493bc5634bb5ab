package dev.retryagent.engine;

import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Mode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One call as both loops run it: what is settled before the first attempt (nested or not, the call's
 * {@link CallPlan}, whether the attempts open an {@link AttemptScope}, the call's start when the plan is timed), what
 * the run learns (the destinations a client's redirect took its attempts to) and the step after each attempt
 * (outcome, decision, log line). The sync and the async loop differ only in how they send, wait and deliver.
 *
 * <p>A run is made for one call at a time: {@link #start} fills it, {@link #end} empties it. The sync loop reuses one
 * per thread ({@link AttemptScope.OfThread#takeRun}), so that a call allocates nothing for its run; the async loop,
 * whose attempts end on other threads, makes one per call.
 */
final class CallRun implements AttemptScope.RunningCall {
    private RetryEngine engine;
    private Clock clock;
    /** The facts the call runs under: the caller's, or a nested copy of them. */
    private CallFacts call;
    /** The call's plan, made once at its start: the call runs under one policy to its end. */
    private CallPlan plan;
    /** Whether the attempts run in an {@link AttemptScope}: this layer may retry the call, or it is nested. */
    private boolean scoped;
    /** The attempt of another call this one was started inside, on the starting thread; 0 when none. */
    private int enclosing;
    /** Whether the call's start is read from the clock ({@link CallPlan#timed}). */
    private boolean timed;
    /** When the call started, if {@link #timed}. */
    private long startNanos;
    /** The application's own limit for the whole call ({@link OutcomeReader#callerLimitMillis}), or 0. */
    private long callerLimitMillis;
    /** The client's own resend past the deadline ({@link OutcomeReader#resendsAlone}) has been made. */
    private boolean clientsResendMade;
    /** The other destinations a client's redirect took the attempts to, each counted once; null until one did. */
    private List<CallFacts> redirectsSeen;
    /** The call's trace, or null when nothing traces it ({@link CallTracer}). */
    private CallTrace trace;

    /**
     * Starts the run of {@code call}, planned as {@code planned} by {@code engine}, or planned here when null, started
     * inside attempt {@code enclosing} (0: none) of another call on the starting thread: such a call is nested,
     * executed once, its marker the enclosing attempt's number. False when the agent leaves the call alone: mode
     * {@code off}, or the engine failed before the first attempt (fail open, logged once under {@code where}).
     */
    boolean start(RetryEngine engine, Clock clock, CallTracer tracer, CallFacts call, CallPlan planned, int enclosing,
                  String where) {
        CallFacts facts;
        CallPlan p;
        try {
            if (enclosing > 0) {
                facts = call.insideAttempt(enclosing);
                p = planned == null ? engine.plan(facts) : CallPlan.of(planned.rule, facts);
            } else {
                facts = call;
                p = planned == null ? engine.plan(facts) : planned;
            }
            if (p.mode() == Mode.OFF) {
                return false;
            }
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
        boolean mayRetry = p.mayRetry();
        boolean onTime = p.timed();
        this.call = facts;
        this.plan = p;
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
     * The application limits the whole call to {@code outcomes}' {@link OutcomeReader#callerLimitMillis}: a deadline of the
     * call besides the rule's. Only a call decided on time waits, so only its run takes it (fail open: an error
     * reading it leaves the rule's deadline alone).
     */
    void limitByCaller(OutcomeReader<?> outcomes, String where) {
        if (!timed) {
            return;
        }
        try {
            callerLimitMillis = Math.max(0, outcomes.callerLimitMillis());
        } catch (RuntimeException e) {
            RetryLog.internalError(where, e);
        }
    }

    /** The most the next attempt may take, in milliseconds ({@link CallPlan#attemptLimitMillis}); 0: unbounded. */
    long attemptLimitMillis() {
        CallPlan p = plan;
        return p.boundsAttempts() ? p.attemptLimitMillis((clock.nanoTime() - startNanos) / 1_000_000L) : 0;
    }

    /** The call's plan, while it runs. */
    @Override
    public CallPlan plan() {
        return plan;
    }

    /** The facts the call runs under, while it runs. */
    @Override
    public CallFacts call() {
        return call;
    }

    /** Ends the run: it holds on to nothing of the call (its facts, plan, redirects), and may run the next one. */
    void end() {
        call = null;
        plan = null;
        redirectsSeen = null;
        trace = null;
    }

    /** The number attempt {@code attempt} goes out as: its own, or the enclosing attempt's for a nested call. */
    private int number(int attempt) {
        return enclosing > 0 ? enclosing : attempt;
    }

    /** The marker header value for attempt {@code attempt}, or null when none is sent. */
    String markerValue(int attempt) {
        if (plan.markerHeader() == null) {
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
     * Whether an attempt decided under {@code at}, another destination than the call's own (a client's redirect took
     * it there), is the call's first there, so that the call is counted there once. (At the call's own destination,
     * attempt 1 is the first; the engine counts the call there at attempt 1 even when the client redirected that
     * attempt elsewhere: it received the call.)
     */
    private boolean firstAtOther(CallFacts at) {
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

    private static <R> Outcome failureOutcome(OutcomeReader<R> outcomes, IOException failure) {
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
    <R> RetryDecision decide(OutcomeReader<R> outcomes, int attempt, R response, IOException failure,
                             long previousWaitMillis, boolean cancelled, String where) {
        try {
            Outcome outcome = failure != null ? failureOutcome(outcomes, failure) : outcomes.outcome(response);
            CallFacts at = response == null ? call : outcomes.decidedUnder(call, response);
            if (at == null) {
                at = call;
            }
            boolean redirected = at != call;
            CallPlan under = !redirected || cancelled ? plan : engine.plan(at, plan);
            RetryDecision decision = cancelled
                    ? RetryDecision.done()
                    : engine.decide(under, new AttemptResult(at, redirected ? call : null, attempt, outcome,
                            previousWaitMillis, timed, startNanos, clock, callerLimitMillis,
                            failure != null && !clientsResendMade && outcomes.resendsAlone(failure),
                            at == call || at.sameDestination(call) ? attempt == 1 : firstAtOther(at)));
            if (decision.isClientsResend()) {
                clientsResendMade = true; // the client resends once
            } else if (trace != null && decision.shouldRetry()) {
                trace.retrying(attempt + 1, decision.waitMillis(), outcome.cause());
            }
            RetryLog.decision(at, under.mode(), outcome, decision);
            return decision;
        } catch (RuntimeException e) {
            RetryLog.internalError(where, e);
            return RetryDecision.done();
        }
    }
}
