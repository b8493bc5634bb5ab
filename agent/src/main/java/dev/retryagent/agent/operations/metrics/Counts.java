package dev.retryagent.agent.operations.metrics;

import dev.retryagent.engine.GiveUpReason;
import dev.retryagent.engine.RetryCounters;

/** The values of the docs/reference.md#what-it-reports counters at one moment, summed over any number of {@link
 * RetryCounters}. */
final class Counts {
    private static final GiveUpReason[] REASONS = GiveUpReason.values();

    long calls;
    long retries;
    long successesAfterRetry;
    long wouldRetry;
    long upperLayerCalls;
    long attemptTimeouts;
    long unsentRetries;
    final long[] giveUps = new long[REASONS.length];

    void add(RetryCounters c) {
        calls += c.calls();
        retries += c.retries();
        successesAfterRetry += c.successesAfterRetry();
        wouldRetry += c.wouldRetry();
        upperLayerCalls += c.upperLayerCalls();
        attemptTimeouts += c.attemptTimeouts();
        unsentRetries += c.unsentRetries();
        for (GiveUpReason reason : REASONS) {
            giveUps[reason.ordinal()] += c.giveUps(reason);
        }
    }

    void add(Counts c) {
        calls += c.calls;
        retries += c.retries;
        successesAfterRetry += c.successesAfterRetry;
        wouldRetry += c.wouldRetry;
        upperLayerCalls += c.upperLayerCalls;
        attemptTimeouts += c.attemptTimeouts;
        unsentRetries += c.unsentRetries;
        for (int i = 0; i < giveUps.length; i++) {
            giveUps[i] += c.giveUps[i];
        }
    }

    long attempts() {
        return calls + retries;
    }

    long giveUps(GiveUpReason reason) {
        return giveUps[reason.ordinal()];
    }

    long budgetRefusals() {
        return giveUps(GiveUpReason.BUDGET);
    }
}
