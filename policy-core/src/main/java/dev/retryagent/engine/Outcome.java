package dev.retryagent.engine;

import dev.retryagent.policy.FailureKind;

/** How one attempt ended: a status (with its Retry-After, if any) or a failure without a response. */
public final class Outcome {
    private static final Outcome[] STATUSES = new Outcome[600];
    private static final Outcome[] FAILURES = new Outcome[FailureKind.values().length];
    private static final Outcome[] UNSENT_FAILURES = new Outcome[FailureKind.values().length];
    /** A {@code timeout} of the agent's own making: the attempt ran into the limit the policy set for it. */
    private static final Outcome ATTEMPT_TIMEOUT = new Outcome(0, null, FailureKind.TIMEOUT, true, false);

    static {
        for (int code = 0; code < STATUSES.length; code++) {
            STATUSES[code] = new Outcome(code, null, null, false, false);
        }
        for (FailureKind kind : FailureKind.values()) {
            FAILURES[kind.ordinal()] = new Outcome(0, null, kind, false, false);
            UNSENT_FAILURES[kind.ordinal()] = new Outcome(0, null, kind, false, true);
        }
    }

    private final int status;
    private final String retryAfter;
    private final FailureKind failure;
    private final boolean attemptTimeout;
    private final boolean unsent;

    private Outcome(int status, String retryAfter, FailureKind failure, boolean attemptTimeout, boolean unsent) {
        this.status = status;
        this.retryAfter = retryAfter;
        this.failure = failure;
        this.attemptTimeout = attemptTimeout;
        this.unsent = unsent;
    }

    /** A response; {@code retryAfter} is the raw header value or null. Shared instances when it is null. */
    public static Outcome status(int status, String retryAfter) {
        if (retryAfter == null && status >= 0 && status < STATUSES.length) {
            return STATUSES[status];
        }
        return new Outcome(status, retryAfter, null, false, false);
    }

    /** A failure after which the request may have reached a server, whole or in part. */
    public static Outcome failure(FailureKind kind) {
        return FAILURES[kind.ordinal()];
    }

    /**
     * A failure before any byte of the request reached a server (refused, unreachable, connect timeout, an HTTP/2
     * stream the peer did not process): retried whatever the method under {@code retryUnsent}
     * (docs/reference.md#requests-that-never-left).
     */
    public static Outcome unsentFailure(FailureKind kind) {
        return UNSENT_FAILURES[kind.ordinal()];
    }

    /** Whether this is an {@link #unsentFailure}: no server has read a byte of the request. */
    public boolean isUnsent() {
        return unsent;
    }

    /**
     * A {@code timeout} failure that the attempt's limit from the policy ({@code attemptTimeout}, or the deadline)
     * caused, not a timeout of the application's own: decided as any {@code timeout}, told apart in logs and metrics.
     */
    public static Outcome attemptTimeout() {
        return ATTEMPT_TIMEOUT;
    }

    /** Whether this is {@link #attemptTimeout()}. */
    public boolean isAttemptTimeout() {
        return attemptTimeout;
    }

    public boolean isFailure() {
        return failure != null;
    }

    /** The status code, or 0 for a failure. */
    public int status() {
        return status;
    }

    /** The raw Retry-After value, or null. */
    public String retryAfter() {
        return retryAfter;
    }

    /** The failure kind, or null for a response. */
    public FailureKind failure() {
        return failure;
    }

    /** {@code status:503}, {@code failure:reset} or {@code attempt-timeout}, as log lines write the cause. */
    public String cause() {
        if (attemptTimeout) {
            return "attempt-timeout";
        }
        return failure != null ? "failure:" + failure.configName() : "status:" + status;
    }

    @Override
    public String toString() {
        return cause();
    }
}
