package dev.retryagent.engine;

import dev.retryagent.policy.RetrySettings;
import dev.retryagent.policy.StatusSet;

/**
 * A retry layer above the client (docs/reference.md#layers-above-the-client) and what its loop retries of the outcomes
 * of its attempts, as far as its own configuration tells (its hook reads it when the loop starts). The engine leaves
 * to the layer only the outcomes it may retry; an outcome it is known not to retry is this layer's to retry, under the
 * call's rule. What cannot be told counts as retried: deferring is the safe side, a retry of the agent's inside each of
 * the layer's would multiply the attempts. Immutable; a hook answers one of a few constants, so that a call allocates
 * nothing for it.
 */
public final class LayerRetries {
    /** What a layer does with one kind of outcome. */
    public enum Failures {
        /** Retries a failure without a response (an I/O error of its client), whatever its kind. */
        RETRIED,
        /** Never retries one: the failure goes back to the application. */
        NOT_RETRIED,
        /** Cannot be told (an application's own classifier). */
        UNKNOWN
    }

    /** Which responses a layer retries. */
    public enum Statuses {
        /** None: every response goes back to the application. */
        NONE,
        /** Every response that is not a success. */
        ALL,
        /** A response that carries {@code Retry-After}, whatever its status; none without it. */
        WITH_RETRY_AFTER,
        /** The statuses of a set, and no other. */
        LISTED,
        /** Cannot be told. */
        UNKNOWN
    }

    /** What a loop whose retries are switched off answers: no layer ({@link UpperLayer#RETRIES_OFF}). */
    public static final LayerRetries RETRIES_OFF = new LayerRetries(UpperLayer.RETRIES_OFF, Failures.NOT_RETRIED,
            Statuses.NONE, null, null);

    private final String layer;
    private final Failures failures;
    private final Statuses statuses;
    /** The statuses retried, for {@link Statuses#LISTED}; else null. */
    private final StatusSet listed;
    /** The layer whose loop this one runs inside, on the same thread (with its own outer ones), or null. */
    private final LayerRetries outer;

    private LayerRetries(String layer, Failures failures, Statuses statuses, StatusSet listed, LayerRetries outer) {
        if (layer == null || failures == null || statuses == null) {
            throw new IllegalArgumentException("a layer's name, its failures and its statuses");
        }
        this.layer = layer;
        this.failures = failures;
        this.statuses = statuses;
        this.listed = listed;
        this.outer = outer;
    }

    /** Layer {@code layer}, of which nothing is known but that it retries: every outcome is left to it. */
    public static LayerRetries unknown(String layer) {
        return new LayerRetries(layer, Failures.UNKNOWN, Statuses.UNKNOWN, null, null);
    }

    /** Layer {@code layer}, retrying {@code failures} and {@code statuses} (not {@link Statuses#LISTED}). */
    public static LayerRetries of(String layer, Failures failures, Statuses statuses) {
        if (statuses == Statuses.LISTED) {
            throw new IllegalArgumentException("listed statuses need their set");
        }
        return new LayerRetries(layer, failures, statuses, null, null);
    }

    /** Layer {@code layer}, retrying {@code failures} and the responses whose status is in {@code statuses}. */
    public static LayerRetries listed(String layer, Failures failures, StatusSet statuses) {
        if (statuses == null) {
            throw new IllegalArgumentException("listed statuses need their set");
        }
        return new LayerRetries(layer, failures, Statuses.LISTED, statuses, null);
    }

    /** The layer's name, as log lines write it ({@code layer=feign}). */
    public String layer() {
        return layer;
    }

    public Failures failures() {
        return failures;
    }

    public Statuses statuses() {
        return statuses;
    }

    /** Whether this is {@link #RETRIES_OFF}: the loop is no layer. */
    boolean isRetriesOff() {
        return this == RETRIES_OFF;
    }

    /**
     * This layer run inside {@code enclosing} (the innermost layer around it on the thread, with its own outer ones):
     * an outcome is left to the two when either may retry it, since the outer one retries whatever comes out of the
     * inner one's loop. This very layer when it may retry every outcome anyway, or when there is none around it.
     */
    LayerRetries within(LayerRetries enclosing) {
        if (enclosing == null || (failures != Failures.NOT_RETRIED
                && (statuses == Statuses.ALL || statuses == Statuses.UNKNOWN))) {
            return this;
        }
        return new LayerRetries(layer, failures, statuses, listed, enclosing);
    }

    /** Whether this layer, or one it runs inside, may retry {@code outcome}: true unless each is known not to. */
    boolean mayRetry(Outcome outcome) {
        return mayRetryItself(outcome) || (outer != null && outer.mayRetry(outcome));
    }

    /**
     * The name of the layer that may retry {@code outcome}, for the log: this one's, or the first around it that
     * may; this one's when none may.
     */
    String layerFor(Outcome outcome) {
        return outer == null || mayRetryItself(outcome) ? layer : outer.layerFor(outcome);
    }

    private boolean mayRetryItself(Outcome outcome) {
        if (outcome.isFailure()) {
            return failures != Failures.NOT_RETRIED;
        }
        switch (statuses) {
            case NONE:
                return false;
            case WITH_RETRY_AFTER:
                return outcome.retryAfter() != null;
            case LISTED:
                return listed.contains(outcome.status());
            default:
                return true;
        }
    }

    /**
     * Whether the layer may retry every outcome {@code settings} retry, so that the agent retries none of its calls:
     * they go out unmarked and are decided before the attempt, as when nothing is known of the layer.
     */
    boolean mayRetryAll(RetrySettings settings) {
        // Each layer on its own: outcomes split between two layers are found at the decision, after the attempt.
        return mayRetryAllItself(settings) || (outer != null && outer.mayRetryAll(settings));
    }

    private boolean mayRetryAllItself(RetrySettings settings) {
        if (failures == Failures.NOT_RETRIED && !settings.retryFailures().isEmpty()) {
            return false;
        }
        switch (statuses) {
            case NONE:
            case WITH_RETRY_AFTER:
                return settings.retryStatuses().isEmpty();
            case LISTED:
                return listed.containsAll(settings.retryStatuses());
            default:
                return true;
        }
    }

    @Override
    public String toString() {
        return layer + " failures=" + failures + " statuses=" + (listed != null ? listed.toString() : statuses)
                + (outer != null ? ", inside " + outer : "");
    }
}
