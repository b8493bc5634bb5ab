package dev.retryagent.policy;

/**
 * {@code budget: { ratio, minPerSecond }} (docs/reference.md#budget): per destination, in any 10 s window, retries are
 * at most {@code ratio} times the first attempts in that window plus {@code minPerSecond * 10}.
 */
public final class BudgetPolicy {
    /** The window the budget is counted over. */
    public static final int WINDOW_SECONDS = 10;

    private final double ratio;
    private final int minPerSecond;

    public BudgetPolicy(double ratio, int minPerSecond) {
        if (!(ratio >= 0.0 && ratio <= 1.0)) {
            throw new IllegalArgumentException("budget.ratio must be within 0..1");
        }
        if (minPerSecond < 0) {
            throw new IllegalArgumentException("budget.minPerSecond must not be negative");
        }
        this.ratio = ratio;
        this.minPerSecond = minPerSecond;
    }

    public double ratio() {
        return ratio;
    }

    public int minPerSecond() {
        return minPerSecond;
    }

    public BudgetPolicy withRatio(double value) {
        return new BudgetPolicy(value, minPerSecond);
    }

    public BudgetPolicy withMinPerSecond(int value) {
        return new BudgetPolicy(ratio, value);
    }

    /** The most retries allowed in a window that saw {@code firstAttempts} first attempts. */
    public long allowedRetries(long firstAttempts) {
        return (long) Math.floor(ratio * firstAttempts) + (long) minPerSecond * WINDOW_SECONDS;
    }

    @Override
    public String toString() {
        return "{ratio: " + ratio + ", minPerSecond: " + minPerSecond + "}";
    }
}
