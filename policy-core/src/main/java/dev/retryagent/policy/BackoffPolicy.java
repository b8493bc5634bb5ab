package dev.retryagent.policy;

/** {@code backoff: { base, cap, multiplier, jitter }}: how long to wait before retry n (docs/reference.md#backoff). */
public final class BackoffPolicy {
    private final long baseMillis;
    private final long capMillis;
    private final double multiplier;
    private final Jitter jitter;

    public BackoffPolicy(long baseMillis, long capMillis, double multiplier, Jitter jitter) {
        if (baseMillis < 0 || capMillis < 0) {
            throw new IllegalArgumentException("backoff durations must not be negative");
        }
        if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("backoff multiplier must be a finite number >= 1");
        }
        if (jitter == null) {
            throw new IllegalArgumentException("jitter is required");
        }
        this.baseMillis = baseMillis;
        this.capMillis = capMillis;
        this.multiplier = multiplier;
        this.jitter = jitter;
    }

    public long baseMillis() {
        return baseMillis;
    }

    public long capMillis() {
        return capMillis;
    }

    public double multiplier() {
        return multiplier;
    }

    public Jitter jitter() {
        return jitter;
    }

    public BackoffPolicy withBaseMillis(long value) {
        return new BackoffPolicy(value, capMillis, multiplier, jitter);
    }

    public BackoffPolicy withCapMillis(long value) {
        return new BackoffPolicy(baseMillis, value, multiplier, jitter);
    }

    public BackoffPolicy withMultiplier(double value) {
        return new BackoffPolicy(baseMillis, capMillis, value, jitter);
    }

    public BackoffPolicy withJitter(Jitter value) {
        return new BackoffPolicy(baseMillis, capMillis, multiplier, value);
    }

    @Override
    public String toString() {
        return "{base: " + Durations.format(baseMillis) + ", cap: " + Durations.format(capMillis)
                + ", multiplier: " + multiplier + ", jitter: " + jitter.configName() + "}";
    }
}
