package dev.retryagent.analysis;

import dev.retryagent.policy.BackoffPolicy;
import dev.retryagent.policy.RetrySettings;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The smallest change of maxAttempts (up to {@link PolicyAnalysis#MAX_REASONABLE_ATTEMPTS}), backoff base and cap,
 * and deadline that lets the median call ride an {@link Outage} out; among equal changes, the one whose longest call
 * is shortest. Jitter and multiplier are kept.
 */
public final class Suggestion {
    private final int maxAttempts;
    private final long baseMillis;
    private final long capMillis;
    private final long deadlineMillis;
    private final Timeline timeline;
    private final Set<String> changed;

    private Suggestion(int maxAttempts, long baseMillis, long capMillis, long deadlineMillis, Timeline timeline,
                       Set<String> changed) {
        this.maxAttempts = maxAttempts;
        this.baseMillis = baseMillis;
        this.capMillis = capMillis;
        this.deadlineMillis = deadlineMillis;
        this.timeline = timeline;
        this.changed = changed;
    }

    static Suggestion find(RetrySettings settings, long attemptMillis, long outageMillis) {
        BackoffPolicy now = settings.backoff();
        long[] bases = distinct(now.baseMillis(), 100, 250, 500, 1000, 2000, niceCeil(outageMillis / 8),
                niceCeil(outageMillis / 4));
        long[] caps = distinct(now.capMillis(), 1000, 2000, 4000, 5000, 8000, 10_000, 15_000, 30_000, 60_000,
                niceCeil(outageMillis / 4), niceCeil(outageMillis / 2), niceCeil(outageMillis));
        Suggestion best = null;
        for (int n = 2; n <= PolicyAnalysis.MAX_REASONABLE_ATTEMPTS; n++) {
            for (long base : bases) {
                for (long cap : caps) {
                    boolean current = base == now.baseMillis() && cap == now.capMillis();
                    if (cap < base && !current) {
                        continue;
                    }
                    BackoffPolicy backoff = new BackoffPolicy(base, cap, now.multiplier(), now.jitter());
                    Timeline unbounded = Timeline.of(n, backoff, Long.MAX_VALUE / 2, attemptMillis, false, false);
                    long roomy = Math.max(settings.deadlineMillis(), niceCeil(unbounded.latestStartMillis() + 1));
                    long[] deadlines = settings.deadlineMillis() > outageMillis
                            ? new long[] {settings.deadlineMillis(), roomy} : new long[] {roomy};
                    for (long deadline : deadlines) {
                        Timeline t = Timeline.of(n, backoff, deadline, attemptMillis, settings.boundsAttempts(), true);
                        if (t.medianStartMillis() < outageMillis) {
                            continue;
                        }
                        Set<String> changed = new LinkedHashSet<String>();
                        if (n != settings.maxAttempts()) {
                            changed.add("maxAttempts");
                        }
                        if (base != now.baseMillis()) {
                            changed.add("backoff.base");
                        }
                        if (cap != now.capMillis()) {
                            changed.add("backoff.cap");
                        }
                        if (deadline != settings.deadlineMillis()) {
                            changed.add("deadline");
                        }
                        Suggestion s = new Suggestion(n, base, cap, deadline, t, changed);
                        if (best == null || s.betterThan(best)) {
                            best = s;
                        }
                    }
                }
            }
        }
        return best;
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    public long baseMillis() {
        return baseMillis;
    }

    public long capMillis() {
        return capMillis;
    }

    public long deadlineMillis() {
        return deadlineMillis;
    }

    /** The call's times under the suggested settings. */
    public Timeline timeline() {
        return timeline;
    }

    /** The keys it changes: {@code maxAttempts}, {@code backoff.base}, {@code backoff.cap}, {@code deadline}. */
    public Set<String> changed() {
        return Collections.unmodifiableSet(changed);
    }

    private boolean betterThan(Suggestion other) {
        if (changed.size() != other.changed.size()) {
            return changed.size() < other.changed.size();
        }
        if (timeline.longestTotalMillis() != other.timeline.longestTotalMillis()) {
            return timeline.longestTotalMillis() < other.timeline.longestTotalMillis();
        }
        return maxAttempts < other.maxAttempts;
    }

    private static long[] distinct(long... values) {
        Set<Long> seen = new LinkedHashSet<Long>();
        for (long value : values) {
            if (value > 0 || values[0] == value) {
                seen.add(value);
            }
        }
        long[] result = new long[seen.size()];
        int i = 0;
        for (Long value : seen) {
            result[i++] = value;
        }
        return result;
    }

    /** Rounds up to a duration an operator would write: whole seconds, then 5 s, then minutes. */
    static long niceCeil(long millis) {
        long step = millis <= 10_000 ? 1000 : millis <= 60_000 ? 5000 : millis <= 600_000 ? 60_000 : 300_000;
        return Math.max(step, (millis + step - 1) / step * step);
    }
}
