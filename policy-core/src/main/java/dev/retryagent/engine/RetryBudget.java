package dev.retryagent.engine;

import dev.retryagent.policy.BudgetPolicy;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The retry budget of one destination (docs/reference.md#budget): over the last {@link BudgetPolicy#WINDOW_SECONDS}
 * seconds, counted in one-second buckets, retries are at most {@code ratio} times the first attempts
 * plus {@code minPerSecond * 10}.
 *
 * <p>First attempts are the hot path: one compare-and-set on a packed (second, count) bucket, no lock.
 * Retries are rare, so taking one checks and spends under this object's monitor, held only for the
 * arithmetic, never across a call.
 */
final class RetryBudget {
    private static final int SLOTS = BudgetPolicy.WINDOW_SECONDS;
    private static final int COUNT_BITS = 24;
    private static final long COUNT_MASK = (1L << COUNT_BITS) - 1;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final long originNanos;
    /** Per slot: (second since origin) << COUNT_BITS | first attempts in that second. */
    private final AtomicLongArray firsts = new AtomicLongArray(SLOTS);
    /** Same packing, for retries; guarded by {@code this}. */
    private final long[] retries = new long[SLOTS];
    /**
     * The latest second of a clock reading given here: the second a first attempt is counted in when its call read
     * no clock. Racy: a thread that read the clock a moment earlier may set an earlier second, which only makes such
     * first attempts leave the window sooner.
     */
    private volatile long latestSecond = 1;
    /** Whether a first attempt was counted without a clock reading since {@link #seenWithin} last looked. */
    private volatile boolean undatedSinceSeen;
    /** When {@link #seenWithin} last found {@link #undatedSinceSeen} set, else when this budget was made. */
    private long undatedSeenNanos;

    RetryBudget(long nowNanos) {
        // Seconds are counted from one second before creation so that every stamp is >= 1 and an
        // empty slot (0) never looks current.
        this.originNanos = nowNanos - NANOS_PER_SECOND;
        this.undatedSeenNanos = nowNanos;
    }

    private long second(long nowNanos) {
        long second = (nowNanos - originNanos) / NANOS_PER_SECOND;
        return second < 1 ? 1 : second;
    }

    /** {@link #second}, remembered as the latest when it is (written once a second, not once a call). */
    private long reading(long nowNanos) {
        long second = second(nowNanos);
        if (second > latestSecond) {
            latestSecond = second;
        }
        return second;
    }

    private static long stamp(long packed) {
        return packed >>> COUNT_BITS;
    }

    private static long count(long packed) {
        return packed & COUNT_MASK;
    }

    void recordFirstAttempt(long nowNanos) {
        record(reading(nowNanos));
    }

    /**
     * Counts a first attempt of a call that read no clock (one that cannot be retried) in the second of the latest
     * reading given here before it: its own second while calls that read the clock come here every second, else an
     * earlier one, so that it leaves the window sooner and the budget allows fewer retries, never more.
     */
    void recordUndatedFirstAttempt() {
        if (!undatedSinceSeen) {
            undatedSinceSeen = true;
        }
        record(latestSecond);
    }

    private void record(long second) {
        int slot = (int) (second % SLOTS);
        while (true) {
            long current = firsts.get(slot);
            long next;
            if (stamp(current) >= second) {
                if (count(current) == COUNT_MASK) {
                    return;
                }
                next = current + 1;
            } else {
                next = (second << COUNT_BITS) | 1;
            }
            if (firsts.compareAndSet(slot, current, next)) {
                return;
            }
        }
    }

    /** Spends one retry if the budget allows it now. */
    synchronized boolean tryAcquireRetry(long nowNanos, BudgetPolicy policy) {
        long second = reading(nowNanos);
        long firstAttempts = sumWindow(second, true);
        long retriesInWindow = sumWindow(second, false);
        if (retriesInWindow >= policy.allowedRetries(firstAttempts)) {
            return false;
        }
        int slot = (int) (second % SLOTS);
        long current = retries[slot];
        retries[slot] = stamp(current) >= second ? current + 1 : (second << COUNT_BITS) | 1;
        return true;
    }

    /** Whether a retry would be allowed now, without spending it (observe mode). */
    synchronized boolean wouldAllowRetry(long nowNanos, BudgetPolicy policy) {
        long second = reading(nowNanos);
        return sumWindow(second, false) < policy.allowedRetries(sumWindow(second, true));
    }

    private long sumWindow(long second, boolean ofFirsts) {
        long sum = 0;
        for (int slot = 0; slot < SLOTS; slot++) {
            long packed = ofFirsts ? firsts.get(slot) : retries[slot];
            long stamp = stamp(packed);
            if (stamp > second - SLOTS && stamp <= second) {
                sum += count(packed);
            }
        }
        return sum;
    }

    /**
     * Whether any first attempt was recorded within {@code idleNanos} before {@code nowNanos}, or the
     * budget itself is that recent: a destination just created for a call has not recorded its first
     * attempt yet, and must not be dropped from under it. A first attempt counted without a clock reading
     * counts as made when this method next looks (never earlier than it was), so that a destination whose
     * calls read no clock is kept while they go on. Called by one thread at a time.
     */
    boolean seenWithin(long nowNanos, long idleNanos) {
        if (undatedSinceSeen) {
            undatedSinceSeen = false;
            undatedSeenNanos = nowNanos;
        }
        if (undatedSeenNanos - (nowNanos - idleNanos) > 0) {
            return true;
        }
        long oldest = second(nowNanos - idleNanos);
        for (int slot = 0; slot < SLOTS; slot++) {
            if (stamp(firsts.get(slot)) >= oldest) {
                return true;
            }
        }
        return false;
    }
}
