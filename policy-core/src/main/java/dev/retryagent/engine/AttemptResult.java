package dev.retryagent.engine;

/**
 * How one attempt of a call ended, with what a decision about it needs of the call's run: the facts it is decided
 * under, the outcome, the attempt's number, the wait before it, when the call started and on which clock, the
 * application's own limit of the call, and whether this is the call's first decision at the destination it is decided
 * at. What {@link RetryEngine#decide} takes. Immutable.
 */
final class AttemptResult {
    /** The facts the attempt is decided under: the call's, or those of where a client's redirect took it. */
    final CallFacts call;
    /** The call's own facts when a client's redirect took the attempt to {@link #call}; else null. */
    final CallFacts redirectedFrom;
    /** The attempt that just ended, 1 for the first. */
    final int number;
    final Outcome outcome;
    /** The wait before this attempt (0 for the first), for decorrelated jitter. */
    final long previousWaitMillis;
    /**
     * Whether the call's start was read from the clock ({@link #startNanos}): a call whose plan is {@link
     * CallPlan#timed} reads it, and a call that does not is counted in the budget without a reading.
     */
    final boolean timed;
    /** When the call started on {@link #clock}, if {@link #timed}. */
    final long startNanos;
    /** The run's clock, read only when the time matters. */
    final Clock clock;
    /** The application's own limit of the whole call from its start ({@link OutcomeReader#callerLimitMillis}), or 0. */
    final long callerLimitMillis;
    /**
     * The attempt failed in a way the client alone would resend once past the deadline ({@link OutcomeReader#resendsAlone}),
     * and it has not done so yet in this call ({@link RetryDecision#clientsResend}).
     */
    final boolean clientsResend;
    /**
     * This is the call's first decision at the destination it is decided at: the call is counted there (attempt 1, or
     * the first attempt a client's redirect took there).
     */
    final boolean firstAtDestination;

    AttemptResult(CallFacts call, CallFacts redirectedFrom, int number, Outcome outcome, long previousWaitMillis,
                  boolean timed, long startNanos, Clock clock, long callerLimitMillis, boolean clientsResend, boolean firstAtDestination) {
        this.call = call;
        this.redirectedFrom = redirectedFrom;
        this.number = number;
        this.outcome = outcome;
        this.previousWaitMillis = previousWaitMillis;
        this.timed = timed;
        this.startNanos = startNanos;
        this.clock = clock;
        this.callerLimitMillis = callerLimitMillis;
        this.clientsResend = clientsResend;
        this.firstAtDestination = firstAtDestination;
    }
}
