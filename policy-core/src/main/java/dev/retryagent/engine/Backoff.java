package dev.retryagent.engine;

import dev.retryagent.policy.BackoffPolicy;

/**
 * The wait before a retry (SPEC 4.4), one implementation per jitter kind. For retry n (n = 1 for the
 * first retry), {@code e = min(cap, base * multiplier^(n-1))}; the cap applies before the jitter.
 */
public abstract class Backoff {
    protected final BackoffPolicy policy;

    protected Backoff(BackoffPolicy policy) {
        this.policy = policy;
    }

    /** The backoff for {@code policy}'s jitter kind. */
    public static Backoff of(BackoffPolicy policy) {
        throw new UnsupportedOperationException("TODO");
    }

    /**
     * Milliseconds to wait before retry {@code retry}.
     *
     * @param retry              1 for the first retry
     * @param previousWaitMillis the wait before the previous retry; ignored except by decorrelated
     *                           jitter, which starts from {@code base} when this is 0
     */
    public abstract long waitMillis(int retry, long previousWaitMillis, RandomSource random);

    /** {@code min(cap, base * multiplier^(retry-1))}, in milliseconds, without overflow. */
    protected final double cappedExponential(int retry) {
        throw new UnsupportedOperationException("TODO");
    }
}
