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

    private static final RetryDecision DONE = new RetryDecision(Action.DONE, 0, null, 0, 0);

    private final Action action;
    private final long waitMillis;
    private final GiveUpReason reason;
    private final int nextAttempt;
    private final int maxAttempts;

    private RetryDecision(Action action, long waitMillis, GiveUpReason reason, int nextAttempt, int maxAttempts) {
        this.action = action;
        this.waitMillis = waitMillis;
        this.reason = reason;
        this.nextAttempt = nextAttempt;
        this.maxAttempts = maxAttempts;
    }

    public static RetryDecision done() {
        return DONE;
    }

    public static RetryDecision retry(long waitMillis, int nextAttempt, int maxAttempts) {
        return new RetryDecision(Action.RETRY, waitMillis, null, nextAttempt, maxAttempts);
    }

    public static RetryDecision wouldRetry(long waitMillis, int nextAttempt, int maxAttempts) {
        return new RetryDecision(Action.WOULD_RETRY, waitMillis, null, nextAttempt, maxAttempts);
    }

    public static RetryDecision giveUp(GiveUpReason reason, int attempt, int maxAttempts) {
        return new RetryDecision(Action.GIVE_UP, 0, reason, attempt, maxAttempts);
    }

    public Action action() {
        return action;
    }

    /** True only for {@link Action#RETRY}: the caller must wait and try again. */
    public boolean shouldRetry() {
        return action == Action.RETRY;
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
