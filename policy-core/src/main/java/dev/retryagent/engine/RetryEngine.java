package dev.retryagent.engine;

import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetryAfterPolicy;
import dev.retryagent.policy.RetrySettings;
import java.util.List;

/**
 * The one retry engine: given the facts of an attempt, it returns a {@link RetryDecision}. It never
 * waits and never touches a client; time and randomness are injected. Thread-safe and JVM-wide: the
 * per-destination budgets and counters are shared by every client.
 *
 * <p>The order of the checks is the contract's: classify first (a success or a non-retryable outcome
 * is simply done), then the reasons that forbid any retry of this request (nested, body, idempotency),
 * then the ones that depend on time (attempts, Retry-After, deadline), and the budget last, so that a
 * retry refused for another reason never spends budget.
 */
public final class RetryEngine {
    static final int MEMO_MISSES_BEFORE_REPLACING = 64;

    private final Clock clock;
    private final RandomSource random;
    private final Destinations destinations;
    /** The policy with its rules' settings, modes, markers and backoffs worked out once. */
    private volatile Resolution.Policies policies;
    /** The one before, for calls whose facts were read under it just before a reload. */
    private volatile Resolution.Policies previous;
    /**
     * The memo a destination was last given ({@link #lastLookup}). Replaced only when a memo is made (once per
     * destination and policy, or after a run of misses there), never on a hit, so that calls to many endpoints do
     * not write it on every call.
     */
    private volatile Resolution.Memo lastMemo;

    public RetryEngine(Policy policy, Clock clock, RandomSource random) {
        this.clock = clock;
        this.random = random;
        this.destinations = new Destinations(clock);
        setPolicy(policy);
    }

    public Policy policy() {
        Resolution.Policies p = policies;
        return p == null ? null : p.policy;
    }

    /**
     * Replaces the policy. Calls that start afterwards run under the new one; a call already started (asked about
     * once) keeps the one it started with to its end, so that no call sees half of two policies.
     */
    public synchronized void setPolicy(Policy policy) {
        Resolution.Policies current = this.policies;
        if (current != null && current.policy == policy) {
            return;
        }
        this.previous = current;
        // A null policy is kept as null, so that the next question fails and the loops fail open.
        this.policies = policy == null ? null : new Resolution.Policies(policy);
    }

    /**
     * What the agent does with {@code call}: the mode of its rule (or the policy's). The call's rule is the one
     * {@link CallFacts.Builder#build} found, under the policy the facts were read under; for facts made otherwise it
     * is looked up at each question (through the last lookup made for the call's destination, when the client,
     * method, host, port and path are the same). A loop's run looks it up once and keeps it to the call's end.
     */
    public Mode modeFor(CallFacts call) {
        return resolve(call).mode;
    }

    /**
     * The marker header name to send with {@code call}'s attempts, or null when none is sent
     * (docs/reference.md#one-retry-layer, #observe). A call this layer may retry ({@link #mayRetry(CallFacts)}) is
     * marked, so that layers further down send it once; so is a call made inside an attempt of such a call, which that
     * call's retries cover. Every other request goes out unchanged, so that a layer further down may retry it in this
     * layer's place: a request that already carried the marker, one this layer will never retry, and every request when
     * the marker is disabled or the mode is not {@code enforce}.
     */
    public String markerHeaderFor(CallFacts call) {
        if (call.markerPresent()) {
            return null;
        }
        Resolution r = resolve(call);
        return r.marker == null ? null : markerHeaderFor(r, call, mayRetry(r, call));
    }

    /** {@link #markerHeaderFor(CallFacts)} under {@code call}'s rule {@code r}, {@code mayRetry} its answer. */
    static String markerHeaderFor(Resolution r, CallFacts call, boolean mayRetry) {
        if (call.markerPresent() || r.marker == null) {
            return null;
        }
        return call.enclosingAttempt() > 0 || mayRetry ? r.marker : null;
    }

    /** {@code call}'s rule, as {@link #modeFor} and the other questions about it find it (for the loops). */
    Resolution resolution(CallFacts call) {
        return resolve(call);
    }

    /**
     * The rule of {@code at}, the facts a client's redirect took a call's attempt to, in a run whose call's rule
     * {@code callRule} is: under the policy {@code at} names, or else the one of the call's rule, so that the call
     * sees one policy to its end.
     */
    Resolution resolution(CallFacts at, Resolution callRule) {
        return at.resolution != null ? at.resolution
                : lookUp(at.readUnder != null ? policiesFor(at) : callRule.owner, at);
    }

    /** The rule {@link CallFacts.Builder#build} found for the call; else looked up now. */
    private Resolution resolve(CallFacts call) {
        Resolution r = call.resolution;
        return r != null ? r : lookUp(policiesFor(call), call);
    }

    /** {@code call}'s rule under {@code p}, through the last lookup at its destination when it is for this call. */
    private Resolution lookUp(Resolution.Policies p, CallFacts call) {
        int removals = destinations.removals();
        Resolution.Memo last = lastLookup(p, removals, call.client(), call.method(), call.scheme(), call.host(),
                call.port(), call.path());
        if (last != null) {
            return last.resolution;
        }
        Destination d = destinations.find(call.scheme(), call.host(), call.port());
        return lookUp(p, d, removals, call.client(), call.method(), call.host(), call.port(), call.path());
    }

    /** {@link CallFacts.Builder#build(RetryEngine, HeaderLookup)}: the call's rule under the current policy. */
    CallFacts read(CallFacts.Builder call, HeaderLookup headers) {
        Resolution.Policies p = policies;
        int removals = destinations.removals();
        Resolution.Memo last = lastLookup(p, removals, call.client, call.method, call.scheme, call.host, call.port,
                call.path);
        Destination d = last != null ? last.destination : destinations.find(call.scheme, call.host, call.port);
        Resolution r = last != null ? last.resolution
                : lookUp(p, d, removals, call.client, call.method, call.host, call.port, call.path);
        return call.build(r, p.policy, headers, d, removals);
    }

    /** The policy to answer a call under: the one its facts were read under, or else the current one. */
    private Resolution.Policies policiesFor(CallFacts call) {
        Resolution.Policies p = policies;
        Policy under = call.readUnder;
        if (under == null || p == null || p.policy == under) {
            return p;
        }
        Resolution.Policies before = previous;
        if (before != null && before.policy == under) {
            return before;
        }
        // Read under a policy two reloads back: rare enough to work it out anew.
        return new Resolution.Policies(under);
    }

    /**
     * The lookup last remembered at a destination, engine-wide, when it is for this very call (client, method,
     * scheme, host, port, path, under policy {@code p}) and its destination was not dropped since ({@code removals});
     * else null. A service whose calls mostly go to one endpoint finds that endpoint's rule and destination here
     * without the table's chain of dependent loads.
     */
    private Resolution.Memo lastLookup(Resolution.Policies p, int removals, String client, String method,
                                       String scheme, String host, int port, String path) {
        Resolution.Memo last = lastMemo;
        return last != null && last.removals == removals && last.isFor(p, client, method, host, port, path)
                && last.destination.is(scheme, port) ? last : null;
    }

    /**
     * The rule lookup: {@link Policy#ruleFor}, unless the last lookup at the call's destination was for
     * the same client, method, host, port and path under the same policy. Destinations are only found
     * here, never added, so that calls the agent leaves alone leave no trace.
     */
    private Resolution lookUp(Resolution.Policies p, Destination d, int removals, String client, String method,
                              String host, int port, String path) {
        if (d == null) {
            return p.resolve(client, method, host, port, path);
        }
        Resolution.Memo memo = d.ruleMemo;
        if (memo != null && memo.isFor(p, client, method, host, port, path)) {
            return memo.resolution;
        }
        Resolution r = p.resolve(client, method, host, port, path);
        if (p != policies) {
            return r; // a call that started under the policy before: the memo is for the current one
        }
        // Calls whose paths never repeat (ids in the path) must not replace the memo on every call:
        // that would allocate each time. It is replaced when it is missing or from an older policy, and
        // otherwise after a run of misses, so that a destination whose common call changes follows it.
        if (memo == null || memo.resolution.owner != p || ++d.ruleMemoMisses >= MEMO_MISSES_BEFORE_REPLACING) {
            d.ruleMemoMisses = 0;
            Resolution.Memo made = new Resolution.Memo(r, client, method, host, port, path, d, removals);
            d.ruleMemo = made;
            lastMemo = made;
        }
        return r;
    }

    /**
     * Whether this layer may retry {@code call} at all (docs/reference.md#one-retry-layer): mode {@code enforce}, more
     * than one attempt allowed, the request neither nested, nor inside a retry layer above the client that its rule
     * defers to and that may retry every outcome the rule retries (docs/reference.md#layers-above-the-client), nor with
     * a body that cannot be replayed, and idempotent or keyed. Outcome, time, Retry-After and budget aside. Only such a
     * call carries the marker and makes the calls inside its attempts nested: a call that will not be retried here
     * leaves the retrying to the layers below it. No side effects.
     */
    public boolean mayRetry(CallFacts call) {
        return mayRetry(resolve(call), call);
    }

    /**
     * Whether a first attempt of {@code call} that failed with {@code kind} could be retried at all under its rule:
     * {@link #mayRetry(CallFacts)}, the failure kind retryable, and not one the layer above the client, if any, may
     * retry itself. For adapters that must decide, before the request goes out, whether the agent would recover from a
     * failure (a client's own resend is only harmless where it would). No side effects: nothing is counted.
     */
    public boolean mayRetry(CallFacts call, FailureKind kind) {
        Resolution r = resolve(call);
        return r.settings.retriesFailure(kind) && mayRetry(r, call) && !leftToLayer(call, Outcome.failure(kind));
    }

    /**
     * Whether a first attempt of {@code call} that failed with {@code kind} before any byte of it reached a server could
     * be retried at all under its rule ({@code retryUnsent}), whatever its method, and not by the layer above the
     * client, if any, itself. For adapters whose client reports such a failure where the agent's loop does not run
     * (HttpURLConnection connects in {@code getOutputStream()}). No side effects.
     */
    public boolean mayRetryUnsent(CallFacts call, FailureKind kind) {
        Resolution r = resolve(call);
        return r.mode == Mode.ENFORCE && r.settings.retriesFailure(kind) && refusal(r.settings, call, 1, true) == null
                && !leftToLayer(call, Outcome.failure(kind));
    }

    /**
     * The last attempt after which the agent may retry {@code call} when that attempt failed with {@code kind} before
     * any byte of it left: its rule's {@code maxAttempts} when {@link #mayRetryUnsent} allows it, else 1 (no attempt
     * is followed by such a retry). For adapters whose client retries such a failure itself, so that one layer does.
     * No side effects.
     */
    public int lastAttemptRetriedUnsent(CallFacts call, FailureKind kind) {
        return mayRetryUnsent(call, kind) ? resolve(call).settings.maxAttempts() : 1;
    }

    /**
     * Whether {@code call}'s rule, in mode {@code enforce}, retries a response with {@code status}, whichever layer's
     * attempt {@code call} is (its facts may be those of an attempt the agent marked). For adapters that must tell
     * whether a client's own follow-up of such a response would double the agent's retry of it. No side effects.
     */
    public boolean retriesStatus(CallFacts call, int status) {
        Resolution r = resolve(call);
        return r.mode == Mode.ENFORCE && r.settings.retryStatuses().contains(status);
    }

    static boolean mayRetry(Resolution r, CallFacts call) {
        return mayRetry(r, refusal(r.settings, call, 1));
    }

    /** {@link #mayRetry(Resolution, CallFacts)}, given the {@link #refusal} of its first attempt. */
    static boolean mayRetry(Resolution r, GiveUpReason firstRefusal) {
        return r.mode == Mode.ENFORCE && firstRefusal == null;
    }

    /**
     * Whether a decision about {@code call}, whose rule {@code r} is not off and refuses a retry after the first
     * attempt for {@code firstRefusal} (null: none), may depend on how long the call has run (its deadline,
     * Retry-After, the budget's window): no refusal stops it under its rule, in mode enforce or observe, or under
     * another rule of the same policy, where a client's redirect inside an attempt may have it decided (the refusals
     * that come from the request itself hold under every rule). When not, each decision is done or a refusal, and the
     * call needs no clock reading.
     */
    static boolean decidesOnTime(Resolution r, CallFacts call, GiveUpReason firstRefusal) {
        if (firstRefusal == null) {
            return true;
        }
        return (firstRefusal == GiveUpReason.NOT_IDEMPOTENT || firstRefusal == GiveUpReason.ATTEMPTS)
                && r.owner.mayRetrySomewhere(call.method(), call.idempotencyKeyPresent());
    }

    /**
     * Why attempt {@code attempt} of {@code call} may not be followed by a retry under {@code settings}, whatever its
     * outcome and the time, in the contract's order (nested, upper layer, body, idempotency, attempts); null when
     * nothing forbids it. The upper layer here is one that may retry every outcome the rule retries; one that leaves
     * some to this layer takes only those it may retry, once the outcome is known ({@link #leftToLayer}).
     */
    static GiveUpReason refusal(RetrySettings settings, CallFacts call, int attempt) {
        return refusal(settings, call, attempt, false);
    }

    /**
     * {@link #refusal(RetrySettings, CallFacts, int)} after an attempt that ended with {@code unsent} (a failure before
     * any byte of the request reached a server): such a request is no less idempotent than one no server saw, under
     * {@code retryUnsent}.
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
     * Counts a call at {@code call}'s destination (its counters' {@code calls}, its budget's first attempts) whose
     * attempt was redirected by the client to another destination, where it is decided. For a run: its rule is not
     * off.
     */
    void countCall(CallFacts call, boolean timed, long startNanos) {
        Destination destination = destinationOfDecisions(call);
        destination.countersFor(call.client()).calls.increment();
        recordFirstAttempt(destination, timed, startNanos);
    }

    /** Counts a first attempt in the destination's budget, at {@code nowNanos} when {@code timed}. */
    private static void recordFirstAttempt(Destination destination, boolean timed, long nowNanos) {
        if (timed) {
            destination.budget.recordFirstAttempt(nowNanos);
        } else {
            destination.budget.recordUndatedFirstAttempt();
        }
    }

    /**
     * Decides what follows attempt {@code attempt} of {@code call}, under its rule {@code r}. The call started at
     * {@code startNanos} on {@code loopClock}, which is read only when the time matters. A first attempt is counted
     * in the budget at the call's start, when it went out; the elapsed time (for the deadline) and the budget's
     * "now" are read only for an outcome that may be retried and no refusal stops. So the common case, a first
     * attempt that succeeds, costs the one clock read the loop made at the start of the call.
     *
     * @param attempt            the attempt that just ended, 1 for the first
     * @param outcome            how it ended
     * @param previousWaitMillis the wait before this attempt (0 for the first), for decorrelated jitter
     * @param timed              whether the loop read the clock at the call's start ({@code startNanos}); it does only
     *                           for a call that {@link #decidesOnTime}, and a call that does not is counted in the
     *                           budget without a reading
     * @param firstAtDestination this is the call's first decision at {@code call}'s destination: the call is
     *                           counted there (attempt 1, or the first attempt a client's redirect took there)
     */
    RetryDecision decide(CallFacts call, Resolution r, int attempt, Outcome outcome, long previousWaitMillis,
                         long startNanos, boolean timed, Clock loopClock, boolean firstAtDestination) {
        return decide(call, r, attempt, outcome, previousWaitMillis, startNanos, 0, false, timed, loopClock,
                firstAtDestination);
    }

    /**
     * As {@link #decide(CallFacts, Resolution, int, Outcome, long, long, boolean, Clock, boolean)}, for a call the
     * application limited to {@code callerLimitMillis} from its start (0: not at all): a deadline besides the rule's,
     * whichever comes first. With {@code clientsResend}, a reset past the deadline is followed by the one resend the
     * client alone would have made ({@link RetryDecision#clientsResend}).
     */
    RetryDecision decide(CallFacts call, Resolution r, int attempt, Outcome outcome, long previousWaitMillis,
                         long startNanos, long callerLimitMillis, boolean clientsResend, boolean timed,
                         Clock loopClock, boolean firstAtDestination) {
        if (r.mode == Mode.OFF) {
            return RetryDecision.done();
        }
        Destination destination = destinationOfDecisions(call);
        RetryCounters counters = destination.countersFor(call.client());
        if (firstAtDestination) {
            countFirst(counters, call);
            recordFirstAttempt(destination, timed, timed && attempt > 1 ? loopClock.nanoTime() : startNanos);
        }
        if (outcome.isAttemptTimeout()) {
            counters.attemptTimeouts.increment();
        }
        RetryDecision settled = withoutTime(r.settings, counters, call, attempt, outcome);
        if (settled != null) {
            return settled;
        }
        if (!timed) {
            // decidesOnTime answered for every rule of the call's policy, and redirected facts keep that policy.
            throw new IllegalStateException("a call that read no clock at its start is decided on time");
        }
        long now = loopClock.nanoTime();
        return decideOnTime(r, destination, counters, attempt, outcome, (now - startNanos) / 1_000_000L,
                previousWaitMillis, now, callerLimitMillis, clientsResend);
    }

    /**
     * The decision when the time does not matter to it: done for an outcome that is not retried, a give-up for a
     * {@link #refusal}; else null.
     */
    private static RetryDecision withoutTime(RetrySettings settings, RetryCounters counters, CallFacts call,
                                             int attempt, Outcome outcome) {
        if (!isRetryable(settings, outcome)) {
            return done(counters, attempt, outcome);
        }
        GiveUpReason refused = refusal(settings, call, attempt, outcome.isUnsent());
        if (refused != GiveUpReason.NESTED && leftToLayer(call, outcome)) {
            refused = GiveUpReason.UPPER_LAYER; // the contract's order: before body, idempotency and attempts
        }
        return refused == null ? null : giveUp(counters, refused, attempt, settings.maxAttempts());
    }

    /**
     * Whether {@code outcome} of {@code call} is left to the retry layer above the client that {@code call} is made
     * inside: one its rule defers to, and that may retry that outcome (docs/reference.md#layers-above-the-client).
     */
    static boolean leftToLayer(CallFacts call, Outcome outcome) {
        LayerRetries layer = call.upperLayerRetries();
        return layer != null && layer.mayRetry(outcome);
    }

    /** A call's first decision at a destination: counted there, and as deferred to the layer above it, if one. */
    private static void countFirst(RetryCounters counters, CallFacts call) {
        counters.calls.increment();
        if (call.upperLayer() != null) {
            counters.upperLayerCalls.increment();
        }
    }

    /** The call is done: its outcome is not one to retry (a success, counted when it came after a retry). */
    private static RetryDecision done(RetryCounters counters, int attempt, Outcome outcome) {
        if (attempt > 1 && !outcome.isFailure() && outcome.status() < 400) {
            counters.successesAfterRetry.increment();
        }
        return RetryDecision.done();
    }

    /**
     * The rest of a decision about an outcome that may be retried and that no {@link #refusal} stops: the checks
     * that depend on the time, in the contract's order.
     */
    private RetryDecision decideOnTime(Resolution r, Destination destination, RetryCounters counters, int attempt,
                                       Outcome outcome, long elapsedMillis, long previousWaitMillis, long now,
                                       long callerLimitMillis, boolean clientsResend) {
        Mode mode = r.mode;
        RetrySettings settings = r.settings;
        int max = settings.maxAttempts();
        long waitMillis = -1;
        RetryAfterPolicy retryAfter = settings.retryAfter();
        if (retryAfter.honor() && outcome.retryAfter() != null) {
            long askedMillis = RetryAfter.delayMillis(outcome.retryAfter(), clock.currentTimeMillis());
            if (askedMillis > retryAfter.maxMillis()) {
                return giveUp(counters, GiveUpReason.RETRY_AFTER_TOO_LONG, attempt, max);
            }
            if (askedMillis >= 0) {
                // Never earlier than asked; spread above the floor so that clients told the same
                // delay do not come back in the same instant.
                waitMillis = askedMillis + (long) (random.nextDouble() * askedMillis * retryAfter.spread());
            }
        }
        if (waitMillis < 0) {
            waitMillis = r.backoff().waitMillis(attempt, previousWaitMillis, random);
        }
        long deadline = callerLimitMillis > 0 ? Math.min(settings.deadlineMillis(), callerLimitMillis)
                : settings.deadlineMillis();
        if (elapsedMillis + waitMillis >= deadline) {
            if (clientsResend && mode == Mode.ENFORCE && outcome.failure() == FailureKind.RESET) {
                counters.retries.increment(); // as the client alone: at once, whatever the budget
                return RetryDecision.clientsResend(attempt + 1, max);
            }
            return giveUp(counters, GiveUpReason.DEADLINE, attempt, max);
        }

        if (mode == Mode.OBSERVE) {
            if (!destination.budget.wouldAllowRetry(now, settings.budget())) {
                return giveUp(counters, GiveUpReason.BUDGET, attempt, max);
            }
            counters.wouldRetry.increment();
            return RetryDecision.wouldRetry(waitMillis, attempt + 1, max);
        }
        if (!destination.budget.tryAcquireRetry(now, settings.budget())) {
            return giveUp(counters, GiveUpReason.BUDGET, attempt, max);
        }
        counters.retries.increment();
        if (outcome.isUnsent()) {
            counters.unsentRetries.increment();
        }
        return RetryDecision.retry(waitMillis, attempt + 1, max);
    }

    private static boolean isRetryable(RetrySettings settings, Outcome outcome) {
        return outcome.isFailure()
                ? settings.retriesFailure(outcome.failure())
                : settings.retryStatuses().contains(outcome.status());
    }

    private static RetryDecision giveUp(RetryCounters counters, GiveUpReason reason, int attempt, int max) {
        counters.giveUps[reason.ordinal()].increment();
        return RetryDecision.giveUp(reason, attempt, max);
    }

    /**
     * The destination whose budget and counters {@code call}'s decisions use: the one its facts were built at, or the
     * last lookup's when that was at {@code call}'s address, unless one was dropped since; else from the table (added
     * when new).
     */
    private Destination destinationOfDecisions(CallFacts call) {
        int removals = destinations.removals();
        Destination d = call.destination;
        if (d != null && call.destinationRemovals == removals) {
            return d;
        }
        Resolution.Memo last = lastMemo;
        if (last != null && last.removals == removals && last.isAt(call.scheme(), call.host(), call.port())) {
            return last.destination;
        }
        return destinations.get(call.scheme(), call.host(), call.port());
    }

    /** The destination whose budget and counters {@code call}'s decisions use (for the log's summary lines). */
    Destination destinationOf(CallFacts call) {
        return destinations.get(call.scheme(), call.host(), call.port());
    }

    /** Every destination seen, with its counters per client (for JMX and tests). */
    public List<Destination> destinations() {
        return destinations.all();
    }

    /** The counters of {@code client} at a destination, or null when it has none yet. */
    public RetryCounters counters(String client, String scheme, String host, int port) {
        for (Destination d : destinations.all()) {
            if (d.host().equalsIgnoreCase(host) && d.is(scheme, port)) {
                for (RetryCounters c : d.counters()) {
                    if (c.client().equals(client)) {
                        return c;
                    }
                }
            }
        }
        return null;
    }
}
