package dev.retryagent.engine;

import dev.retryagent.policy.BuiltInRetries;
import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetrySettings;

/**
 * What may happen to one call, worked out by the engine before its first attempt ({@link RetryEngine#plan}): its rule
 * and mode, the marker header its attempts carry, whether this layer may retry it at all, whether its decisions depend
 * on time (so that its start is read from the clock), and whether the client's own retries give way to the agent's.
 * Outcome, time, Retry-After and budget aside: those are {@link RetryEngine#decide}'s, after each attempt.
 *
 * <p>A plan depends on the call's rule and on the shape of its request only (nested or marked, keyed, replayable,
 * idempotent, inside a retry layer above the client), so calls of one shape under one rule share one plan: planning a
 * call allocates nothing. Immutable; answers without side effects.
 */
public final class CallPlan {
    /** The call's rule: the call runs under one policy to its end. */
    final ResolvedRule rule;
    /** Why the first attempt may not be followed by a retry whatever its outcome ({@link #refusal}); null: nothing. */
    private final GiveUpReason firstRefusal;
    /** The retry layer above the client the call is made inside, that its rule defers to; null when none. */
    private final LayerRetries layer;
    private final String markerHeader;
    private final boolean timed;

    private CallPlan(ResolvedRule rule, GiveUpReason firstRefusal, boolean markerPresent, boolean enclosed,
                     boolean decidedOnTimeElsewhere, LayerRetries layer) {
        this.rule = rule;
        this.firstRefusal = firstRefusal;
        this.layer = layer;
        boolean mayRetry = rule.mode == Mode.ENFORCE && firstRefusal == null;
        this.markerHeader = markerPresent || rule.marker == null ? null : enclosed || mayRetry ? rule.marker : null;
        // A call whose attempts are bounded reads its start even when it cannot be retried: the bound runs from it.
        this.timed = firstRefusal == null || decidedOnTimeElsewhere || boundsAttempts();
    }

    /** The plans of calls without a layer above the client under one rule, one per {@link #shape}. */
    static CallPlan[] shapes() {
        return new CallPlan[(GiveUpReason.values().length + 1) * 8];
    }

    /** The plan of {@code call} under its rule {@code r}: shared by the calls of its shape, unless inside a layer. */
    static CallPlan of(ResolvedRule r, CallFacts call) {
        GiveUpReason refused = refusal(r.settings, call, 1, false);
        boolean elsewhere = (refused == GiveUpReason.NOT_IDEMPOTENT || refused == GiveUpReason.ATTEMPTS)
                && r.owner.mayRetrySomewhere(call.method(), call.idempotencyKeyPresent());
        boolean marked = call.markerPresent();
        boolean enclosed = call.enclosingAttempt() > 0;
        LayerRetries layer = call.upperLayerRetries();
        if (layer != null) {
            return new CallPlan(r, refused, marked, enclosed, elsewhere, layer);
        }
        int shape = shape(refused, marked, enclosed, elsewhere);
        CallPlan[] plans = r.plans;
        CallPlan p = plans[shape];
        if (p == null) {
            // Racing threads may each make one; they are equal and immutable (final fields), so either will do.
            p = new CallPlan(r, refused, marked, enclosed, elsewhere, null);
            plans[shape] = p;
        }
        return p;
    }

    /**
     * What a plan depends on besides the rule, for a call outside any layer above the client: the first attempt's
     * refusal, the marker, nesting, and whether another rule of the policy could retry the request
     * ({@link ResolvedRule.Policies#mayRetrySomewhere}, asked only where the refusal leaves it open).
     */
    private static int shape(GiveUpReason refused, boolean marked, boolean enclosed, boolean elsewhere) {
        int reason = refused == null ? 0 : refused.ordinal() + 1;
        return reason << 3 | (marked ? 4 : 0) | (enclosed ? 2 : 0) | (elsewhere ? 1 : 0);
    }

    /** The policy the call runs under: the one its facts were read under, or the engine's when planned. */
    public Policy policy() {
        return rule.owner.policy;
    }

    /** What the agent does with the call: the mode of its rule (or the policy's). */
    public Mode mode() {
        return rule.mode;
    }

    /**
     * The marker header name to send with the call's attempts, or null when none is sent
     * (docs/reference.md#one-retry-layer, #observe). A call this layer may retry ({@link #mayRetry()}) is marked, so
     * that layers further down send it once; so is a call made inside an attempt of such a call, which that call's
     * retries cover. Every other request goes out unchanged, so that a layer further down may retry it in this layer's
     * place: a request that already carried the marker, one this layer will never retry, and every request when the
     * marker is disabled or the mode is not {@code enforce}.
     */
    public String markerHeader() {
        return markerHeader;
    }

    /**
     * Whether this layer may retry the call at all (docs/reference.md#one-retry-layer): mode {@code enforce}, more
     * than one attempt allowed, the request neither nested, nor inside a retry layer above the client that its rule
     * defers to and that may retry every outcome the rule retries (docs/reference.md#layers-above-the-client), nor with
     * a body that cannot be replayed, and idempotent or keyed. Only such a call carries the marker and makes the calls
     * inside its attempts nested: a call that will not be retried here leaves the retrying to the layers below it.
     */
    public boolean mayRetry() {
        return rule.mode == Mode.ENFORCE && firstRefusal == null;
    }

    /**
     * Whether a first attempt of the call that failed with {@code kind} could be retried at all: {@link #mayRetry()},
     * the failure kind retryable, and not one the layer above the client, if any, may retry itself. For adapters that
     * must decide, before the request goes out, whether the agent would recover from a failure (a client's own resend
     * is only harmless where it would).
     */
    public boolean mayRetry(FailureKind kind) {
        return rule.settings.retriesFailure(kind) && mayRetry() && !leftToLayer(kind);
    }

    /**
     * Whether a first attempt of the call that failed with {@code kind} before any byte of it reached a server could be
     * retried at all under its rule ({@code retryUnsent}), whatever its method, and not by the layer above the client,
     * if any, itself. For adapters whose client reports such a failure where the agent's loop does not run
     * (HttpURLConnection connects in {@code getOutputStream()}).
     */
    public boolean mayRetryUnsent(FailureKind kind) {
        return rule.mode == Mode.ENFORCE && rule.settings.retriesFailure(kind) && unsentRefusal() == null
                && !leftToLayer(kind);
    }

    /**
     * {@link #refusal} of a first attempt that ended before any byte of it reached a server: the first refusal, but
     * for a request that is not idempotent, which its rule's {@code retryUnsent} may retry all the same.
     */
    private GiveUpReason unsentRefusal() {
        if (firstRefusal != GiveUpReason.NOT_IDEMPOTENT || !rule.settings.retryUnsent()) {
            return firstRefusal;
        }
        return 1 >= rule.settings.maxAttempts() ? GiveUpReason.ATTEMPTS : null;
    }

    /** Whether a failure of {@code kind} is left to the layer above the client the call is made inside, if any. */
    private boolean leftToLayer(FailureKind kind) {
        return layer != null && layer.mayRetry(Outcome.failure(kind));
    }

    /**
     * The last attempt after which the agent may retry the call when that attempt failed with {@code kind} before any
     * byte of it left: its rule's {@code maxAttempts} when {@link #mayRetryUnsent} allows it, else 1 (no attempt is
     * followed by such a retry). For adapters whose client retries such a failure itself, so that one layer does.
     */
    public int lastAttemptRetriedUnsent(FailureKind kind) {
        return mayRetryUnsent(kind) ? rule.settings.maxAttempts() : 1;
    }

    /**
     * Whether the call's rule, in mode {@code enforce}, retries a response with {@code status}, whichever layer's
     * attempt the call is (its facts may be those of an attempt the agent marked). For adapters that must tell whether
     * a client's own follow-up of such a response would double the agent's retry of it.
     */
    public boolean retriesStatus(int status) {
        return rule.mode == Mode.ENFORCE && rule.settings.retryStatuses().contains(status);
    }

    /**
     * True when the client's own hidden retries must be switched off for the call
     * (docs/reference.md#one-retry-layer): its policy says {@code builtInRetries: replace} and its rule is in mode
     * {@code enforce}. A call whose rule is in {@code observe} or {@code off} goes out as without the agent, its
     * client's own retries included (docs/reference.md#observe).
     */
    public boolean replacesClientRetries() {
        return rule.owner.policy.builtInRetries() == BuiltInRetries.REPLACE && rule.mode == Mode.ENFORCE;
    }

    /**
     * Whether the call's start is read from the clock: its attempts are bounded, or its decisions may depend on how
     * long it has run (its deadline, Retry-After, the budget's window): no refusal stops it under its rule, in mode
     * enforce or observe, or under another rule of the same policy, where a client's redirect inside an attempt may
     * have it decided (the refusals that come from the request itself hold under every rule). A call that is not can
     * only be done or refused, and reads no clock.
     */
    public boolean timed() {
        return timed;
    }

    /** Whether the agent bounds each attempt's time (its {@code attemptTimeout}, the deadline's rest). */
    public boolean boundsAttempts() {
        return rule.mode == Mode.ENFORCE && rule.settings.boundsAttempts();
    }

    /**
     * The most the next attempt may take, in milliseconds, {@code elapsedMillis} after the call's start: the rule's
     * {@code attemptTimeout} and the time left before the deadline when the rule sets one or enforces the deadline, at
     * least 1 (an attempt that starts is given a timeout the clients accept; 0 means none to them); 0 when the rule
     * bounds no attempt, or traffic is not the agent's to change (observe).
     */
    long attemptLimitMillis(long elapsedMillis) {
        if (!boundsAttempts()) {
            return 0;
        }
        RetrySettings s = rule.settings;
        long left = s.deadlineMillis() - elapsedMillis;
        long limit = s.attemptTimeoutMillis() > 0 ? Math.min(s.attemptTimeoutMillis(), left) : left;
        return Math.max(1, limit);
    }

    /**
     * Why attempt {@code attempt} of {@code call} may not be followed by a retry under {@code settings}, whatever its
     * outcome and the time, in the contract's order (nested, upper layer, body, idempotency, attempts); null when
     * nothing forbids it. The upper layer here is one that may retry every outcome the rule retries; one that leaves
     * some to this layer takes only those it may retry, once the outcome is known ({@link #leftToLayer}). After an
     * attempt that ended {@code unsent} (a failure before any byte of the request reached a server), the request is no
     * less idempotent than one no server saw, under {@code retryUnsent}.
     */
    static GiveUpReason refusal(RetrySettings settings, CallFacts call, int attempt, boolean unsent) {
        if (call.nested()) {
            return GiveUpReason.NESTED;
        }
        LayerRetries layer = call.upperLayerRetries();
        if (layer != null && layer.mayRetryAll(settings)) {
            return GiveUpReason.UPPER_LAYER;
        }
        if (!call.bodyReplayable()) {
            return GiveUpReason.BODY_NOT_REPLAYABLE;
        }
        if (!call.idempotencyKeyPresent() && !settings.isIdempotentMethod(call.method())
                && !(unsent && settings.retryUnsent())) {
            return GiveUpReason.NOT_IDEMPOTENT;
        }
        return attempt >= settings.maxAttempts() ? GiveUpReason.ATTEMPTS : null;
    }

    /**
     * Whether {@code outcome} of {@code call} is left to the retry layer above the client that {@code call} is made
     * inside: one its rule defers to, and that may retry that outcome (docs/reference.md#layers-above-the-client).
     */
    static boolean leftToLayer(CallFacts call, Outcome outcome) {
        LayerRetries layer = call.upperLayerRetries();
        return layer != null && layer.mayRetry(outcome);
    }
}
