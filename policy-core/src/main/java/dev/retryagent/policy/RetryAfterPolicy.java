package dev.retryagent.policy;

/** {@code retryAfter: { honor, max, spread }}: how a server's Retry-After is obeyed (docs/reference.md#retry-after). */
public final class RetryAfterPolicy {
    private final boolean honor;
    private final long maxMillis;
    private final double spread;

    public RetryAfterPolicy(boolean honor, long maxMillis, double spread) {
        if (maxMillis < 0) {
            throw new IllegalArgumentException("retryAfter.max must not be negative");
        }
        if (!(spread >= 0.0) || Double.isInfinite(spread)) {
            throw new IllegalArgumentException("retryAfter.spread must be a finite number >= 0");
        }
        this.honor = honor;
        this.maxMillis = maxMillis;
        this.spread = spread;
    }

    public boolean honor() {
        return honor;
    }

    public long maxMillis() {
        return maxMillis;
    }

    public double spread() {
        return spread;
    }

    public RetryAfterPolicy withHonor(boolean value) {
        return new RetryAfterPolicy(value, maxMillis, spread);
    }

    public RetryAfterPolicy withMaxMillis(long value) {
        return new RetryAfterPolicy(honor, value, spread);
    }

    public RetryAfterPolicy withSpread(double value) {
        return new RetryAfterPolicy(honor, maxMillis, value);
    }

    @Override
    public String toString() {
        return "{honor: " + honor + ", max: " + Durations.format(maxMillis) + ", spread: " + spread + "}";
    }
}
