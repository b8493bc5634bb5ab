package dev.retryagent.it.harness;

/** The policy of the tests whose counts depend on the retry layers alone (the one-layer tests, the reloads). */
public final class Policies {
    private Policies() {
    }

    /**
     * {@code maxAttempts: 3}, waits of a few milliseconds, a budget that never refuses, plus {@code topLevel} (such as
     * {@code builtInRetries: keep} or {@code marker: { enabled: false }}).
     */
    public static String threeAttempts(String topLevel) {
        return attempts(3, topLevel);
    }

    /** As {@link #threeAttempts}, with {@code maxAttempts: n}. */
    public static String attempts(int n, String topLevel) {
        return """
                version: 1
                %s
                defaults:
                  maxAttempts: %d
                  backoff: { base: 1ms, cap: 5ms }
                  budget: { ratio: 1.0, minPerSecond: 1000 }
                """.formatted(topLevel, n);
    }
}
