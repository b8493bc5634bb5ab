package dev.retryagent.policy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The effective retry settings of the {@code defaults} block or of one rule, with every key resolved.
 * Immutable; derive variants with {@link #toBuilder()}.
 */
public final class RetrySettings {
    private final Mode mode;
    private final int maxAttempts;
    private final BackoffPolicy backoff;
    private final long deadlineMillis;
    private final boolean deadlineEnforced;
    private final long attemptTimeoutMillis;
    private final StatusSet retryStatuses;
    private final Set<FailureKind> retryFailures;
    private final boolean[] retryFailureByOrdinal;
    private final RetryAfterPolicy retryAfter;
    private final Set<String> idempotentMethods;
    private final MethodSet idempotentMethodSet;
    private final List<String> idempotencyKeyHeaders;
    private final boolean retryUnsent;
    private final BudgetPolicy budget;
    private final UpperLayers upperLayers;

    private RetrySettings(Builder b) {
        if (b.maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1");
        }
        if (b.deadlineMillis < 0) {
            throw new IllegalArgumentException("deadline must not be negative");
        }
        if (b.attemptTimeoutMillis < 0) {
            throw new IllegalArgumentException("attemptTimeout must not be negative");
        }
        this.mode = b.mode;
        this.maxAttempts = b.maxAttempts;
        this.backoff = require(b.backoff, "backoff");
        this.deadlineMillis = b.deadlineMillis;
        this.deadlineEnforced = b.deadlineEnforced;
        this.attemptTimeoutMillis = b.attemptTimeoutMillis;
        this.retryStatuses = require(b.retryStatuses, "retryOn.statuses");
        EnumSet<FailureKind> failures = EnumSet.noneOf(FailureKind.class);
        failures.addAll(require(b.retryFailures, "retryOn.failures"));
        this.retryFailures = Collections.unmodifiableSet(failures);
        this.retryFailureByOrdinal = new boolean[FailureKind.values().length];
        for (FailureKind kind : retryFailures) {
            retryFailureByOrdinal[kind.ordinal()] = kind != FailureKind.OTHER;
        }
        this.retryAfter = require(b.retryAfter, "retryAfter");
        Set<String> methods = new LinkedHashSet<String>();
        for (String method : require(b.idempotentMethods, "idempotentMethods")) {
            methods.add(method.toUpperCase(Locale.ROOT));
        }
        this.idempotentMethods = Collections.unmodifiableSet(methods);
        this.idempotentMethodSet = new MethodSet(methods);
        this.idempotencyKeyHeaders = Collections.unmodifiableList(
                new ArrayList<String>(require(b.idempotencyKeyHeaders, "idempotencyKeyHeaders")));
        this.retryUnsent = b.retryUnsent;
        this.budget = require(b.budget, "budget");
        this.upperLayers = require(b.upperLayers, "upperLayers");
    }

    private static <T> T require(T value, String key) {
        if (value == null) {
            throw new IllegalArgumentException(key + " is required");
        }
        return value;
    }

    /** The built-in {@code defaults} of docs/reference.md#the-policy-file. */
    public static RetrySettings builtIn() {
        return new Builder()
                .maxAttempts(3)
                .backoff(new BackoffPolicy(100, 2000, 2.0, Jitter.FULL))
                .deadlineMillis(10_000)
                .retryStatuses(StatusSet.of(408, 429, 502, 503, 504))
                .retryFailures(EnumSet.of(FailureKind.CONNECT, FailureKind.RESET, FailureKind.TIMEOUT))
                .retryAfter(new RetryAfterPolicy(true, 30_000, 0.5))
                .idempotentMethods(Arrays.asList("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"))
                .idempotencyKeyHeaders(Collections.singletonList("Idempotency-Key"))
                .budget(new BudgetPolicy(0.1, 10))
                .upperLayers(UpperLayers.DEFER)
                .build();
    }

    /** This rule's own mode, or null when it inherits the policy's. */
    public Mode mode() {
        return mode;
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    public BackoffPolicy backoff() {
        return backoff;
    }

    public long deadlineMillis() {
        return deadlineMillis;
    }

    /** {@code deadline.enforce}: the deadline also cuts the last attempt short, not only the waits. */
    public boolean deadlineEnforced() {
        return deadlineEnforced;
    }

    /** Each attempt's connect and read timeout at most this; 0 when the rule sets none. */
    public long attemptTimeoutMillis() {
        return attemptTimeoutMillis;
    }

    /**
     * Whether the agent bounds every attempt's time: with {@code attemptTimeout} set, or the deadline enforced.
     * Then each attempt's timeouts end at the deadline at the latest.
     */
    public boolean boundsAttempts() {
        return deadlineEnforced || attemptTimeoutMillis > 0;
    }

    public StatusSet retryStatuses() {
        return retryStatuses;
    }

    public Set<FailureKind> retryFailures() {
        return retryFailures;
    }

    public boolean retriesFailure(FailureKind kind) {
        return retryFailureByOrdinal[kind.ordinal()];
    }

    public RetryAfterPolicy retryAfter() {
        return retryAfter;
    }

    /** Upper-case method names. */
    public Set<String> idempotentMethods() {
        return idempotentMethods;
    }

    public boolean isIdempotentMethod(String method) {
        return idempotentMethodSet.contains(method);
    }

    /** {@link #idempotentMethods()}, as the engine asks it on every call. */
    public MethodSet idempotentMethodSet() {
        return idempotentMethodSet;
    }

    public List<String> idempotencyKeyHeaders() {
        return idempotencyKeyHeaders;
    }

    /**
     * {@code retryUnsent}: a request that failed before any byte of it reached a server (refused, unreachable,
     * connect timeout, an HTTP/2 stream the peer did not process) may be retried whatever its method, as an idempotent
     * one would be (docs/reference.md#requests-that-never-left).
     */
    public boolean retryUnsent() {
        return retryUnsent;
    }

    /**
     * Whether these settings retry a request that never left whatever its method: {@link #retryUnsent()}, and
     * {@code connect} among the failures retried (a connect failure is the one every client reports so).
     */
    public boolean retriesUnsentRequests() {
        return retryUnsent && retriesFailure(FailureKind.CONNECT);
    }

    public BudgetPolicy budget() {
        return budget;
    }

    /** What a call made inside another layer's retry loop gets (docs/reference.md#layers-above-the-client). */
    public UpperLayers upperLayers() {
        return upperLayers;
    }

    /** The failure kinds as policy files spell them: {@code [connect, reset, timeout]}. */
    private List<String> failureNames() {
        List<String> names = new ArrayList<String>();
        for (FailureKind kind : retryFailures) {
            names.add(kind.configName());
        }
        return names;
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    @Override
    public String toString() {
        return "{mode: " + (mode == null ? "(policy's)" : mode.configName())
                + ", maxAttempts: " + maxAttempts
                + ", backoff: " + backoff
                + ", deadline: " + (deadlineEnforced
                        ? "{after: " + Durations.format(deadlineMillis) + ", enforce: true}"
                        : Durations.format(deadlineMillis))
                + (attemptTimeoutMillis > 0 ? ", attemptTimeout: " + Durations.format(attemptTimeoutMillis) : "")
                + ", retryOn: {statuses: " + retryStatuses + ", failures: " + failureNames() + "}"
                + ", retryAfter: " + retryAfter
                + ", idempotentMethods: " + idempotentMethods
                + ", idempotencyKeyHeaders: " + idempotencyKeyHeaders
                + ", retryUnsent: " + retryUnsent
                + ", budget: " + budget
                + ", upperLayers: " + upperLayers.configName() + "}";
    }

    /** Builds settings; {@link #toBuilder()} starts from existing ones so a rule overrides key by key. */
    public static final class Builder {
        private Mode mode;
        private int maxAttempts;
        private BackoffPolicy backoff;
        private long deadlineMillis;
        private boolean deadlineEnforced;
        private long attemptTimeoutMillis;
        private StatusSet retryStatuses;
        private Set<FailureKind> retryFailures;
        private RetryAfterPolicy retryAfter;
        private List<String> idempotentMethods;
        private List<String> idempotencyKeyHeaders;
        private boolean retryUnsent = true;
        private BudgetPolicy budget;
        private UpperLayers upperLayers;

        public Builder() {
        }

        private Builder(RetrySettings s) {
            mode = s.mode;
            maxAttempts = s.maxAttempts;
            backoff = s.backoff;
            deadlineMillis = s.deadlineMillis;
            deadlineEnforced = s.deadlineEnforced;
            attemptTimeoutMillis = s.attemptTimeoutMillis;
            retryStatuses = s.retryStatuses;
            retryFailures = s.retryFailures;
            retryAfter = s.retryAfter;
            idempotentMethods = new ArrayList<String>(s.idempotentMethods);
            idempotencyKeyHeaders = s.idempotencyKeyHeaders;
            retryUnsent = s.retryUnsent;
            budget = s.budget;
            upperLayers = s.upperLayers;
        }

        public Builder mode(Mode value) {
            mode = value;
            return this;
        }

        public Builder maxAttempts(int value) {
            maxAttempts = value;
            return this;
        }

        public Builder backoff(BackoffPolicy value) {
            backoff = value;
            return this;
        }

        public Builder deadlineMillis(long value) {
            deadlineMillis = value;
            return this;
        }

        public Builder deadlineEnforced(boolean value) {
            deadlineEnforced = value;
            return this;
        }

        /** 0 for none. */
        public Builder attemptTimeoutMillis(long value) {
            attemptTimeoutMillis = value;
            return this;
        }

        public Builder retryStatuses(StatusSet value) {
            retryStatuses = value;
            return this;
        }

        public Builder retryFailures(Set<FailureKind> value) {
            retryFailures = value;
            return this;
        }

        public Builder retryAfter(RetryAfterPolicy value) {
            retryAfter = value;
            return this;
        }

        public Builder idempotentMethods(List<String> value) {
            idempotentMethods = new ArrayList<String>(value);
            return this;
        }

        public Builder idempotencyKeyHeaders(List<String> value) {
            idempotencyKeyHeaders = new ArrayList<String>(value);
            return this;
        }

        public Builder retryUnsent(boolean value) {
            retryUnsent = value;
            return this;
        }

        public Builder budget(BudgetPolicy value) {
            budget = value;
            return this;
        }

        public Builder upperLayers(UpperLayers value) {
            upperLayers = value;
            return this;
        }

        public BackoffPolicy backoff() {
            return backoff;
        }

        public RetryAfterPolicy retryAfter() {
            return retryAfter;
        }

        public BudgetPolicy budget() {
            return budget;
        }

        public RetrySettings build() {
            return new RetrySettings(this);
        }
    }
}
