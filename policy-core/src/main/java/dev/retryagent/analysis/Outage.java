package dev.retryagent.analysis;

import dev.retryagent.policy.RetrySettings;

/**
 * Whether a call that starts when an outage begins still has an attempt left once it is over: its last attempt
 * starts at or after the outage's end. The best case is the longest draws of the jitter; the median case the
 * median draw; the share is the part of sampled calls that ride it out.
 */
public final class Outage {
    private final long outageMillis;
    private final boolean bestCase;
    private final boolean medianCase;
    private final double share;
    private Suggestion suggestion;

    private Outage(long outageMillis, boolean bestCase, boolean medianCase, double share) {
        this.outageMillis = outageMillis;
        this.bestCase = bestCase;
        this.medianCase = medianCase;
        this.share = share;
    }

    static Outage of(RetrySettings settings, long attemptMillis, long outageMillis, Timeline t) {
        Outage o = new Outage(outageMillis, ridesOut(t, outageMillis), t.medianStartMillis() >= outageMillis,
                t.shareStartingFrom(outageMillis));
        if (!o.medianCase) {
            o.suggestion = Suggestion.find(settings, attemptMillis, outageMillis);
        }
        return o;
    }

    /** At best: an attempt bound by the deadline starts before it, so only a deadline past the outage helps. */
    static boolean ridesOut(Timeline t, long outageMillis) {
        return t.deadlineBound() ? t.deadlineMillis() > outageMillis : t.latestStartMillis() >= outageMillis;
    }

    public long outageMillis() {
        return outageMillis;
    }

    /** The longest draws ride it out. */
    public boolean bestCase() {
        return bestCase;
    }

    /** The median call rides it out. */
    public boolean medianCase() {
        return medianCase;
    }

    /** The share of sampled calls that ride it out. */
    public double share() {
        return share;
    }

    /** Null when the median call rides it out, or nothing reasonable does. */
    public Suggestion suggestion() {
        return suggestion;
    }
}
