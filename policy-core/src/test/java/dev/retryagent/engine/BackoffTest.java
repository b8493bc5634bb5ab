package dev.retryagent.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.policy.BackoffPolicy;
import dev.retryagent.policy.Jitter;
import java.util.LongSummaryStatistics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class BackoffTest {
    private static final int DRAWS = 100_000;
    /** Mean tolerance; far wider than the sampling error of 100,000 draws (about 0.2% of e). */
    private static final double MEAN_TOLERANCE = 0.02;

    private static BackoffPolicy policy(long base, long cap, double multiplier, Jitter jitter) {
        return new BackoffPolicy(base, cap, multiplier, jitter);
    }

    /** The wait statistics for one retry number, drawn from a fixed seed so that failures reproduce. */
    private static LongSummaryStatistics draws(Backoff backoff, int retry, long previousWaitMillis, long seed) {
        RandomSource random = RandomSource.seeded(seed);
        LongSummaryStatistics stats = new LongSummaryStatistics();
        for (int i = 0; i < DRAWS; i++) {
            stats.accept(backoff.waitMillis(retry, previousWaitMillis, random));
        }
        return stats;
    }

    private static void assertMeanNear(double expected, LongSummaryStatistics stats) {
        double mean = stats.getAverage();
        assertTrue(Math.abs(mean - expected) <= expected * MEAN_TOLERANCE,
                () -> "mean " + mean + " not within 2% of " + expected);
    }

    @ParameterizedTest
    @EnumSource(Jitter.class)
    void ofPicksTheImplementationForTheJitterKind(Jitter jitter) {
        Backoff backoff = Backoff.of(policy(100, 2000, 2.0, jitter));
        Class<?> expected = switch (jitter) {
            case FULL -> Backoff.FullJitterBackoff.class;
            case EQUAL -> Backoff.EqualJitterBackoff.class;
            case DECORRELATED -> Backoff.DecorrelatedJitterBackoff.class;
            case NONE -> Backoff.NoJitterBackoff.class;
        };
        assertInstanceOf(expected, backoff);
    }

    @Test
    void ofRejectsAMissingPolicy() {
        assertThrows(IllegalArgumentException.class, () -> Backoff.of(null));
    }

    // --- the capped exponential e ---

    @ParameterizedTest(name = "base {0}, cap {1}, multiplier {2}, retry {3} -> e = {4}")
    @CsvSource({
            "100, 2000, 2.0, 1, 100",
            "100, 2000, 2.0, 2, 200",
            "100, 2000, 2.0, 5, 1600",
            "100, 2000, 2.0, 6, 2000",          // 3200 capped
            "100, 1000, 2.0, 10, 1000",         // 51200 capped
            "100, 2000, 1.5, 3, 225",
            "100, 2000, 1.0, 1000, 100",        // multiplier 1: never grows
            "100, 2000, 2.0, 1000, 2000",       // 2^999 is finite, the product is capped
            "100, 2000, 2.0, 2000, 2000",       // 2^1999 is Infinity: still the cap
            "100, 2000, 2.0, 2147483647, 2000",
            "1, 9223372036854775807, 10.0, 1000, 9223372036854775807", // cap near Long.MAX_VALUE
            "0, 2000, 2.0, 1, 0",
            "0, 2000, 2.0, 5000, 0",            // base 0 must not become 0 * Infinity = NaN
            "500, 200, 2.0, 1, 200",            // cap below base
            "100, 0, 2.0, 3, 0",                // cap 0
            "100, 2000, 2.0, 0, 100",           // retry below 1 counts as the first retry
            "100, 2000, 2.0, -7, 100",
    })
    void cappedExponential(long base, long cap, double multiplier, int retry, double expected) {
        for (Jitter jitter : Jitter.values()) {
            double e = Backoff.of(policy(base, cap, multiplier, jitter)).cappedExponential(retry);
            assertEquals(expected, e, 0.0);
        }
    }

    @Test
    void aHugeMultiplierSaturatesAtTheCap() {
        Backoff backoff = Backoff.of(policy(100, 5000, 1e300, Jitter.NONE));
        assertEquals(100, backoff.waitMillis(1, 0, RandomSource.seeded(1)));
        assertEquals(5000, backoff.waitMillis(2, 0, RandomSource.seeded(1)));
        assertEquals(5000, backoff.waitMillis(3, 0, RandomSource.seeded(1)));
    }

    // --- full jitter: U(0, e) ---

    @ParameterizedTest(name = "retry {0}: e = {1}")
    @CsvSource({"1, 100", "3, 400", "5, 1600", "6, 2000", "1000, 2000"})
    void fullJitterIsUniformOnZeroToE(int retry, long e) {
        Backoff backoff = Backoff.of(policy(100, 2000, 2.0, Jitter.FULL));
        LongSummaryStatistics stats = draws(backoff, retry, 0, 11 + retry);
        assertTrue(stats.getMin() >= 0, "min " + stats.getMin());
        assertTrue(stats.getMax() <= e, "max " + stats.getMax());
        assertMeanNear(e / 2.0, stats);
    }

    @Test
    void theCapAppliesBeforeTheJitter() {
        // Uncapped, retry 10 would be 100 * 2^9 = 51200; capping the draw afterwards would give
        // almost always 1000. Capping first gives U(0, 1000): mean 500.
        Backoff backoff = Backoff.of(policy(100, 1000, 2.0, Jitter.FULL));
        LongSummaryStatistics stats = draws(backoff, 10, 0, 42);
        assertTrue(stats.getMax() <= 1000, "max " + stats.getMax());
        assertMeanNear(500, stats);
        assertTrue(stats.getMin() < 10, "the whole range [0, 1000] is drawn; min " + stats.getMin());
    }

    @Test
    void theCapAppliesBeforeEqualJitterToo() {
        Backoff backoff = Backoff.of(policy(100, 1000, 2.0, Jitter.EQUAL));
        LongSummaryStatistics stats = draws(backoff, 10, 0, 43);
        assertTrue(stats.getMin() >= 500 && stats.getMax() <= 1000, stats.toString());
        assertMeanNear(750, stats);
    }

    // --- equal jitter: e/2 + U(0, e/2) ---

    @ParameterizedTest(name = "retry {0}: e = {1}")
    @CsvSource({"1, 100", "3, 400", "5, 1600", "6, 2000", "1000, 2000"})
    void equalJitterIsUniformOnHalfEToE(int retry, long e) {
        Backoff backoff = Backoff.of(policy(100, 2000, 2.0, Jitter.EQUAL));
        LongSummaryStatistics stats = draws(backoff, retry, 0, 21 + retry);
        assertTrue(stats.getMin() >= e / 2, "min " + stats.getMin());
        assertTrue(stats.getMax() <= e, "max " + stats.getMax());
        assertMeanNear(3 * e / 4.0, stats);
    }

    // --- decorrelated jitter: min(cap, U(base, prev * 3)) ---

    /** E[min(cap, X)] for X ~ U(low, high). */
    private static double meanOfCappedUniform(double low, double high, double cap) {
        if (cap >= high) {
            return (low + high) / 2;
        }
        if (cap <= low) {
            return cap;
        }
        double belowCap = (cap * cap - low * low) / 2;
        double atCap = cap * (high - cap);
        return (belowCap + atCap) / (high - low);
    }

    @ParameterizedTest(name = "previous wait {0}")
    @CsvSource({
            "0",     // first retry: prev = base, U(100, 300)
            "100",   // U(100, 300)
            "400",   // U(100, 1200)
            "600",   // U(100, 1800): the cap binds partly
            "1500",  // U(100, 4500): the cap binds often
            "5000",  // U(100, 15000): the cap binds mostly
    })
    void decorrelatedJitterIsUniformOnBaseToThreePreviousThenCapped(long previous) {
        long base = 100;
        long cap = 1500;
        Backoff backoff = Backoff.of(policy(base, cap, 2.0, Jitter.DECORRELATED));
        double prev = previous > 0 ? previous : base;
        double high = Math.max(base, prev * 3);

        LongSummaryStatistics stats = draws(backoff, 3, previous, 31 + previous);

        assertTrue(stats.getMin() >= base, "min " + stats.getMin());
        assertTrue(stats.getMax() <= Math.min(cap, high), "max " + stats.getMax());
        assertMeanNear(meanOfCappedUniform(base, high, cap), stats);
    }

    @Test
    void decorrelatedJitterIgnoresTheRetryNumber() {
        Backoff backoff = Backoff.of(policy(100, 100_000, 2.0, Jitter.DECORRELATED));
        for (int retry : new int[] {1, 2, 50, 1000}) {
            assertEquals(backoff.waitMillis(1, 700, RandomSource.seeded(5)),
                    backoff.waitMillis(retry, 700, RandomSource.seeded(5)));
        }
    }

    @Test
    void decorrelatedJitterAfterAShortPreviousWaitIsBase() {
        // 3 * 20 < base: the range [base, 3 * prev] would be empty, so the draw is base itself.
        Backoff backoff = Backoff.of(policy(100, 2000, 2.0, Jitter.DECORRELATED));
        LongSummaryStatistics stats = draws(backoff, 2, 20, 7);
        assertEquals(100, stats.getMin());
        assertEquals(100, stats.getMax());
    }

    @Test
    void decorrelatedJitterWithAHugePreviousWaitIsCappedNotOverflowed() {
        Backoff backoff = Backoff.of(policy(100, 2000, 2.0, Jitter.DECORRELATED));
        LongSummaryStatistics stats = draws(backoff, 2, Long.MAX_VALUE, 8);
        assertTrue(stats.getMin() >= 100 && stats.getMax() <= 2000, stats.toString());
    }

    @Test
    void decorrelatedJitterWithCapBelowBaseIsTheCap() {
        Backoff backoff = Backoff.of(policy(500, 200, 2.0, Jitter.DECORRELATED));
        LongSummaryStatistics stats = draws(backoff, 1, 0, 9);
        assertEquals(200, stats.getMin());
        assertEquals(200, stats.getMax());
    }

    @Test
    void decorrelatedJitterChainedStaysWithinBaseAndCap() {
        Backoff backoff = Backoff.of(policy(100, 2000, 2.0, Jitter.DECORRELATED));
        RandomSource random = RandomSource.seeded(10);
        long previous = 0;
        for (int retry = 1; retry <= DRAWS; retry++) {
            long wait = backoff.waitMillis(retry, previous, random);
            assertTrue(wait >= 100 && wait <= 2000, "retry " + retry + " waited " + wait);
            assertTrue(wait <= Math.max(100, (previous > 0 ? previous : 100) * 3),
                    "retry " + retry + " waited " + wait + " after " + previous);
            previous = wait;
        }
    }

    // --- no jitter: e ---

    @ParameterizedTest(name = "retry {0}: e = {1}")
    @CsvSource({"1, 100", "2, 200", "3, 400", "5, 1600", "6, 2000", "1000, 2000", "2147483647, 2000"})
    void noJitterIsExactlyE(int retry, long e) {
        Backoff backoff = Backoff.of(policy(100, 2000, 2.0, Jitter.NONE));
        LongSummaryStatistics stats = draws(backoff, retry, 0, 1);
        assertEquals(e, stats.getMin());
        assertEquals(e, stats.getMax());
    }

    @Test
    void fractionalWaitsRoundDown() {
        // 100 * 1.5^2 = 225, 100 * 1.5^3 = 337.5
        Backoff backoff = Backoff.of(policy(100, 10_000, 1.5, Jitter.NONE));
        assertEquals(337, backoff.waitMillis(4, 0, RandomSource.seeded(1)));
        RandomSource nearlyOne = () -> 0.99999;
        assertEquals(99, Backoff.of(policy(100, 10_000, 2.0, Jitter.FULL)).waitMillis(1, 0, nearlyOne));
        assertEquals(99, Backoff.of(policy(100, 10_000, 2.0, Jitter.EQUAL)).waitMillis(1, 0, nearlyOne));
        assertEquals(299, Backoff.of(policy(100, 10_000, 2.0, Jitter.DECORRELATED)).waitMillis(1, 0, nearlyOne));
    }

    @Test
    void theExtremesOfTheRandomSourceGiveTheRangeEnds() {
        RandomSource zero = () -> 0.0;
        assertEquals(0, Backoff.of(policy(100, 2000, 2.0, Jitter.FULL)).waitMillis(3, 0, zero));
        assertEquals(200, Backoff.of(policy(100, 2000, 2.0, Jitter.EQUAL)).waitMillis(3, 0, zero));
        assertEquals(100, Backoff.of(policy(100, 2000, 2.0, Jitter.DECORRELATED)).waitMillis(3, 400, zero));
    }

    @Test
    void theLargestDrawStaysWithinTheUpperBound() {
        // 50 + 50 * (1 - 2^-53) rounds to 100.0 in doubles: the upper bounds are reachable, never exceeded.
        RandomSource largest = () -> Math.nextDown(1.0);
        assertTrue(Backoff.of(policy(100, 2000, 2.0, Jitter.FULL)).waitMillis(3, 0, largest) <= 400);
        assertTrue(Backoff.of(policy(100, 2000, 2.0, Jitter.EQUAL)).waitMillis(3, 0, largest) <= 400);
        assertTrue(Backoff.of(policy(100, 2000, 2.0, Jitter.DECORRELATED)).waitMillis(3, 400, largest) <= 1200);
        assertTrue(Backoff.of(policy(100, 2000, 2.0, Jitter.DECORRELATED)).waitMillis(3, 4000, largest) <= 2000);
    }

    // --- the bounds of the draws, without drawing ---

    @ParameterizedTest
    @CsvSource({
            "FULL, 0, 400",
            "EQUAL, 200, 400",
            "DECORRELATED, 100, 1200",
            "NONE, 400, 400",
    })
    void theBoundsAreTheDrawsOfTheRandomSourcesExtremes(Jitter jitter, double shortest, double longest) {
        Backoff backoff = Backoff.of(policy(100, 2000, 2.0, jitter));
        assertEquals(shortest, backoff.shortestWait(3));
        assertEquals(longest, backoff.longestWait(3, 400));
        assertEquals((long) shortest, backoff.waitMillis(3, 400, () -> 0.0));
        assertEquals((long) longest, backoff.waitMillis(3, 400, () -> 1.0));
    }

    @ParameterizedTest
    @EnumSource(Jitter.class)
    void chainedDrawsStayWithinTheChainedBounds(Jitter jitter) {
        Backoff backoff = Backoff.of(policy(100, 5000, 2.0, jitter));
        RandomSource random = RandomSource.seeded(7);
        for (int call = 0; call < 1000; call++) {
            long previous = 0;
            double previousLongest = 0;
            for (int retry = 1; retry <= 8; retry++) {
                long wait = backoff.waitMillis(retry, previous, random);
                previousLongest = backoff.longestWait(retry, previousLongest);
                assertTrue(wait >= (long) backoff.shortestWait(retry), jitter + " retry " + retry + ": " + wait);
                assertTrue(wait <= (long) previousLongest, jitter + " retry " + retry + ": " + wait);
                previous = wait;
            }
        }
    }

    @Test
    void decorrelatedBoundsStartFromBaseAndAreCapped() {
        Backoff backoff = Backoff.of(policy(100, 1000, 2.0, Jitter.DECORRELATED));
        assertEquals(300, backoff.longestWait(1, 0));
        assertEquals(900, backoff.longestWait(2, 300));
        assertEquals(1000, backoff.longestWait(3, 900));
        assertEquals(100, backoff.shortestWait(5));
        assertEquals(50, Backoff.of(policy(100, 50, 2.0, Jitter.DECORRELATED)).shortestWait(1));
    }

    // --- edge cases, every jitter kind ---

    @ParameterizedTest
    @EnumSource(Jitter.class)
    void baseZeroNeverWaits(Jitter jitter) {
        Backoff backoff = Backoff.of(policy(0, 2000, 2.0, jitter));
        for (int retry : new int[] {1, 2, 10, 1000, Integer.MAX_VALUE}) {
            LongSummaryStatistics stats = draws(backoff, retry, 0, retry);
            assertEquals(0, stats.getMin());
            assertEquals(0, stats.getMax());
        }
    }

    @ParameterizedTest
    @EnumSource(Jitter.class)
    void multiplierOneNeverGrows(Jitter jitter) {
        Backoff backoff = Backoff.of(policy(300, 2000, 1.0, jitter));
        for (int retry : new int[] {1, 2, 10, 1000}) {
            LongSummaryStatistics stats = draws(backoff, retry, 0, retry);
            assertTrue(stats.getMax() <= 900, jitter + " retry " + retry + ": " + stats);
        }
    }

    @ParameterizedTest
    @EnumSource(Jitter.class)
    void retryOneThousandIsCappedNeverNegative(Jitter jitter) {
        Backoff backoff = Backoff.of(policy(100, 2000, 2.0, jitter));
        LongSummaryStatistics stats = draws(backoff, 1000, 2000, 1000);
        assertTrue(stats.getMin() >= 0, stats.toString());
        assertTrue(stats.getMax() <= 2000, stats.toString());
    }

    @ParameterizedTest
    @EnumSource(Jitter.class)
    void capBelowTheExponentialBindsEveryKind(Jitter jitter) {
        Backoff backoff = Backoff.of(policy(100, 1000, 3.0, jitter));
        LongSummaryStatistics stats = draws(backoff, 4, 900, 4); // 100 * 3^3 = 2700
        assertTrue(stats.getMax() <= 1000, stats.toString());
    }

    @Test
    void seededDrawsAreRepeatable() {
        Backoff backoff = Backoff.of(policy(100, 2000, 2.0, Jitter.FULL));
        RandomSource first = RandomSource.seeded(99);
        RandomSource second = RandomSource.seeded(99);
        for (int retry = 1; retry <= 20; retry++) {
            assertEquals(backoff.waitMillis(retry, 0, first), backoff.waitMillis(retry, 0, second));
        }
    }
}
