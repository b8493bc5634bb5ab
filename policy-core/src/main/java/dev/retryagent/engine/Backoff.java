package dev.retryagent.engine;

import dev.retryagent.policy.BackoffPolicy;

/**
 * The wait before a retry (docs/reference.md#backoff), one implementation per jitter kind. For retry n (n = 1 for the
 * first retry), {@code e = min(cap, base * multiplier^(n-1))}; the cap applies before the jitter.
 *
 * <p>Instances are immutable and thread-safe; build one when a policy is loaded and reuse it, since
 * {@link #waitMillis} allocates nothing. Waits are whole milliseconds, rounded down.
 */
public abstract class Backoff {
    protected final BackoffPolicy policy;

    /** The policy's numbers as doubles once, so that every wait does its arithmetic without conversions. */
    private final double baseMillis;
    private final double capMillis;
    private final double multiplier;

    protected Backoff(BackoffPolicy policy) {
        if (policy == null) {
            throw new IllegalArgumentException("backoff policy is required");
        }
        this.policy = policy;
        this.baseMillis = policy.baseMillis();
        this.capMillis = policy.capMillis();
        this.multiplier = policy.multiplier();
    }

    /** The backoff for {@code policy}'s jitter kind. */
    public static Backoff of(BackoffPolicy policy) {
        if (policy == null) {
            throw new IllegalArgumentException("backoff policy is required");
        }
        switch (policy.jitter()) {
            case FULL:
                return new FullJitterBackoff(policy);
            case EQUAL:
                return new EqualJitterBackoff(policy);
            case DECORRELATED:
                return new DecorrelatedJitterBackoff(policy);
            case NONE:
                return new NoJitterBackoff(policy);
            default:
                throw new IllegalArgumentException("unknown jitter " + policy.jitter());
        }
    }

    /**
     * Milliseconds to wait before retry {@code retry}.
     *
     * @param retry              1 for the first retry; values below 1 are treated as 1
     * @param previousWaitMillis the wait before the previous retry; ignored except by decorrelated
     *                           jitter, which starts from {@code base} when this is 0 or less
     */
    public abstract long waitMillis(int retry, long previousWaitMillis, RandomSource random);

    /**
     * The shortest wait {@link #waitMillis} draws before retry {@code retry}, before it is rounded down to whole
     * milliseconds: for what a policy's waits can be without drawing them ({@code check}).
     */
    public abstract double shortestWait(int retry);

    /**
     * The least upper bound of the waits {@link #waitMillis} draws before retry {@code retry}, before they are rounded
     * down (a jittered draw approaches it), when the previous wait was at most {@code previousLongest} (0 before the
     * first retry; only decorrelated jitter depends on it): chained retry by retry, the longest a call can wait.
     */
    public abstract double longestWait(int retry, double previousLongest);

    /** {@code min(cap, base * multiplier^(retry-1))}, in milliseconds, without overflow. */
    protected final double cappedExponential(int retry) {
        // multiplier >= 1, so once base reaches the cap every later retry is capped too; this also keeps
        // base 0 away from 0 * Infinity = NaN for huge retry numbers.
        if (baseMillis == 0 || baseMillis >= capMillis) {
            return Math.min(baseMillis, capMillis);
        }
        int exponent = Math.max(retry, 1) - 1;
        // A finite multiplier >= 1 to a non-negative power is finite or +Infinity, never NaN, and
        // min(cap, +Infinity) is the cap: overflow saturates instead of wrapping.
        return Math.min(capMillis, baseMillis * Math.pow(multiplier, exponent));
    }

    protected final double baseMillis() {
        return baseMillis;
    }

    protected final double capMillis() {
        return capMillis;
    }

    /** Rounds a non-negative wait down to whole milliseconds; the cast saturates above Long.MAX_VALUE. */
    static long wholeMillis(double millis) {
        return (long) millis;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + policy;
    }

    /** {@code U(0, e)}: spreads clients over the whole interval, the least synchronised choice. */
    static final class FullJitterBackoff extends Backoff {
        FullJitterBackoff(BackoffPolicy policy) {
            super(policy);
        }

        @Override
        public long waitMillis(int retry, long previousWaitMillis, RandomSource random) {
            return wholeMillis(cappedExponential(retry) * random.nextDouble());
        }

        @Override
        public double shortestWait(int retry) {
            return 0;
        }

        @Override
        public double longestWait(int retry, double previousLongest) {
            return cappedExponential(retry);
        }
    }

    /** {@code e/2 + U(0, e/2)}: keeps at least half of the exponential wait. */
    static final class EqualJitterBackoff extends Backoff {
        EqualJitterBackoff(BackoffPolicy policy) {
            super(policy);
        }

        @Override
        public long waitMillis(int retry, long previousWaitMillis, RandomSource random) {
            double half = cappedExponential(retry) / 2;
            return wholeMillis(half + half * random.nextDouble());
        }

        @Override
        public double shortestWait(int retry) {
            return cappedExponential(retry) / 2;
        }

        @Override
        public double longestWait(int retry, double previousLongest) {
            return cappedExponential(retry);
        }
    }

    /**
     * {@code min(cap, U(base, prev * 3))}, where prev is the previous wait, or base when there was none.
     * A previous wait shorter than base / 3 would make the range empty; the draw is then from
     * {@code [base, base]}, i.e. exactly base (before the cap), so the wait never drops below base.
     * The retry number plays no part: the growth comes from the previous wait.
     */
    static final class DecorrelatedJitterBackoff extends Backoff {
        DecorrelatedJitterBackoff(BackoffPolicy policy) {
            super(policy);
        }

        @Override
        public long waitMillis(int retry, long previousWaitMillis, RandomSource random) {
            double base = baseMillis();
            double draw = base + (upper(previousWaitMillis) - base) * random.nextDouble();
            return wholeMillis(Math.min(capMillis(), draw));
        }

        @Override
        public double shortestWait(int retry) {
            return Math.min(capMillis(), baseMillis());
        }

        @Override
        public double longestWait(int retry, double previousLongest) {
            return Math.min(capMillis(), upper(previousLongest));
        }

        /** The top of the draw's range before the cap: {@code max(base, prev * 3)}, prev base when there was none. */
        private double upper(double previousWaitMillis) {
            double base = baseMillis();
            double previous = previousWaitMillis > 0 ? previousWaitMillis : base;
            // In double arithmetic, so that a huge previous wait cannot overflow into a negative bound.
            return Math.max(base, previous * 3);
        }
    }

    /** {@code e}: no randomness, so clients that failed together retry together; for a server few clients share. */
    static final class NoJitterBackoff extends Backoff {
        NoJitterBackoff(BackoffPolicy policy) {
            super(policy);
        }

        @Override
        public long waitMillis(int retry, long previousWaitMillis, RandomSource random) {
            return wholeMillis(cappedExponential(retry));
        }

        @Override
        public double shortestWait(int retry) {
            return cappedExponential(retry);
        }

        @Override
        public double longestWait(int retry, double previousLongest) {
            return cappedExponential(retry);
        }
    }
}
