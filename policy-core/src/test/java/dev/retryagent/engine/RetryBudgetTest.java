package dev.retryagent.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.policy.BudgetPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** docs/reference.md#budget: in any 10 s window, retries <= ratio * first attempts + minPerSecond * 10, per
 * destination. */
class RetryBudgetTest {
    private static final int THREADS = 8;

    private final FakeClock clock = new FakeClock();
    private ExecutorService pool;

    @AfterEach
    void stopPool() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }

    private static long takeAll(RetryBudget budget, long now, BudgetPolicy policy) {
        long granted = 0;
        while (budget.tryAcquireRetry(now, policy)) {
            granted++;
            if (granted > 10_000_000) {
                throw new AssertionError("the budget never runs out");
            }
        }
        return granted;
    }

    private static void recordFirsts(RetryBudget budget, long now, int n) {
        for (int i = 0; i < n; i++) {
            budget.recordFirstAttempt(now);
        }
    }

    @ParameterizedTest(name = "ratio {0}, minPerSecond {1}, {2} firsts -> {3} retries")
    @CsvSource({
            "0.1, 10, 0, 100",
            "0.1, 10, 55, 105",
            "0.1, 10, 59, 105",
            "0.1, 10, 60, 106",
            "0.5, 0, 7, 3",
            "0.0, 0, 100, 0",
            "1.0, 0, 13, 13",
            "0.2, 1, 1000, 210",
            "0.0, 3, 1000, 30",
    })
    void allowsRatioTimesFirstsPlusMinPerSecondTimesTen(double ratio, int minPerSecond, int firsts, long expected) {
        BudgetPolicy policy = new BudgetPolicy(ratio, minPerSecond);
        assertEquals(expected, policy.allowedRetries(firsts), "the formula itself");
        RetryBudget budget = new RetryBudget(clock.nanoTime());
        recordFirsts(budget, clock.nanoTime(), firsts);
        assertEquals(expected, takeAll(budget, clock.nanoTime(), policy));
        assertFalse(budget.wouldAllowRetry(clock.nanoTime(), policy));
    }

    @Test
    void firstsAndRetriesAnywhereInTheWindowCount() {
        BudgetPolicy policy = new BudgetPolicy(0.5, 0);
        RetryBudget budget = new RetryBudget(clock.nanoTime());
        for (int second = 0; second < 10; second++) {
            recordFirsts(budget, clock.nanoTime(), 2);
            assertTrue(budget.tryAcquireRetry(clock.nanoTime(), policy), "second " + second);
            clock.advanceMillis(999);
        }
        // 20 firsts, 10 retries, all within the same 10 s window.
        assertFalse(budget.tryAcquireRetry(clock.nanoTime(), policy));
    }

    @Test
    void observeAsksWithoutSpending() {
        BudgetPolicy policy = new BudgetPolicy(0.0, 1);
        RetryBudget budget = new RetryBudget(clock.nanoTime());
        for (int i = 0; i < 100; i++) {
            assertTrue(budget.wouldAllowRetry(clock.nanoTime(), policy));
        }
        assertEquals(10, takeAll(budget, clock.nanoTime(), policy));
        assertFalse(budget.wouldAllowRetry(clock.nanoTime(), policy));
    }

    @Test
    void countsOlderThanTenSecondsExpire() {
        BudgetPolicy policy = new BudgetPolicy(1.0, 0);
        RetryBudget budget = new RetryBudget(clock.nanoTime());
        recordFirsts(budget, clock.nanoTime(), 20);
        assertEquals(20, takeAll(budget, clock.nanoTime(), policy));

        clock.advanceMillis(9_999);
        assertFalse(budget.tryAcquireRetry(clock.nanoTime(), policy), "still within the window");
        recordFirsts(budget, clock.nanoTime(), 4);
        assertEquals(4, takeAll(budget, clock.nanoTime(), policy), "20 + 4 firsts allow 24 retries");

        clock.advanceMillis(1);
        // The firsts and retries of the first second are gone; those of the tenth remain.
        recordFirsts(budget, clock.nanoTime(), 3);
        assertEquals(3, takeAll(budget, clock.nanoTime(), policy), "(4 + 3) firsts - 4 retries");

        clock.advanceSeconds(10);
        assertFalse(budget.tryAcquireRetry(clock.nanoTime(), policy), "nothing left in the window");
        recordFirsts(budget, clock.nanoTime(), 5);
        assertEquals(5, takeAll(budget, clock.nanoTime(), policy));
    }

    @Test
    void theMinimumRefillsEveryWindow() {
        BudgetPolicy policy = new BudgetPolicy(0.0, 2);
        RetryBudget budget = new RetryBudget(clock.nanoTime());
        for (int window = 0; window < 5; window++) {
            assertEquals(20, takeAll(budget, clock.nanoTime(), policy), "window " + window);
            clock.advanceSeconds(10);
        }
    }

    @Test
    void aLongIdleGapDoesNotResurrectOldCounts() {
        // Slots are reused modulo 10 seconds; a slot last written 100 s ago must not count as now.
        BudgetPolicy policy = new BudgetPolicy(1.0, 0);
        RetryBudget budget = new RetryBudget(clock.nanoTime());
        recordFirsts(budget, clock.nanoTime(), 50);
        clock.advanceSeconds(100);
        assertFalse(budget.wouldAllowRetry(clock.nanoTime(), policy));
        recordFirsts(budget, clock.nanoTime(), 1);
        assertEquals(1, takeAll(budget, clock.nanoTime(), policy));
    }

    @Test
    void seenWithinTellsAnIdleDestination() {
        long idle = TimeUnit.MINUTES.toNanos(10);
        RetryBudget budget = new RetryBudget(clock.nanoTime());
        assertTrue(budget.seenWithin(clock.nanoTime(), idle), "just created");
        clock.advanceSeconds(30);
        budget.recordFirstAttempt(clock.nanoTime());
        clock.advanceSeconds(599);
        assertTrue(budget.seenWithin(clock.nanoTime(), idle));
        clock.advanceSeconds(2);
        assertFalse(budget.seenWithin(clock.nanoTime(), idle));

        RetryBudget neverUsed = new RetryBudget(clock.nanoTime());
        clock.advanceSeconds(601);
        assertFalse(neverUsed.seenWithin(clock.nanoTime(), idle));
    }

    @Test
    void aFirstAttemptCountedWithoutAReadingTakesTheSecondOfTheLatestReading() {
        BudgetPolicy policy = new BudgetPolicy(1.0, 0);
        long start = clock.nanoTime();
        RetryBudget stillIn = new RetryBudget(start);
        RetryBudget gone = new RetryBudget(start);
        clock.advanceSeconds(3);
        stillIn.recordFirstAttempt(clock.nanoTime());
        gone.recordFirstAttempt(clock.nanoTime());
        clock.advanceSeconds(5);
        for (int i = 0; i < 4; i++) {
            stillIn.recordUndatedFirstAttempt();
            gone.recordUndatedFirstAttempt();
        }

        clock.advanceSeconds(4);
        assertEquals(5, takeAll(stillIn, clock.nanoTime(), policy), "9 s after the reading: all five in the window");
        clock.advanceSeconds(1);
        assertEquals(0, takeAll(gone, clock.nanoTime(), policy),
                "10 s after the reading they are gone, though counted only 5 s ago: fewer retries, never more");
    }

    @Test
    void aRetryAskedForIsAReadingToo() {
        BudgetPolicy policy = new BudgetPolicy(1.0, 0);
        RetryBudget budget = new RetryBudget(clock.nanoTime());
        clock.advanceSeconds(20);
        assertFalse(budget.wouldAllowRetry(clock.nanoTime(), policy));
        for (int i = 0; i < 3; i++) {
            budget.recordUndatedFirstAttempt();
        }
        clock.advanceSeconds(9);
        assertEquals(3, takeAll(budget, clock.nanoTime(), policy));
    }

    @Test
    void aFirstAttemptWithoutAReadingIsSeenWhenSeenWithinNextLooks() {
        long idle = TimeUnit.MINUTES.toNanos(10);
        RetryBudget budget = new RetryBudget(clock.nanoTime());
        clock.advanceSeconds(601);
        budget.recordUndatedFirstAttempt();
        clock.advanceSeconds(30);
        assertTrue(budget.seenWithin(clock.nanoTime(), idle), "counted since it last looked");
        clock.advanceSeconds(599);
        assertTrue(budget.seenWithin(clock.nanoTime(), idle));
        clock.advanceSeconds(2);
        assertFalse(budget.seenWithin(clock.nanoTime(), idle));
    }

    /** Runs {@code task} on {@link #THREADS} threads that start together; returns their results. */
    private List<Long> onAllThreads(ThreadTask task) throws Exception {
        pool = Executors.newFixedThreadPool(THREADS);
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Future<Long>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            final int thread = t;
            futures.add(pool.submit(() -> {
                start.await(10, TimeUnit.SECONDS);
                return task.run(thread);
            }));
        }
        List<Long> results = new ArrayList<>();
        for (Future<Long> f : futures) {
            results.add(f.get(60, TimeUnit.SECONDS));
        }
        return results;
    }

    private interface ThreadTask {
        long run(int thread) throws Exception;
    }

    @Test
    @Timeout(60)
    void concurrentFirstAttemptsAreNeverLost() throws Exception {
        RetryBudget budget = new RetryBudget(clock.nanoTime());
        long now = clock.nanoTime();
        int perThread = 50_000;
        onAllThreads(thread -> {
            recordFirsts(budget, now, perThread);
            return 0L;
        });
        BudgetPolicy policy = new BudgetPolicy(1.0, 0);
        assertEquals(THREADS * perThread, takeAll(budget, now, policy));
    }

    @Test
    @Timeout(60)
    void concurrentRetriesTakeExactlyTheBudgetOfFirstsRecordedBefore() throws Exception {
        RetryBudget budget = new RetryBudget(clock.nanoTime());
        long now = clock.nanoTime();
        BudgetPolicy policy = new BudgetPolicy(0.5, 1);
        int perThread = 10_000;
        onAllThreads(thread -> {
            recordFirsts(budget, now, perThread);
            return 0L;
        });
        List<Long> granted = onAllThreads(thread -> takeAll(budget, now, policy));
        long total = granted.stream().mapToLong(Long::longValue).sum();
        assertEquals(policy.allowedRetries(THREADS * perThread), total);
        assertEquals(40_010, total);
    }

    @Test
    @Timeout(60)
    void concurrentFirstsAndRetriesNeverExceedTheBudget() throws Exception {
        RetryBudget budget = new RetryBudget(clock.nanoTime());
        long now = clock.nanoTime();
        BudgetPolicy policy = new BudgetPolicy(0.1, 2);
        int perThread = 20_000;
        // Counted before they are recorded, so that this count is never below the budget's own.
        AtomicLong firsts = new AtomicLong();
        // Counted after they are granted, so that this count is never above the budget's own.
        AtomicLong grantedSoFar = new AtomicLong();
        List<Long> granted = onAllThreads(thread -> {
            long mine = 0;
            for (int i = 0; i < perThread; i++) {
                firsts.incrementAndGet();
                budget.recordFirstAttempt(now);
                // Every thread asks for a retry after each first: demand far above the budget.
                if (budget.tryAcquireRetry(now, policy)) {
                    mine++;
                    long grantedNow = grantedSoFar.incrementAndGet();
                    long firstsNow = firsts.get();
                    // Never more granted, at any moment, than the firsts recorded so far allow.
                    if (grantedNow > policy.allowedRetries(firstsNow)) {
                        throw new AssertionError("granted " + grantedNow + " with " + firstsNow + " firsts");
                    }
                }
            }
            return mine;
        });
        long total = granted.stream().mapToLong(Long::longValue).sum();
        long allowed = policy.allowedRetries(THREADS * (long) perThread);
        assertTrue(total <= allowed, total + " > " + allowed);
        // Each thread's last request came after its last first; only the final few firsts of other
        // threads can arrive after every thread's last ask.
        long shortfall = allowed - total;
        assertTrue(shortfall <= THREADS, "granted only " + total + " of " + allowed);
        assertEquals(shortfall, takeAll(budget, now, policy), "the rest is still there to take");
    }

    @Test
    void theBudgetDoesNotOverflowWithManyFirstsInOneSecond() {
        RetryBudget budget = new RetryBudget(clock.nanoTime());
        long now = clock.nanoTime();
        recordFirsts(budget, now, 3_000_000);
        BudgetPolicy policy = new BudgetPolicy(0.001, 0);
        assertEquals(3_000, takeAll(budget, now, policy));
    }
}
