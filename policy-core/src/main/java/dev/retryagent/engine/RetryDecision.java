package dev.retryagent.engine;

/** What the engine says after an attempt: done, retry after a wait, would retry (observe), or give up. */
public final class RetryDecision {
    /** What to do next. */
    public enum Action {
        /** The outcome goes back to the caller: a success, or not retryable at all. */
        DONE,
        /** Wait {@link #waitMillis()}, then make the next attempt. */
        RETRY,
        /** Observe mode: a retry would have been made; the outcome goes back to the caller. */
        WOULD_RETRY,
        /** Retryable, but {@link #reason()} forbids it; the outcome goes back to the caller. */
        GIVE_UP
    }

    private static final RetryDecision DONE = new RetryDecision(Action.DONE, 0, null, 0, 0, false);

    private final Action action;
    private final long waitMillis;
    private final GiveUpReason reason;
    private final int nextAttempt;
    private final int maxAttempts;
    private final boolean clientsResend;

    private RetryDecision(Action action, long waitMillis, GiveUpReason reason, int nextAttempt, int maxAttempts,
                          boolean clientsResend) {
        this.action = action;
        this.waitMillis = waitMillis;
        this.reason = reason;
        this.nextAttempt = nextAttempt;
        this.maxAttempts = maxAttempts;
        this.clientsResend = clientsResend;
    }

    public static RetryDecision done() {
        return DONE;
    }

    public static RetryDecision retry(long waitMillis, int nextAttempt, int maxAttempts) {
        return new RetryDecision(Action.RETRY, waitMillis, null, nextAttempt, maxAttempts, false);
    }

    /**
     * A retry at once past the deadline: the one resend the client alone would have made after this failure (the
     * JDK's), which the agent switched off to be the only layer; nothing the client would have recovered is lost.
     */
    public static RetryDecision clientsResend(int nextAttempt, int maxAttempts) {
        return new RetryDecision(Action.RETRY, 0, null, nextAttempt, maxAttempts, true);
    }

    public static RetryDecision wouldRetry(long waitMillis, int nextAttempt, int maxAttempts) {
        return new RetryDecision(Action.WOULD_RETRY, waitMillis, null, nextAttempt, maxAttempts, false);
    }

    public static RetryDecision giveUp(GiveUpReason reason, int attempt, int maxAttempts) {
        return new RetryDecision(Action.GIVE_UP, 0, reason, attempt, maxAttempts, false);
    }

    public Action action() {
        return action;
    }

    /** True only for {@link Action#RETRY}: the caller must wait and try again. */
    public boolean shouldRetry() {
        return action == Action.RETRY;
    }

    /** Whether this retry is {@link #clientsResend}: the client's own resend, made past the deadline. */
    public boolean isClientsResend() {
        return clientsResend;
    }

    public long waitMillis() {
        return waitMillis;
    }

    /** Why the engine gave up, or null unless the action is {@link Action#GIVE_UP}. */
    public GiveUpReason reason() {
        return reason;
    }

    /** For a retry: the number of the attempt to make next; for a give-up: the attempt that ended. */
    public int attempt() {
        return nextAttempt;
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    @Override
    public String toString() {
        switch (action) {
            case RETRY:
            case WOULD_RETRY:
                return action + " attempt=" + nextAttempt + "/" + maxAttempts + " wait=" + waitMillis + "ms";
            case GIVE_UP:
                return "GIVE_UP reason=" + reason.logName() + " attempt=" + nextAttempt + "/" + maxAttempts;
            default:
                return "DONE";
        }
    }
}
