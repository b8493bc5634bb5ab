package dev.retryagent.engine;

import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetryAfterPolicy;
import dev.retryagent.policy.RetrySettings;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

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
    private final Clock clock;
    private final RandomSource random;
    private final Destinations destinations;
    private volatile Policy policy;
    /** Backoffs are immutable per settings; cached so that deciding a retry builds none. */
    private final ConcurrentHashMap<RetrySettings, Backoff> backoffs = new ConcurrentHashMap<RetrySettings, Backoff>();

    public RetryEngine(Policy policy, Clock clock, RandomSource random) {
        this.policy = policy;
        this.clock = clock;
        this.random = random;
        this.destinations = new Destinations(clock);
    }

    public Policy policy() {
        return policy;
    }

    /** Replaces the policy; calls already running finish under the settings they started with. */
    public void setPolicy(Policy policy) {
        this.policy = policy;
        backoffs.clear();
    }

    /** What the agent does with {@code call}: the mode of its rule (or the policy's). */
    public Mode modeFor(CallFacts call) {
        Policy p = policy;
        return p.effectiveMode(settingsFor(p, call));
    }

    /**
     * The marker header name to send with {@code call}'s attempts, or null when none is sent: the marker
     * is disabled, the mode is not {@code enforce}, or the request already carried one (SPEC 4.8, 4.12).
     */
    public String markerHeaderFor(CallFacts call) {
        Policy p = policy;
        if (call.markerPresent() || p.markerHeader() == null || p.effectiveMode(settingsFor(p, call)) != Mode.ENFORCE) {
            return null;
        }
        return p.markerHeader();
    }

    private static RetrySettings settingsFor(Policy p, CallFacts call) {
        return p.settingsFor(call.client(), call.method(), call.host(), call.port(), call.path());
    }

    /**
     * Decides what follows attempt {@code attempt} of {@code call}.
     *
     * @param attempt            the attempt that just ended, 1 for the first
     * @param outcome            how it ended
     * @param elapsedMillis      time since the call began (before its first attempt)
     * @param previousWaitMillis the wait before this attempt (0 for the first), for decorrelated jitter
     */
    public RetryDecision decide(CallFacts call, int attempt, Outcome outcome, long elapsedMillis,
                                long previousWaitMillis) {
        Policy p = policy;
        RetrySettings settings = settingsFor(p, call);
        Mode mode = p.effectiveMode(settings);
        if (mode == Mode.OFF) {
            return RetryDecision.done();
        }
        long now = clock.nanoTime();
        Destination destination = destinations.get(call.scheme(), call.host(), call.port());
        RetryCounters counters = destination.countersFor(call.client());
        if (attempt == 1) {
            counters.calls.increment();
            destination.budget.recordFirstAttempt(now);
        }

        if (!isRetryable(settings, outcome)) {
            if (attempt > 1 && !outcome.isFailure() && outcome.status() < 400) {
                counters.successesAfterRetry.increment();
            }
            return RetryDecision.done();
        }
        int max = settings.maxAttempts();
        if (call.markerPresent()) {
            return giveUp(counters, GiveUpReason.NESTED, attempt, max);
        }
        if (!call.bodyReplayable()) {
            return giveUp(counters, GiveUpReason.BODY_NOT_REPLAYABLE, attempt, max);
        }
        if (!call.idempotencyKeyPresent() && !settings.isIdempotentMethod(call.method())) {
            return giveUp(counters, GiveUpReason.NOT_IDEMPOTENT, attempt, max);
        }
        if (attempt >= max) {
            return giveUp(counters, GiveUpReason.ATTEMPTS, attempt, max);
        }

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
            waitMillis = backoffFor(settings).waitMillis(attempt, previousWaitMillis, random);
        }
        if (elapsedMillis + waitMillis >= settings.deadlineMillis()) {
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

    private Backoff backoffFor(RetrySettings settings) {
        Backoff backoff = backoffs.get(settings);
        if (backoff == null) {
            backoff = Backoff.of(settings.backoff());
            Backoff raced = backoffs.putIfAbsent(settings, backoff);
            if (raced != null) {
                backoff = raced;
            }
        }
        return backoff;
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
