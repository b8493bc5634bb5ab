package dev.retryagent.engine;

import java.util.concurrent.atomic.LongAdder;

/** The counters of docs/reference.md#what-it-reports for one client and one destination. Attempts are calls plus
 * retries. */
public final class RetryCounters {
    private final String client;
    final LongAdder calls = new LongAdder();
    final LongAdder retries = new LongAdder();
    /** Retries after a failure before any byte of the request reached a server (among {@link #retries}). */
    final LongAdder unsentRetries = new LongAdder();
    final LongAdder successesAfterRetry = new LongAdder();
    final LongAdder wouldRetry = new LongAdder();
    /** Calls made inside a retry layer above the client the rule defers to (the outcomes it retries are its own). */
    final LongAdder upperLayerCalls = new LongAdder();
    /** Attempts that ran into the limit the policy gave them ({@code attemptTimeout} or the deadline). */
    final LongAdder attemptTimeouts = new LongAdder();
    final LongAdder[] giveUps = new LongAdder[GiveUpReason.values().length];

    RetryCounters(String client) {
        this.client = client;
        for (int i = 0; i < giveUps.length; i++) {
            giveUps[i] = new LongAdder();
        }
    }

    public String client() {
        return client;
    }

    public long calls() {
        return calls.sum();
    }

    public long attempts() {
        return calls.sum() + retries.sum();
    }

    public long retries() {
        return retries.sum();
    }

    public long unsentRetries() {
        return unsentRetries.sum();
    }

    public long successesAfterRetry() {
        return successesAfterRetry.sum();
    }

    public long wouldRetry() {
        return wouldRetry.sum();
    }

    public long upperLayerCalls() {
        return upperLayerCalls.sum();
    }

    public long attemptTimeouts() {
        return attemptTimeouts.sum();
    }

    public long giveUps(GiveUpReason reason) {
        return giveUps[reason.ordinal()].sum();
    }

    public long budgetRefusals() {
        return giveUps(GiveUpReason.BUDGET);
    }
}
