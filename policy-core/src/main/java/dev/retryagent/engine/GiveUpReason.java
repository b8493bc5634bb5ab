package dev.retryagent.engine;

/** Why a retryable outcome went back to the caller without a retry (docs/reference.md#what-it-reports). */
public enum GiveUpReason {
    ATTEMPTS("attempts"),
    DEADLINE("deadline"),
    BUDGET("budget"),
    RETRY_AFTER_TOO_LONG("retry-after-too-long"),
    NOT_IDEMPOTENT("not-idempotent"),
    BODY_NOT_REPLAYABLE("body-not-replayable"),
    NESTED("nested"),
    /** The call is made inside a retry loop above the client that the rule defers to
     * (docs/reference.md#layers-above-the-client). */
    UPPER_LAYER("upper-layer");

    private final String logName;

    GiveUpReason(String logName) {
        this.logName = logName;
    }

    /** The word used in log lines and metrics. */
    public String logName() {
        return logName;
    }
}
