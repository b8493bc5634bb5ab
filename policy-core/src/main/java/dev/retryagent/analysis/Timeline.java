package dev.retryagent.analysis;

import dev.retryagent.engine.Backoff;
import dev.retryagent.engine.RandomSource;
import dev.retryagent.policy.BackoffPolicy;
import dev.retryagent.policy.RetryAfterPolicy;
import java.util.Arrays;

/**
 * The times of a call whose every attempt fails in a way worth retrying, each taking {@code attemptMillis}: exact
 * bounds from the extreme draws of the jitter ({@link Backoff#shortestWait}, {@link Backoff#longestWait}), and
 * medians over {@link PolicyAnalysis#SAMPLES} seeded draws of the engine's own {@link Backoff}.
 *
 * <p>As the engine runs a call (docs/reference.md#backoff, #deadline): attempt 1 starts at 0; after attempt k ends at
 * {@code elapsed}, the wait w before attempt k+1 is drawn, and the call gives up when {@code elapsed + w >= deadline};
 * otherwise attempt k+1 starts at {@code elapsed + w}. An attempt is cut short only when the rule bounds attempts
 * ({@code attemptTimeout} or an enforced deadline): then none outlasts the deadline.
 */
public final class Timeline {
    private final int maxAttempts;
    private final long deadlineMillis;
    private final long attemptMillis;
    /** The deadline ends the last attempt too ({@code attemptTimeout} set, or the deadline enforced). */
    private final boolean attemptsBounded;
    /** Indexed by retry, from 1: the shortest and the longest wait the jitter can draw (the latter not drawn,
     * approached). */
    final long[] minWait;
    final long[] supWait;

    private int longestAttempts;
    private long latestStartMillis;
    private boolean deadlineBound;

    private int medianAttempts;
    private long medianWaitMillis;
    private long medianStartMillis;
    private long medianTotalMillis;
    /** Start of each sampled call's last attempt, sorted. */
    private long[] lastStarts;

    private Timeline(int maxAttempts, long deadlineMillis, long attemptMillis, boolean attemptsBounded, long[] minWait,
                     long[] supWait) {
        this.maxAttempts = maxAttempts;
        this.deadlineMillis = deadlineMillis;
        this.attemptMillis = attemptMillis;
        this.attemptsBounded = attemptsBounded;
        this.minWait = minWait;
        this.supWait = supWait;
        bounds();
    }

    static Timeline of(int maxAttempts, BackoffPolicy policy, long deadlineMillis, long attemptMillis,
                       boolean attemptsBounded, boolean sample) {
        Backoff backoff = Backoff.of(policy);
        long[][] waits = waitBounds(maxAttempts, backoff);
        Timeline t = new Timeline(maxAttempts, deadlineMillis, attemptMillis, attemptsBounded, waits[0], waits[1]);
        if (sample) {
            t.sample(backoff);
        }
        return t;
    }

    /** Exact bounds when a server answers with Retry-After: a wait can then be anything up to max x (1 + spread). */
    static Timeline withRetryAfter(int maxAttempts, BackoffPolicy policy, long deadlineMillis, long attemptMillis,
                                   boolean attemptsBounded, RetryAfterPolicy ra) {
        long[][] waits = waitBounds(maxAttempts, Backoff.of(policy));
        long longest = longestRetryAfterWait(ra);
        for (int retry = 1; retry < maxAttempts; retry++) {
            waits[0][retry] = 0; // Retry-After: 0
            waits[1][retry] = Math.max(waits[1][retry], longest);
        }
        return new Timeline(maxAttempts, deadlineMillis, attemptMillis, attemptsBounded, waits[0], waits[1]);
    }

    /** The longest wait a Retry-After can ask for under {@code ra}: its max, spread out. */
    public static long longestRetryAfterWait(RetryAfterPolicy ra) {
        return saturate(ra.maxMillis() * (1 + ra.spread()));
    }

    /** The most attempts of one call when every attempt fails at once. */
    static int mostAttempts(int maxAttempts, BackoffPolicy policy, long deadlineMillis) {
        return of(maxAttempts, policy, deadlineMillis, 0, false, false).longestAttempts;
    }

    public long deadlineMillis() {
        return deadlineMillis;
    }

    public long attemptMillis() {
        return attemptMillis;
    }

    /** Attempts of the longest call. */
    public int longestAttempts() {
        return longestAttempts;
    }

    /** The latest the longest call's last attempt can start. */
    public long latestStartMillis() {
        return latestStartMillis;
    }

    /** The deadline, not the backoff, bounds the latest start (the attempt then starts just before it). */
    public boolean deadlineBound() {
        return deadlineBound;
    }

    public int medianAttempts() {
        return medianAttempts;
    }

    public long medianWaitMillis() {
        return medianWaitMillis;
    }

    public long medianStartMillis() {
        return medianStartMillis;
    }

    public long medianTotalMillis() {
        return medianTotalMillis;
    }

    public long longestTotalMillis() {
        return ended(latestStartMillis);
    }

    /** Whether the deadline ends the last attempt too, so that no call outlasts it. */
    public boolean attemptsBounded() {
        return attemptsBounded;
    }

    /** When an attempt that starts at {@code startMillis} and takes its whole time ends. */
    private long ended(long startMillis) {
        long end = startMillis + attemptMillis;
        return attemptsBounded ? Math.min(end, Math.max(startMillis, deadlineMillis)) : end;
    }

    public long longestWaitMillis() {
        return latestStartMillis - (longestAttempts - 1) * attemptMillis;
    }

    /** Share of sampled calls whose last attempt starts at or after {@code millis}. */
    double shareStartingFrom(long millis) {
        int from = Arrays.binarySearch(lastStarts, millis);
        if (from < 0) {
            from = -from - 1;
        } else {
            while (from > 0 && lastStarts[from - 1] == millis) {
                from--;
            }
        }
        return (lastStarts.length - from) / (double) lastStarts.length;
    }

    /**
     * The latest start is the largest attempt number m whose earliest start (shortest draws) is before the
     * deadline: the draws can then place it anywhere up to its latest start, or just before the deadline.
     */
    private void bounds() {
        double earliest = 0;
        double latest = 0;
        longestAttempts = 1;
        latestStartMillis = 0;
        deadlineBound = false;
        for (int m = 2; m <= maxAttempts; m++) {
            earliest += attemptMillis + minWait[m - 1];
            latest += attemptMillis + supWait[m - 1];
            if (earliest >= deadlineMillis) {
                break;
            }
            longestAttempts = m;
            deadlineBound = latest >= deadlineMillis;
            latestStartMillis = deadlineBound ? deadlineMillis : (long) latest;
        }
    }

    private void sample(Backoff backoff) {
        RandomSource random = RandomSource.seeded(PolicyAnalysis.SEED);
        int samples = PolicyAnalysis.SAMPLES;
        int[] attempts = new int[samples];
        long[] waits = new long[samples];
        long[] starts = new long[samples];
        for (int s = 0; s < samples; s++) {
            long elapsed = attemptMillis;
            long start = 0;
            long waited = 0;
            long previous = 0;
            int made = 1;
            for (int retry = 1; retry < maxAttempts; retry++) {
                long wait = backoff.waitMillis(retry, previous, random);
                if (elapsed + wait >= deadlineMillis) {
                    break;
                }
                start = elapsed + wait;
                waited += wait;
                previous = wait;
                made++;
                elapsed = start + attemptMillis;
            }
            attempts[s] = made;
            waits[s] = waited;
            starts[s] = start;
        }
        Arrays.sort(attempts);
        Arrays.sort(waits);
        Arrays.sort(starts);
        lastStarts = starts;
        medianAttempts = attempts[samples / 2];
        medianWaitMillis = waits[samples / 2];
        medianStartMillis = starts[samples / 2];
        medianTotalMillis = ended(medianStartMillis);
    }

    /**
     * [0][retry]: shortest wait, [1][retry]: longest, for retry 1 .. maxAttempts - 1, as the engine's backoff draws
     * them (docs/reference.md#backoff).
     */
    private static long[][] waitBounds(int maxAttempts, Backoff backoff) {
        long[] min = new long[Math.max(maxAttempts, 2)];
        long[] sup = new long[min.length];
        double previousLongest = 0;
        for (int retry = 1; retry < min.length; retry++) {
            min[retry] = saturate(backoff.shortestWait(retry));
            previousLongest = backoff.longestWait(retry, previousLongest);
            sup[retry] = saturate(previousLongest);
        }
        return new long[][] {min, sup};
    }

    /** Milliseconds, capped so that sums of a few of them cannot overflow. */
    private static long saturate(double millis) {
        return millis >= Long.MAX_VALUE / 4 ? Long.MAX_VALUE / 4 : (long) millis;
    }
}
