package dev.retryagent.engine;

import static dev.retryagent.engine.TestPolicies.CLIENT;
import static dev.retryagent.engine.TestPolicies.HOST;
import static dev.retryagent.engine.TestPolicies.at;
import static dev.retryagent.engine.TestPolicies.call;
import static dev.retryagent.engine.TestPolicies.defaults;
import static dev.retryagent.engine.TestPolicies.facts;
import static dev.retryagent.engine.TestPolicies.get;
import static dev.retryagent.engine.TestPolicies.host;
import static dev.retryagent.engine.TestPolicies.match;
import static dev.retryagent.engine.TestPolicies.noJitter;
import static dev.retryagent.engine.TestPolicies.policy;
import static dev.retryagent.engine.TestPolicies.rule;
import static dev.retryagent.engine.TestPolicies.withMarker;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.engine.RetryDecision.Action;
import dev.retryagent.policy.BackoffPolicy;
import dev.retryagent.policy.BudgetPolicy;
import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Jitter;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetryAfterPolicy;
import dev.retryagent.policy.RetrySettings;
import dev.retryagent.policy.StatusSet;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Classification to budget, and observe (docs/reference.md#semantics), asked of {@link RetryEngine#decide} with a fake
 * clock and fixed random draws. */
class RetryEngineTest {
    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);
    private static final double[] DRAWS = {0.0, 1e-9, 0.25, 0.5, 0.75, 0.999, Math.nextDown(1.0)};

    private final FakeClock clock = new FakeClock();
    private final Decisions decisions = new Decisions(clock);
    private final FakeRandom random = new FakeRandom(0.5);

    private RetryEngine engine(Policy policy) {
        return new RetryEngine(policy, clock, random);
    }

    private RetryEngine engine(RetrySettings defaults) {
        return engine(policy(defaults));
    }

    private RetryEngine builtIn() {
        return engine(Policy.builtIn());
    }

    private RetryDecision first(RetryEngine engine, CallFacts call, Outcome outcome) {
        return decisions.decide(engine, call, 1, outcome, 0, 0);
    }

    private static void assertRetry(RetryDecision decision, int nextAttempt, int max) {
        assertEquals(Action.RETRY, decision.action(), decision::toString);
        assertTrue(decision.shouldRetry());
        assertEquals(nextAttempt, decision.attempt());
        assertEquals(max, decision.maxAttempts());
        assertNull(decision.reason());
    }

    private static void assertGiveUp(RetryDecision decision, GiveUpReason reason) {
        assertEquals(Action.GIVE_UP, decision.action(), decision::toString);
        assertEquals(reason, decision.reason(), decision::toString);
        assertTrue(!decision.shouldRetry());
    }

    private static void assertDone(RetryDecision decision) {
        assertEquals(Action.DONE, decision.action(), decision::toString);
        assertTrue(!decision.shouldRetry());
    }

    private static RetryCounters counters(RetryEngine engine) {
        RetryCounters c = engine.counters(CLIENT, "https", HOST, 443);
        assertNotNull(c, "no counters for " + CLIENT + " at " + HOST);
        return c;
    }

    private static String httpDate(long epochMillis) {
        return IMF_FIXDATE.format(Instant.ofEpochMilli(epochMillis));
    }

    @Nested
    class Classification {
        @ParameterizedTest
        @ValueSource(ints = {408, 429, 502, 503, 504})
        void everyRetryOnStatusIsRetried(int status) {
            assertRetry(first(builtIn(), get(), Outcome.status(status, null)), 2, 3);
        }

        @ParameterizedTest
        @ValueSource(ints = {200, 201, 204, 301, 304, 400, 401, 403, 404, 409, 422, 500, 501, 505})
        void anyOtherStatusGoesBackAtOnce(int status) {
            RetryEngine engine = builtIn();
            assertDone(first(engine, get(), Outcome.status(status, null)));
            assertEquals(0, counters(engine).retries());
            for (GiveUpReason reason : GiveUpReason.values()) {
                assertEquals(0, counters(engine).giveUps(reason), reason.name());
            }
        }

        @ParameterizedTest
        @EnumSource(value = FailureKind.class, names = {"CONNECT", "RESET", "TIMEOUT"})
        void connectResetAndTimeoutFailuresAreRetried(FailureKind kind) {
            assertRetry(first(builtIn(), get(), Outcome.failure(kind)), 2, 3);
        }

        @Test
        void otherFailuresGoBackAtOnce() {
            assertDone(first(builtIn(), get(), Outcome.failure(FailureKind.OTHER)));
        }

        @Test
        void onlyTheConfiguredStatusesAndFailuresAreRetried() {
            RetryEngine engine = engine(defaults(b -> b.retryStatuses(StatusSet.of(500)).retryFailures(EnumSet.of(FailureKind.TIMEOUT))));
            assertRetry(first(engine, get(), Outcome.status(500, null)), 2, 3);
            assertDone(first(engine, get(), Outcome.status(503, null)));
            assertRetry(first(engine, get(), Outcome.failure(FailureKind.TIMEOUT)), 2, 3);
            assertDone(first(engine, get(), Outcome.failure(FailureKind.CONNECT)));
            assertDone(first(engine, get(), Outcome.failure(FailureKind.RESET)));
        }

        @Test
        void classificationComesBeforeEveryReasonToGiveUp() {
            // A POST with a one-shot body that already carries the marker, on its last attempt, past its
            // deadline: a 404 or a success is simply done, and no give-up is counted.
            RetryEngine engine = builtIn();
            CallFacts worst = facts(CLIENT, "POST", HOST, "/items", false, false, true);
            assertDone(decisions.decide(engine, worst, 3, Outcome.status(404, null), 60_000, 0));
            assertDone(decisions.decide(engine, worst, 1, Outcome.status(200, "120"), 60_000, 0));
            for (GiveUpReason reason : GiveUpReason.values()) {
                assertEquals(0, counters(engine).giveUps(reason), reason.name());
            }
        }
    }

    @Nested
    class Idempotency {
        @Test
        void aPostWithoutAKeyIsNotRetried() {
            RetryEngine engine = builtIn();
            RetryDecision decision = first(engine, call("POST"), Outcome.status(503, null));
            assertGiveUp(decision, GiveUpReason.NOT_IDEMPOTENT);
            assertEquals(1, decision.attempt());
            assertEquals(3, decision.maxAttempts());
            assertEquals(1, counters(engine).giveUps(GiveUpReason.NOT_IDEMPOTENT));
            assertEquals(0, counters(engine).retries());
        }

        @Test
        void aPostCarryingAnIdempotencyKeyIsRetried() {
            CallFacts keyed = facts(CLIENT, "POST", HOST, "/items", true, true, false);
            assertRetry(first(builtIn(), keyed, Outcome.failure(FailureKind.RESET)), 2, 3);
        }

        @ParameterizedTest
        @ValueSource(strings = {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"})
        void theDefaultIdempotentMethodsAreRetried(String method) {
            assertRetry(first(builtIn(), call(method), Outcome.status(503, null)), 2, 3);
        }

        @ParameterizedTest
        @ValueSource(strings = {"POST", "PATCH", "CONNECT"})
        void otherMethodsAreNotRetried(String method) {
            assertGiveUp(first(builtIn(), call(method), Outcome.status(503, null)), GiveUpReason.NOT_IDEMPOTENT);
        }

        @Test
        void customIdempotentMethodsReplaceTheDefaults() {
            RetryEngine engine = engine(defaults(b -> b.idempotentMethods(Arrays.asList("get", "Post"))));
            assertRetry(first(engine, call("POST"), Outcome.status(503, null)), 2, 3);
            assertRetry(first(engine, call("GET"), Outcome.status(503, null)), 2, 3);
            assertGiveUp(first(engine, call("PUT"), Outcome.status(503, null)), GiveUpReason.NOT_IDEMPOTENT);
            assertGiveUp(first(engine, call("DELETE"), Outcome.status(503, null)), GiveUpReason.NOT_IDEMPOTENT);
        }

        @Test
        void aNonReplayableBodyIsNeverRetriedEvenWhenIdempotent() {
            RetryEngine engine = builtIn();
            CallFacts oneShotPut = facts(CLIENT, "PUT", HOST, "/items", true, false, false);
            assertGiveUp(first(engine, oneShotPut, Outcome.failure(FailureKind.RESET)), GiveUpReason.BODY_NOT_REPLAYABLE);
            assertEquals(1, counters(engine).giveUps(GiveUpReason.BODY_NOT_REPLAYABLE));
        }

        @Test
        void aRequestThatAlreadyCarriesTheMarkerIsExecutedOnce() {
            RetryEngine engine = builtIn();
            CallFacts nested = facts(CLIENT, "GET", HOST, "/items", false, true, true);
            assertGiveUp(first(engine, nested, Outcome.status(503, null)), GiveUpReason.NESTED);
            assertEquals(1, counters(engine).giveUps(GiveUpReason.NESTED));
        }

        @Test
        void aCallMadeInsideAnotherCallsAttemptIsExecutedOnceButKeepsItsMarker() {
            RetryEngine engine = builtIn();
            CallFacts inside = get().insideAttempt(2);
            assertTrue(inside.nested());
            assertEquals(2, inside.enclosingAttempt());
            assertFalse(get().nested());
            assertEquals("Retry-Attempt", engine.plan(inside).markerHeader(), "it is marked, with the enclosing number");
            assertGiveUp(first(engine, inside, Outcome.failure(FailureKind.RESET)), GiveUpReason.NESTED);
            assertEquals(1, counters(engine).giveUps(GiveUpReason.NESTED));
        }

        @Test
        void mayRetrySaysBeforehandWhetherAFailureCouldBeRetriedAndCountsNothing() {
            RetryEngine engine = builtIn();
            assertTrue(engine.plan(get()).mayRetry(FailureKind.RESET));
            assertFalse(engine.plan(get()).mayRetry(FailureKind.OTHER), "not a retryable kind");
            assertFalse(engine.plan(call("POST")).mayRetry(FailureKind.RESET), "not idempotent");
            assertTrue(engine.plan(facts(CLIENT, "POST", HOST, "/", true, true, false)).mayRetry(FailureKind.RESET), "keyed");
            assertFalse(engine.plan(facts(CLIENT, "PUT", HOST, "/", false, false, false)).mayRetry(FailureKind.RESET),
                    "body not replayable");
            assertFalse(engine.plan(facts(CLIENT, "GET", HOST, "/", false, true, true)).mayRetry(FailureKind.RESET), "marked");
            assertFalse(engine.plan(get().insideAttempt(1)).mayRetry(FailureKind.RESET), "nested");
            assertFalse(engine(policy(defaults(b -> b.maxAttempts(1)))).plan(get()).mayRetry(FailureKind.RESET), "one attempt");
            assertFalse(engine(policy(Mode.OBSERVE, RetrySettings.builtIn())).plan(get()).mayRetry(FailureKind.RESET),
                    "observe never retries");
            assertNull(engine.counters(CLIENT, "https", HOST, 443), "nothing counted");
        }

        @Test
        void retriesStatusSaysWhetherTheRuleRetriesAResponseWhateverTheAttempt() {
            RetryEngine engine = builtIn();
            assertTrue(engine.plan(get()).retriesStatus(408));
            assertTrue(engine.plan(facts(CLIENT, "GET", HOST, "/", false, true, true)).retriesStatus(408), "marked");
            assertTrue(engine.plan(call("POST")).retriesStatus(503), "the rule's, not the request's");
            assertFalse(engine.plan(get()).retriesStatus(500), "not a retryable status");
            assertFalse(engine(policy(Mode.OBSERVE, RetrySettings.builtIn())).plan(get()).retriesStatus(408),
                    "observe never retries");
            assertNull(engine.counters(CLIENT, "https", HOST, 443), "nothing counted");
        }

        @Test
        void nestedIsReportedBeforeBodyAndBodyBeforeIdempotency() {
            RetryEngine engine = builtIn();
            assertGiveUp(first(engine, facts(CLIENT, "POST", HOST, "/", false, false, true), Outcome.status(503, null)),
                    GiveUpReason.NESTED);
            assertGiveUp(first(engine, facts(CLIENT, "POST", HOST, "/", false, false, false), Outcome.status(503, null)),
                    GiveUpReason.BODY_NOT_REPLAYABLE);
        }
    }

    @Nested
    class Attempts {
        @Test
        void theLastAttemptIsNotRetried() {
            RetryEngine engine = builtIn();
            assertRetry(decisions.decide(engine, get(), 1, Outcome.status(503, null), 0, 0), 2, 3);
            assertRetry(decisions.decide(engine, get(), 2, Outcome.status(503, null), 100, 50), 3, 3);
            RetryDecision last = decisions.decide(engine, get(), 3, Outcome.status(503, null), 300, 100);
            assertGiveUp(last, GiveUpReason.ATTEMPTS);
            assertEquals(3, last.attempt());
            assertEquals(3, last.maxAttempts());
            assertGiveUp(decisions.decide(engine, get(), 4, Outcome.status(503, null), 300, 100), GiveUpReason.ATTEMPTS);
            assertEquals(2, counters(engine).giveUps(GiveUpReason.ATTEMPTS));
        }

        @Test
        void maxAttemptsOneNeverRetries() {
            RetryEngine engine = engine(defaults(b -> b.maxAttempts(1)));
            for (FailureKind kind : new FailureKind[] {FailureKind.CONNECT, FailureKind.RESET, FailureKind.TIMEOUT}) {
                assertGiveUp(first(engine, get(), Outcome.failure(kind)), GiveUpReason.ATTEMPTS);
            }
            assertGiveUp(first(engine, get(), Outcome.status(503, "0")), GiveUpReason.ATTEMPTS);
            assertEquals(0, counters(engine).retries());
        }

        @Test
        void theAttemptsCheckComesBeforeRetryAfter() {
            RetryEngine engine = builtIn();
            assertGiveUp(decisions.decide(engine, get(), 3, Outcome.status(503, "3600"), 0, 0), GiveUpReason.ATTEMPTS);
        }
    }

    @Nested
    class BackoffWaits {
        private RetryEngine engine(Jitter jitter) {
            return RetryEngineTest.this.engine(defaults(b -> b.maxAttempts(12).deadlineMillis(3_600_000)
                    .backoff(new BackoffPolicy(100, 2000, 2.0, jitter))));
        }

        /** e = min(cap, base * multiplier^(n-1)) for retry n. */
        private long exponential(int retry) {
            return Math.min(2000, 100L << (retry - 1));
        }

        @Test
        void fullJitterWaitsWithinZeroToE() {
            RetryEngine engine = engine(Jitter.FULL);
            for (double draw : DRAWS) {
                random.set(draw);
                for (int attempt = 1; attempt < 12; attempt++) {
                    long e = exponential(attempt);
                    long wait = decisions.decide(engine, get(), attempt, Outcome.status(503, null), 0, 0).waitMillis();
                    assertTrue(wait >= 0 && wait <= e, "retry " + attempt + " draw " + draw + ": " + wait);
                }
            }
            random.set(0.0);
            assertEquals(0, decisions.decide(engine, get(), 3, Outcome.status(503, null), 0, 0).waitMillis());
            random.set(0.5);
            assertEquals(200, decisions.decide(engine, get(), 3, Outcome.status(503, null), 0, 0).waitMillis());
            assertEquals(1000, decisions.decide(engine, get(), 9, Outcome.status(503, null), 0, 0).waitMillis(), "capped");
        }

        @Test
        void equalJitterWaitsWithinHalfEToE() {
            RetryEngine engine = engine(Jitter.EQUAL);
            for (double draw : DRAWS) {
                random.set(draw);
                for (int attempt = 1; attempt < 12; attempt++) {
                    long e = exponential(attempt);
                    long wait = decisions.decide(engine, get(), attempt, Outcome.status(503, null), 0, 0).waitMillis();
                    assertTrue(wait >= e / 2 && wait <= e, "retry " + attempt + " draw " + draw + ": " + wait);
                }
            }
            random.set(0.0);
            assertEquals(400, decisions.decide(engine, get(), 4, Outcome.status(503, null), 0, 0).waitMillis());
            random.set(0.5);
            assertEquals(600, decisions.decide(engine, get(), 4, Outcome.status(503, null), 0, 0).waitMillis());
        }

        @Test
        void decorrelatedJitterWaitsWithinBaseToThreeTimesThePreviousWaitCapped() {
            RetryEngine engine = engine(Jitter.DECORRELATED);
            long[] previousWaits = {0, 50, 100, 250, 700, 1500, 5000};
            for (double draw : DRAWS) {
                random.set(draw);
                for (long previous : previousWaits) {
                    long upper = Math.min(2000, Math.max(100, (previous == 0 ? 100 : previous) * 3));
                    long wait = decisions.decide(engine, get(), 2, Outcome.status(503, null), 0, previous).waitMillis();
                    assertTrue(wait >= 100 && wait <= upper, "prev " + previous + " draw " + draw + ": " + wait);
                }
            }
            random.set(0.5);
            assertEquals(200, decisions.decide(engine, get(), 1, Outcome.status(503, null), 0, 0).waitMillis(),
                    "the first retry draws from [base, 3 * base]");
            assertEquals(2000, decisions.decide(engine, get(), 5, Outcome.status(503, null), 0, 1900).waitMillis(), "capped");
        }

        @Test
        void noJitterWaitsExactlyE() {
            RetryEngine engine = engine(Jitter.NONE);
            for (double draw : DRAWS) {
                random.set(draw);
                for (int attempt = 1; attempt < 12; attempt++) {
                    assertEquals(exponential(attempt),
                            decisions.decide(engine, get(), attempt, Outcome.status(503, null), 0, 0).waitMillis());
                }
            }
        }

        @Test
        void aRulesBackoffReplacesTheDefaults() {
            RetrySettings defaults = defaults(b -> noJitter(b).deadlineMillis(3_600_000));
            RetryEngine engine = RetryEngineTest.this.engine(policy(defaults,
                    rule(0, match("*.partner.example", "/v1/sync/**"), defaults,
                            b -> b.backoff(new BackoffPolicy(1000, 60_000, 2.0, Jitter.NONE)))));
            assertEquals(1000, first(engine, at("a.partner.example", "/v1/sync/x/y"), Outcome.status(503, null)).waitMillis());
            assertEquals(100, first(engine, at("a.partner.example", "/v2/sync/x"), Outcome.status(503, null)).waitMillis());
            assertEquals(100, first(engine, at("a.b.partner.example", "/v1/sync/x"), Outcome.status(503, null)).waitMillis());
        }
    }

    @Nested
    class RetryAfterHeader {
        private RetryEngine engine(boolean honor, long maxMillis, double spread) {
            return RetryEngineTest.this.engine(defaults(b -> noJitter(b).deadlineMillis(3_600_000)
                    .retryAfter(new RetryAfterPolicy(honor, maxMillis, spread))));
        }

        @Test
        void delaySecondsAreHonoredWithinRaToRaTimesOnePlusSpread() {
            RetryEngine engine = engine(true, 30_000, 0.5);
            for (double draw : DRAWS) {
                random.set(draw);
                long wait = first(engine, get(), Outcome.status(503, "2")).waitMillis();
                assertTrue(wait >= 2000 && wait <= 3000, "draw " + draw + ": " + wait);
            }
            random.set(0.0);
            assertEquals(2000, first(engine, get(), Outcome.status(429, "2")).waitMillis(), "never earlier than asked");
            random.set(0.5);
            assertEquals(2500, first(engine, get(), Outcome.status(429, "2")).waitMillis());
        }

        @Test
        void anHttpDateIsReadAgainstTheWallClock() {
            RetryEngine engine = engine(true, 30_000, 0.5);
            String in5s = httpDate(clock.currentTimeMillis() + 5000);
            for (double draw : DRAWS) {
                random.set(draw);
                long wait = first(engine, get(), Outcome.status(503, in5s)).waitMillis();
                assertTrue(wait >= 5000 && wait <= 7500, in5s + " draw " + draw + ": " + wait);
            }
            // The monotonic clock plays no part; only the wall clock does.
            clock.advanceSeconds(3);
            random.set(0.0);
            assertEquals(2000, first(engine, get(), Outcome.status(503, in5s)).waitMillis());
        }

        @Test
        void anHttpDateInThePastMeansRetryNow() {
            RetryEngine engine = engine(true, 30_000, 0.5);
            random.set(0.9);
            RetryDecision decision = first(engine, get(), Outcome.status(503, httpDate(clock.currentTimeMillis() - 60_000)));
            assertRetry(decision, 2, 3);
            assertEquals(0, decision.waitMillis());
        }

        @Test
        void zeroSpreadWaitsExactlyWhatWasAsked() {
            RetryEngine engine = engine(true, 30_000, 0.0);
            random.set(0.99);
            assertEquals(7000, first(engine, get(), Outcome.status(503, "7")).waitMillis());
        }

        @Test
        void aRetryAfterAboveMaxGoesBackAtOnce() {
            RetryEngine engine = engine(true, 30_000, 0.5);
            random.set(0.0);
            assertGiveUp(first(engine, get(), Outcome.status(503, "31")), GiveUpReason.RETRY_AFTER_TOO_LONG);
            assertGiveUp(first(engine, get(), Outcome.status(429, httpDate(clock.currentTimeMillis() + 31_000))),
                    GiveUpReason.RETRY_AFTER_TOO_LONG);
            assertEquals(2, counters(engine).giveUps(GiveUpReason.RETRY_AFTER_TOO_LONG));
            assertEquals(0, counters(engine).retries());
            // Exactly max is allowed.
            assertEquals(30_000, first(engine, get(), Outcome.status(503, "30")).waitMillis());
        }

        @ParameterizedTest
        @ValueSource(strings = {"soon", "-5", "1.5", "5s", "", "  ", "Thu, 15 Jan 2026 12:00:05", "99999999999999999999"})
        void aMalformedRetryAfterFallsBackToPlainBackoff(String value) {
            RetryEngine engine = engine(true, 30_000, 0.5);
            RetryDecision decision = first(engine, get(), Outcome.status(503, value));
            assertRetry(decision, 2, 3);
            assertEquals(100, decision.waitMillis());
        }

        @Test
        void honorFalseIgnoresRetryAfter() {
            RetryEngine engine = engine(false, 30_000, 0.5);
            assertEquals(100, first(engine, get(), Outcome.status(503, "5")).waitMillis());
            RetryDecision longOne = first(engine, get(), Outcome.status(503, "3600"));
            assertRetry(longOne, 2, 3);
            assertEquals(100, longOne.waitMillis());
        }

        @Test
        void retryAfterOnAFailureOrAnUnlistedStatusChangesNothing() {
            RetryEngine engine = engine(true, 30_000, 0.5);
            assertDone(first(engine, get(), Outcome.status(500, "1")));
            assertDone(first(engine, get(), Outcome.status(200, "1")));
        }
    }

    @Nested
    class Deadline {
        private RetryEngine engine() {
            return RetryEngineTest.this.engine(defaults(b -> noJitter(b).deadlineMillis(10_000)));
        }

        @Test
        void aWaitThatWouldReachTheDeadlineIsNotTaken() {
            RetryEngine engine = engine();
            assertRetry(decisions.decide(engine, get(), 1, Outcome.status(503, null), 9_899, 0), 2, 3);
            assertGiveUp(decisions.decide(engine, get(), 1, Outcome.status(503, null), 9_950, 0), GiveUpReason.DEADLINE);
            assertGiveUp(decisions.decide(engine, get(), 2, Outcome.status(503, null), 9_850, 100), GiveUpReason.DEADLINE);
            assertEquals(2, counters(engine).giveUps(GiveUpReason.DEADLINE));
        }

        @Test
        void aCallAlreadyPastItsDeadlineIsNotRetried() {
            assertGiveUp(decisions.decide(engine(), get(), 1, Outcome.failure(FailureKind.TIMEOUT), 25_000, 0), GiveUpReason.DEADLINE);
        }

        @Test
        void aRetryAfterThatCannotFinishBeforeTheDeadlineGoesBackAtOnce() {
            RetryEngine engine = engine();
            random.set(0.0);
            assertGiveUp(decisions.decide(engine, get(), 1, Outcome.status(503, "5"), 6_000, 0), GiveUpReason.DEADLINE);
            assertRetry(decisions.decide(engine, get(), 1, Outcome.status(503, "5"), 4_000, 0), 2, 3);
            // The spread counts too: 5 s + 0.5 * 0.9 * 5 s = 7.25 s does not fit in the 6 s left.
            random.set(0.9);
            assertGiveUp(decisions.decide(engine, get(), 1, Outcome.status(503, "5"), 4_000, 0), GiveUpReason.DEADLINE);
        }

        @Test
        void aDeadlineGiveUpSpendsNoBudget() {
            RetryEngine engine = RetryEngineTest.this.engine(defaults(b -> noJitter(b).deadlineMillis(10_000)
                    .budget(new BudgetPolicy(0.0, 1))));
            for (int i = 0; i < 50; i++) {
                assertGiveUp(decisions.decide(engine, get(), 1, Outcome.status(503, null), 9_990, 0), GiveUpReason.DEADLINE);
            }
            for (int i = 0; i < 10; i++) {
                assertRetry(first(engine, get(), Outcome.status(503, null)), 2, 3);
            }
        }
    }

    @Nested
    class Budget {
        private RetryEngine engine(double ratio, int minPerSecond) {
            return RetryEngineTest.this.engine(defaults(b -> b.budget(new BudgetPolicy(ratio, minPerSecond))));
        }

        @Test
        void theMinimumAllowsMinPerSecondTimesTenRetriesPerWindow() {
            RetryEngine engine = engine(0.0, 1);
            for (int i = 0; i < 10; i++) {
                assertRetry(first(engine, get(), Outcome.status(503, null)), 2, 3);
            }
            assertGiveUp(first(engine, get(), Outcome.status(503, null)), GiveUpReason.BUDGET);
            assertGiveUp(decisions.decide(engine, get(), 2, Outcome.failure(FailureKind.RESET), 10, 0), GiveUpReason.BUDGET);
            RetryCounters c = counters(engine);
            assertEquals(2, c.budgetRefusals());
            assertEquals(2, c.giveUps(GiveUpReason.BUDGET));
            assertEquals(10, c.retries());
            assertEquals(11, c.calls());
        }

        @Test
        void theRatioCountsFirstAttemptsInTheWindow() {
            RetryEngine engine = engine(0.5, 0);
            // Each first attempt is recorded before its own retry is asked for: 1 first allows 0 retries,
            // 2 allow 1, 3 allow 1, 4 allow 2.
            assertGiveUp(first(engine, get(), Outcome.status(503, null)), GiveUpReason.BUDGET);
            assertRetry(first(engine, get(), Outcome.status(503, null)), 2, 3);
            assertGiveUp(first(engine, get(), Outcome.status(503, null)), GiveUpReason.BUDGET);
            assertRetry(first(engine, get(), Outcome.status(503, null)), 2, 3);
            assertGiveUp(decisions.decide(engine, get(), 2, Outcome.status(503, null), 0, 0), GiveUpReason.BUDGET);
            assertEquals(3, counters(engine).budgetRefusals());
        }

        @Test
        void theWindowSlides() {
            RetryEngine engine = engine(0.0, 1);
            for (int i = 0; i < 10; i++) {
                assertRetry(first(engine, get(), Outcome.status(503, null)), 2, 3);
            }
            clock.advanceSeconds(9);
            assertGiveUp(first(engine, get(), Outcome.status(503, null)), GiveUpReason.BUDGET);
            clock.advanceSeconds(1);
            for (int i = 0; i < 10; i++) {
                assertRetry(first(engine, get(), Outcome.status(503, null)), 2, 3);
            }
            assertGiveUp(first(engine, get(), Outcome.status(503, null)), GiveUpReason.BUDGET);
        }

        @Test
        void theBudgetIsSharedByAllClientsOfADestinationAndSeparateAcrossDestinations() {
            RetryEngine engine = engine(0.0, 1);
            for (int i = 0; i < 5; i++) {
                assertRetry(first(engine, facts("okhttp", "GET", HOST, "/a", false, true, false), Outcome.status(503, null)), 2, 3);
                assertRetry(first(engine, facts("httpurlconnection", "GET", HOST, "/b", false, true, false), Outcome.status(503, null)), 2, 3);
            }
            assertGiveUp(first(engine, facts("apache-httpclient5", "GET", HOST, "/c", false, true, false), Outcome.status(503, null)),
                    GiveUpReason.BUDGET);
            assertEquals(1, engine.counters("apache-httpclient5", "https", HOST, 443).budgetRefusals());
            // Another host, another port, another scheme: each its own budget.
            assertRetry(first(engine, at("other.internal", "/"), Outcome.status(503, null)), 2, 3);
            CallFacts otherPort = new CallFacts(CLIENT, "GET", "https", HOST, 8443, "/", false, true, false);
            assertRetry(first(engine, otherPort, Outcome.status(503, null)), 2, 3);
            CallFacts plain = new CallFacts(CLIENT, "GET", "http", HOST, 443, "/", false, true, false);
            assertRetry(first(engine, plain, Outcome.status(503, null)), 2, 3);
        }

        @Test
        void retriesRefusedForOtherReasonsSpendNoBudget() {
            RetryEngine engine = engine(0.0, 1);
            for (int i = 0; i < 30; i++) {
                assertGiveUp(first(engine, call("POST"), Outcome.status(503, null)), GiveUpReason.NOT_IDEMPOTENT);
                assertGiveUp(decisions.decide(engine, get(), 3, Outcome.status(503, null), 0, 0), GiveUpReason.ATTEMPTS);
                assertGiveUp(first(engine, get(), Outcome.status(503, "3600")), GiveUpReason.RETRY_AFTER_TOO_LONG);
            }
            for (int i = 0; i < 10; i++) {
                assertRetry(first(engine, get(), Outcome.status(503, null)), 2, 3);
            }
        }

        @Test
        void aRulesBudgetApplies() {
            RetrySettings defaults = defaults(b -> b.budget(new BudgetPolicy(0.0, 0)));
            RetryEngine engine = RetryEngineTest.this.engine(policy(defaults,
                    rule(0, host("generous.internal"), defaults, b -> b.budget(new BudgetPolicy(0.0, 1)))));
            assertGiveUp(first(engine, get(), Outcome.status(503, null)), GiveUpReason.BUDGET);
            assertRetry(first(engine, at("generous.internal", "/"), Outcome.status(503, null)), 2, 3);
        }
    }

    @Nested
    class ObserveMode {
        @Test
        void aRetryableOutcomeWouldBeRetriedButIsNot() {
            RetryEngine engine = engine(policy(Mode.OBSERVE, defaults(TestPolicies::noJitter)));
            RetryDecision decision = first(engine, get(), Outcome.status(503, null));
            assertEquals(Action.WOULD_RETRY, decision.action());
            assertTrue(!decision.shouldRetry());
            assertEquals(100, decision.waitMillis());
            assertEquals(2, decision.attempt());
            RetryCounters c = counters(engine);
            assertEquals(1, c.wouldRetry());
            assertEquals(0, c.retries());
            assertEquals(1, c.calls());
            assertEquals(1, c.attempts());
        }

        @Test
        void observeSpendsNoBudget() {
            RetrySettings defaults = defaults(b -> b.budget(new BudgetPolicy(0.0, 1)));
            RetryEngine engine = engine(policy(Mode.OBSERVE, defaults));
            for (int i = 0; i < 50; i++) {
                assertEquals(Action.WOULD_RETRY, first(engine, get(), Outcome.status(503, null)).action());
            }
            assertEquals(50, counters(engine).wouldRetry());
            assertEquals(0, counters(engine).budgetRefusals());
            engine.setPolicy(policy(Mode.ENFORCE, defaults));
            for (int i = 0; i < 10; i++) {
                assertRetry(first(engine, get(), Outcome.status(503, null)), 2, 3);
            }
            assertGiveUp(first(engine, get(), Outcome.status(503, null)), GiveUpReason.BUDGET);
        }

        @Test
        void observeStillReportsGiveUps() {
            RetryEngine engine = engine(policy(Mode.OBSERVE, RetrySettings.builtIn()));
            assertGiveUp(first(engine, call("POST"), Outcome.status(503, null)), GiveUpReason.NOT_IDEMPOTENT);
            assertGiveUp(first(engine, get(), Outcome.status(503, "3600")), GiveUpReason.RETRY_AFTER_TOO_LONG);
            assertDone(first(engine, get(), Outcome.status(200, null)));
            assertEquals(0, counters(engine).wouldRetry());
        }

        @Test
        void aRuleCanObserveWhileTheRestEnforces() {
            RetrySettings defaults = RetrySettings.builtIn();
            RetryEngine engine = engine(policy(defaults, rule(0, host("new.internal"), defaults, b -> b.mode(Mode.OBSERVE))));
            assertEquals(Action.WOULD_RETRY, first(engine, at("new.internal", "/"), Outcome.status(503, null)).action());
            assertRetry(first(engine, get(), Outcome.status(503, null)), 2, 3);
            assertEquals(Mode.OBSERVE, engine.plan(at("new.internal", "/")).mode());
            assertEquals(Mode.ENFORCE, engine.plan(get()).mode());
        }
    }

    @Nested
    class ModeOff {
        @Test
        void offAtTheTopLeavesEveryCallAlone() {
            RetryEngine engine = engine(policy(Mode.OFF, RetrySettings.builtIn()));
            assertEquals(Mode.OFF, engine.plan(get()).mode());
            assertDone(first(engine, get(), Outcome.status(503, null)));
            assertDone(first(engine, call("POST"), Outcome.failure(FailureKind.RESET)));
            assertNull(engine.counters(CLIENT, "https", HOST, 443), "off counts nothing");
        }

        @Test
        void offInARuleLeavesItsCallsAlone() {
            RetrySettings defaults = RetrySettings.builtIn();
            RetryEngine engine = engine(policy(defaults, rule(0, host("reports.internal"), defaults, b -> b.mode(Mode.OFF))));
            assertEquals(Mode.OFF, engine.plan(at("reports.internal", "/")).mode());
            assertDone(first(engine, at("reports.internal", "/"), Outcome.status(503, null)));
            assertRetry(first(engine, get(), Outcome.status(503, null)), 2, 3);
        }

        @Test
        void anOperatorsOffOverridesARulesEnforce() {
            RetrySettings defaults = RetrySettings.builtIn();
            Policy file = policy(defaults, rule(0, host(HOST), defaults, b -> b.mode(Mode.ENFORCE)));
            RetryEngine engine = engine(file.withModeOverride(Mode.OFF));
            assertEquals(Mode.OFF, engine.plan(get()).mode());
            assertDone(first(engine, get(), Outcome.status(503, null)));
        }

        @Test
        void aPolicySwitchedToOffAppliesToTheNextDecision() {
            RetryEngine engine = builtIn();
            assertRetry(first(engine, get(), Outcome.status(503, null)), 2, 3);
            engine.setPolicy(policy(Mode.OFF, RetrySettings.builtIn()));
            assertDone(first(engine, get(), Outcome.status(503, null)));
        }
    }

    @Nested
    class Rules {
        @Test
        void theFirstMatchingRuleWins() {
            RetrySettings defaults = defaults(TestPolicies::noJitter);
            RetryEngine engine = engine(policy(defaults,
                    rule(0, match("payments.internal", null, "POST"), defaults,
                            b -> b.maxAttempts(2).idempotentMethods(Arrays.asList("POST"))),
                    rule(1, host("payments.internal"), defaults, b -> b.maxAttempts(5)),
                    rule(2, host("*.internal"), defaults, b -> b.maxAttempts(7))));
            CallFacts post = facts(CLIENT, "POST", "payments.internal", "/pay", false, true, false);
            assertRetry(first(engine, post, Outcome.status(503, null)), 2, 2);
            assertGiveUp(decisions.decide(engine, post, 2, Outcome.status(503, null), 0, 0), GiveUpReason.ATTEMPTS);
            CallFacts getPayments = at("payments.internal", "/pay");
            assertRetry(decisions.decide(engine, getPayments, 4, Outcome.status(503, null), 0, 0), 5, 5);
            assertRetry(decisions.decide(engine, at("PAYMENTS.Internal", "/"), 4, Outcome.status(503, null), 0, 0), 5, 5);
            assertRetry(decisions.decide(engine, get(), 6, Outcome.status(503, null), 0, 0), 7, 7);
            assertRetry(decisions.decide(engine, at("api.example", "/"), 2, Outcome.status(503, null), 0, 0), 3, 3);
            assertGiveUp(decisions.decide(engine, at("api.example", "/"), 3, Outcome.status(503, null), 0, 0), GiveUpReason.ATTEMPTS);
        }

        @Test
        void aRuleOverridesOnlyWhatItSays() {
            RetrySettings defaults = defaults(b -> noJitter(b).retryStatuses(StatusSet.of(503)));
            RetryEngine engine = engine(policy(defaults,
                    rule(0, host("slow.internal"), defaults, b -> b.deadlineMillis(1_000))));
            assertGiveUp(decisions.decide(engine, at("slow.internal", "/"), 1, Outcome.status(503, null), 950, 0), GiveUpReason.DEADLINE);
            assertRetry(decisions.decide(engine, get(), 1, Outcome.status(503, null), 950, 0), 2, 3);
            // The rule keeps the defaults' statuses and backoff.
            assertDone(first(engine, at("slow.internal", "/"), Outcome.status(502, null)));
            assertEquals(100, first(engine, at("slow.internal", "/"), Outcome.status(503, null)).waitMillis());
        }

        @Test
        void aRuleCanMatchOnClientAndPort() {
            RetrySettings defaults = RetrySettings.builtIn();
            RetryEngine engine = engine(policy(defaults,
                    rule(0, new dev.retryagent.policy.Match(null, 8443, null, java.util.Collections.emptySet(), "okhttp"),
                            defaults, b -> b.maxAttempts(1))));
            CallFacts okhttp8443 = new CallFacts("okhttp", "GET", "https", HOST, 8443, "/", false, true, false);
            CallFacts urlConnection8443 = new CallFacts("httpurlconnection", "GET", "https", HOST, 8443, "/", false, true, false);
            assertGiveUp(first(engine, okhttp8443, Outcome.status(503, null)), GiveUpReason.ATTEMPTS);
            assertRetry(first(engine, urlConnection8443, Outcome.status(503, null)), 2, 3);
            assertRetry(first(engine, get(), Outcome.status(503, null)), 2, 3);
        }
    }

    /** The engine remembers rule lookups (on the call, and per destination); answers never change. */
    @Nested
    class RememberedLookups {
        private final RetrySettings defaults = RetrySettings.builtIn();

        @Test
        void aCallKeepsThePolicyItStartedWithWhileNewCallsGetTheNewOne() {
            RetryEngine engine = engine(policy(defaults, rule(0, host(HOST), defaults, b -> b.maxAttempts(2))));
            CallFacts call = get().withPolicy(engine.policy()); // read at its start, as CallFacts.Builder does
            assertEquals(Mode.ENFORCE, engine.plan(call).mode());

            engine.setPolicy(withMarker(policy(Mode.OBSERVE, defaults(b -> b.maxAttempts(4))), null));
            assertEquals(Mode.ENFORCE, engine.plan(call).mode(), "asked again, the call keeps its start");
            assertEquals("Retry-Attempt", engine.plan(call).markerHeader());
            assertRetry(decisions.decide(engine, call, 1, Outcome.status(503, null), 0, 0), 2, 2);
            assertGiveUp(decisions.decide(engine, call, 2, Outcome.status(503, null), 0, 0), GiveUpReason.ATTEMPTS);
            assertTrue(engine.plan(call).mayRetry(FailureKind.RESET));

            CallFacts next = get();
            assertEquals(Mode.OBSERVE, engine.plan(next).mode());
            assertNull(engine.plan(next).markerHeader());
            RetryDecision decision = decisions.decide(engine, next, 1, Outcome.status(503, null), 0, 0);
            assertEquals(Action.WOULD_RETRY, decision.action());
            assertEquals(4, decision.maxAttempts());
            assertFalse(engine.plan(next).mayRetry(FailureKind.RESET));
        }

        @Test
        void aCallStartedBeforeTheKillSwitchFinishesAsItStartedAndTheNextIsLeftAlone() {
            RetryEngine engine = engine(policy(Mode.ENFORCE, defaults));
            CallFacts inFlight = get();
            assertEquals(Mode.ENFORCE, engine.plan(inFlight).mode());
            assertRetry(decisions.decide(engine, inFlight, 1, Outcome.status(503, null), 0, 0), 2, 3);

            engine.setPolicy(policy(Mode.OFF, defaults));
            assertRetry(decisions.decide(engine, inFlight, 2, Outcome.status(503, null), 100, 50), 3, 3);
            CallFacts after = get();
            assertEquals(Mode.OFF, engine.plan(after).mode());
            assertNull(engine.plan(after).markerHeader());
            assertDone(decisions.decide(engine, after, 1, Outcome.status(503, null), 0, 0));
        }

        @Test
        void aCallThatWasNeverAskedAboutStartsAtItsFirstQuestionWhicheverItIs() {
            RetryEngine engine = engine(policy(Mode.ENFORCE, defaults));
            CallFacts call = get();
            engine.setPolicy(policy(Mode.OFF, defaults));
            assertDone(decisions.decide(engine, call, 1, Outcome.status(503, null), 0, 0));
            engine.setPolicy(policy(Mode.ENFORCE, defaults));
            assertDone(decisions.decide(engine, call, 2, Outcome.status(503, null), 0, 0));
            assertEquals(Mode.ENFORCE, engine.plan(call).mode(), "the facts keep nothing: a new run starts anew");
        }

        @Test
        void factsReadUnderTheLastPolicyAreAnsweredUnderIt() {
            Policy first = policy(defaults, rule(0, host(HOST), defaults, b -> b.maxAttempts(2)));
            Policy second = policy(defaults, rule(0, host(HOST), defaults, b -> b.maxAttempts(5)));
            Policy third = withMarker(policy(Mode.OBSERVE, defaults), "X-Try");
            RetryEngine engine = engine(first);
            // The adapter read the key headers and the marker under the first policy, then a reload came.
            CallFacts readBefore = get().withPolicy(first);
            engine.setPolicy(second);
            assertEquals(Mode.ENFORCE, engine.plan(readBefore).mode());
            assertEquals(2, decisions.decide(engine, readBefore, 1, Outcome.status(503, null), 0, 0).maxAttempts());

            CallFacts readUnderSecond = get().withPolicy(second);
            engine.setPolicy(third);
            CallFacts twoBack = get().withPolicy(first);
            assertEquals(5, decisions.decide(engine, readUnderSecond, 1, Outcome.status(503, null), 0, 0).maxAttempts());
            assertEquals(2, decisions.decide(engine, twoBack, 1, Outcome.status(503, null), 0, 0).maxAttempts());
            assertEquals("Retry-Attempt", engine.plan(twoBack).markerHeader());

            CallFacts current = get().withPolicy(third);
            CallFacts unbound = get();
            assertEquals(Mode.OBSERVE, engine.plan(current).mode());
            assertEquals(Mode.OBSERVE, engine.plan(unbound).mode(), "the older calls left the new policy's lookups alone");
            assertEquals(Action.WOULD_RETRY, decisions.decide(engine, get(), 1, Outcome.status(503, null), 0, 0).action());
        }

        @Test
        void settingTheSamePolicyAgainChangesNothing() {
            Policy first = policy(defaults, rule(0, host(HOST), defaults, b -> b.maxAttempts(2)));
            Policy second = policy(Mode.OBSERVE, defaults);
            RetryEngine engine = engine(first);
            engine.setPolicy(second);
            engine.setPolicy(second);
            assertEquals(Mode.ENFORCE, engine.plan(get().withPolicy(first)).mode(), "the one before is still the first");
        }

        @Test
        void callsToOneDestinationThatDifferInPathMethodOrClientGetTheirOwnRule() {
            RetryEngine engine = engine(policy(defaults,
                    rule(0, match(HOST, "/a/**"), defaults, b -> b.maxAttempts(2)),
                    rule(1, match(HOST, null, "PUT"), defaults, b -> b.maxAttempts(4)),
                    rule(2, new dev.retryagent.policy.Match(HOST, -1, null, java.util.Collections.emptySet(), "httpurlconnection"),
                            defaults, b -> b.maxAttempts(5))));
            CallFacts a = at(HOST, "/a/1");
            CallFacts b = at(HOST, "/b/1");
            CallFacts put = facts(CLIENT, "PUT", HOST, "/b/1", false, true, false);
            CallFacts jdk = facts("httpurlconnection", "GET", HOST, "/b/1", false, true, false);
            CallFacts[] calls = {a, b, put, jdk};
            int[] max = {2, 3, 4, 5};
            // Many rounds, so that the destination's remembered lookup is replaced several times over.
            for (int round = 0; round < 300; round++) {
                for (int i = 0; i < calls.length; i++) {
                    // New facts every time, as every real call has; and the same ones asked again.
                    CallFacts fresh = new CallFacts(calls[i].client(), calls[i].method(), "https", HOST, 443,
                            calls[i].path(), false, true, false);
                    for (CallFacts call : new CallFacts[] {fresh, calls[i]}) {
                        engine.plan(call).mode();
                        RetryDecision decision = decisions.decide(engine, call, 2, Outcome.failure(FailureKind.RESET), 0, 0);
                        assertEquals(max[i], decision.maxAttempts(), "round " + round + ": " + call);
                    }
                }
            }
        }

        @Test
        void callsToOneDestinationThatDifferInPortOrHostSpellingGetTheirOwnRule() {
            RetryEngine engine = engine(policy(defaults,
                    rule(0, new dev.retryagent.policy.Match(null, 8443, null, java.util.Collections.emptySet(), null),
                            defaults, b -> b.maxAttempts(2))));
            CallFacts p443 = get();
            CallFacts p8443 = new CallFacts(CLIENT, "GET", "https", HOST, 8443, "/items", false, true, false);
            for (int i = 0; i < 100; i++) {
                assertEquals(3, decisions.decide(engine, p443, 2, Outcome.status(503, null), 0, 0).maxAttempts());
                assertEquals(2, decisions.decide(engine, p8443, 1, Outcome.status(503, null), 0, 0).maxAttempts());
            }
            RetryEngine caseRules = engine(policy(defaults, rule(0, host("API.internal"), defaults, b -> b.maxAttempts(6))));
            assertEquals(6, decisions.decide(caseRules, at("api.INTERNAL", "/"), 1, Outcome.status(503, null), 0, 0).maxAttempts());
            assertEquals(6, decisions.decide(caseRules, at(HOST, "/"), 1, Outcome.status(503, null), 0, 0).maxAttempts());
        }

        @Test
        void hostsSharingTheOverflowDestinationGetTheirOwnRule() {
            RetryEngine engine = engine(policy(defaults, rule(0, host("special.example"), defaults, b -> b.maxAttempts(2))));
            for (int i = 0; i < Destinations.MAX_HOSTS; i++) {
                first(engine, at("h" + i + ".example", "/"), Outcome.status(200, null));
            }
            CallFacts special = at("special.example", "/");
            CallFacts plain = at("plain.example", "/");
            for (int i = 0; i < 100; i++) {
                assertEquals(2, decisions.decide(engine, special, 1, Outcome.status(503, null), 0, 0).maxAttempts());
                assertEquals(3, decisions.decide(engine, plain, 1, Outcome.status(503, null), 0, 0).maxAttempts());
            }
            assertNotNull(engine.counters(CLIENT, "*", "(other hosts)", 0), "both went to the overflow destination");
        }

        @Test
        void theSameAddressInAnotherSchemeIsCountedAtItsOwnDestination() {
            RetryEngine engine = engine(policy(defaults));
            for (int i = 0; i < 3; i++) {
                first(engine, get(), Outcome.status(200, null));
                first(engine, new CallFacts(CLIENT, "GET", "http", HOST, 443, "/items", false, true, false),
                        Outcome.status(200, null));
            }
            assertEquals(3, counters(engine).calls());
            assertEquals(3, engine.counters(CLIENT, "http", HOST, 443).calls());
        }

        @Test
        void aDestinationDroppedSinceItsLookupWasRememberedIsMadeAnew() {
            RetryEngine engine = engine(policy(defaults));
            first(engine, get(), Outcome.status(200, null));
            first(engine, get(), Outcome.status(200, null)); // the destination is known now: its lookup is remembered
            for (int i = 0; i < Destinations.SWEEP_ABOVE; i++) {
                first(engine, at("h" + i + ".example", "/"), Outcome.status(200, null));
            }
            clock.advanceMillis(java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(Destinations.IDLE_NANOS) + 1_000);
            first(engine, at("fresh.example", "/"), Outcome.status(200, null)); // drops every idle destination
            assertNull(engine.counters(CLIENT, "https", HOST, 443));

            first(engine, get(), Outcome.status(200, null));
            assertEquals(1, counters(engine).calls(), "counted at a destination in the table");
        }

        @Test
        void askingAboutACallLeavesNoDestinationBehind() {
            RetryEngine engine = engine(policy(Mode.OFF, defaults));
            engine.plan(get()).mode();
            engine.plan(get()).markerHeader();
            decisions.decide(engine, get(), 1, Outcome.status(503, null), 0, 0);
            assertTrue(engine.destinations().isEmpty());
        }
    }

    @Nested
    class Counters {
        @Test
        void aCallThatSucceedsAfterTwoRetries() {
            RetryEngine engine = builtIn();
            assertRetry(decisions.decide(engine, get(), 1, Outcome.status(503, null), 0, 0), 2, 3);
            assertRetry(decisions.decide(engine, get(), 2, Outcome.failure(FailureKind.RESET), 60, 50), 3, 3);
            assertDone(decisions.decide(engine, get(), 3, Outcome.status(200, null), 200, 100));
            RetryCounters c = counters(engine);
            assertEquals(1, c.calls());
            assertEquals(3, c.attempts());
            assertEquals(2, c.retries());
            assertEquals(1, c.successesAfterRetry());
            assertEquals(0, c.wouldRetry());
        }

        @Test
        void aFirstAttemptSuccessIsNotASuccessAfterRetryNorIsAFinal404() {
            RetryEngine engine = builtIn();
            assertDone(first(engine, get(), Outcome.status(200, null)));
            assertRetry(first(engine, get(), Outcome.status(503, null)), 2, 3);
            assertDone(decisions.decide(engine, get(), 2, Outcome.status(404, null), 0, 0));
            RetryCounters c = counters(engine);
            assertEquals(2, c.calls());
            assertEquals(3, c.attempts());
            assertEquals(0, c.successesAfterRetry());
        }

        @Test
        void giveUpsAreCountedByReason() {
            RetryEngine engine = engine(defaults(b -> b.budget(new BudgetPolicy(0.0, 0))));
            first(engine, call("POST"), Outcome.status(503, null));
            first(engine, call("PATCH"), Outcome.status(503, null));
            first(engine, facts(CLIENT, "GET", HOST, "/", false, false, false), Outcome.status(503, null));
            first(engine, facts(CLIENT, "GET", HOST, "/", false, true, true), Outcome.status(503, null));
            decisions.decide(engine, get(), 3, Outcome.status(503, null), 0, 0);
            decisions.decide(engine, get(), 1, Outcome.status(503, null), 20_000, 0);
            first(engine, get(), Outcome.status(503, "3600"));
            first(engine, get(), Outcome.status(503, null));
            RetryCounters c = counters(engine);
            assertEquals(2, c.giveUps(GiveUpReason.NOT_IDEMPOTENT));
            assertEquals(1, c.giveUps(GiveUpReason.BODY_NOT_REPLAYABLE));
            assertEquals(1, c.giveUps(GiveUpReason.NESTED));
            assertEquals(1, c.giveUps(GiveUpReason.ATTEMPTS));
            assertEquals(1, c.giveUps(GiveUpReason.DEADLINE));
            assertEquals(1, c.giveUps(GiveUpReason.RETRY_AFTER_TOO_LONG));
            assertEquals(1, c.giveUps(GiveUpReason.BUDGET));
            assertEquals(1, c.budgetRefusals());
            assertEquals(0, c.retries());
            assertEquals(7, c.calls(), "the attempt-3 decision is not a new call");
        }

        @Test
        void countersArePerClientAndPerDestination() {
            RetryEngine engine = builtIn();
            first(engine, facts("okhttp", "GET", HOST, "/", false, true, false), Outcome.status(503, null));
            first(engine, facts("okhttp", "GET", HOST, "/", false, true, false), Outcome.status(200, null));
            first(engine, facts("httpurlconnection", "GET", HOST, "/", false, true, false), Outcome.status(503, null));
            first(engine, facts("okhttp", "GET", "other.internal", "/", false, true, false), Outcome.status(200, null));

            RetryCounters okhttp = engine.counters("okhttp", "https", HOST, 443);
            RetryCounters jdk = engine.counters("httpurlconnection", "https", HOST, 443);
            RetryCounters other = engine.counters("okhttp", "https", "other.internal", 443);
            assertEquals(2, okhttp.calls());
            assertEquals(1, okhttp.retries());
            assertEquals(1, jdk.calls());
            assertEquals(1, jdk.retries());
            assertEquals(1, other.calls());
            assertEquals(0, other.retries());
            assertNull(engine.counters("apache-httpclient5", "https", HOST, 443));
            assertNull(engine.counters("okhttp", "http", HOST, 443));

            List<Destination> destinations = engine.destinations();
            assertEquals(2, destinations.size());
            Destination api = destinations.stream().filter(d -> d.host().equals(HOST)).findFirst().orElseThrow();
            assertEquals("https", api.scheme());
            assertEquals(443, api.port());
            assertEquals(2, api.counters().size());
        }

        @Test
        void aDestinationIsTheSameWhateverTheCaseOfItsScheme() {
            RetryEngine engine = builtIn();
            for (int i = 0; i < 5; i++) {
                first(engine, new CallFacts(CLIENT, "GET", i % 2 == 0 ? "HTTPS" : "https", HOST, 443, "/", false, true, false),
                        Outcome.status(200, null));
            }
            assertEquals(1, engine.destinations().size(), engine.destinations()::toString);
            assertEquals(5, engine.counters(CLIENT, "https", HOST, 443).calls());
        }

        @Test
        void aDestinationIsTheSameWhateverTheCaseOfItsHostSoClientsShareOneBudget() {
            RetryEngine engine = engine(defaults(b -> b.budget(new BudgetPolicy(0.0, 1))));
            for (int i = 0; i < 5; i++) {
                // HttpURLConnection keeps the URL's case; OkHttp lower-cases.
                assertRetry(first(engine, facts("httpurlconnection", "GET", "API.Internal", "/", false, true, false),
                        Outcome.status(503, null)), 2, 3);
                assertRetry(first(engine, facts("okhttp", "GET", HOST, "/", false, true, false),
                        Outcome.status(503, null)), 2, 3);
            }
            assertGiveUp(first(engine, facts("okhttp", "GET", "API.INTERNAL", "/", false, true, false),
                    Outcome.status(503, null)), GiveUpReason.BUDGET);
            assertEquals(1, engine.destinations().size(), engine.destinations()::toString);
            assertEquals(HOST, engine.destinations().get(0).host());
            assertEquals(5, engine.counters("httpurlconnection", "https", HOST, 443).calls());
            assertEquals(6, engine.counters("okhttp", "https", "Api.Internal", 443).calls());
        }
    }

    @Nested
    class Marker {
        @Test
        void enforceSendsThePolicysMarker() {
            assertEquals("Retry-Attempt", builtIn().plan(get()).markerHeader());
            assertEquals("X-Try", engine(withMarker(policy(RetrySettings.builtIn()), "X-Try")).plan(get()).markerHeader());
        }

        @Test
        void noMarkerWhenDisabled() {
            assertNull(engine(withMarker(policy(RetrySettings.builtIn()), null)).plan(get()).markerHeader());
        }

        @Test
        void noMarkerInObserveOrOff() {
            assertNull(engine(policy(Mode.OBSERVE, RetrySettings.builtIn())).plan(get()).markerHeader());
            assertNull(engine(policy(Mode.OFF, RetrySettings.builtIn())).plan(get()).markerHeader());
            RetrySettings defaults = RetrySettings.builtIn();
            RetryEngine engine = engine(policy(defaults,
                    rule(0, host("reports.internal"), defaults, b -> b.mode(Mode.OFF)),
                    rule(1, host("new.internal"), defaults, b -> b.mode(Mode.OBSERVE))));
            assertNull(engine.plan(at("reports.internal", "/")).markerHeader());
            assertNull(engine.plan(at("new.internal", "/")).markerHeader());
            assertEquals("Retry-Attempt", engine.plan(get()).markerHeader());
            assertNull(engine(policy(RetrySettings.builtIn()).withModeOverride(Mode.OBSERVE)).plan(get()).markerHeader());
        }

        @Test
        void noMarkerWhenTheRequestAlreadyCarriesOne() {
            assertNull(builtIn().plan(facts(CLIENT, "GET", HOST, "/", false, true, true)).markerHeader());
        }

        @Test
        void noMarkerOnARequestThisLayerWillNotRetry() {
            assertNull(builtIn().plan(TestPolicies.call("POST")).markerHeader(), "not idempotent, no key");
            assertEquals("Retry-Attempt", builtIn().plan(facts(CLIENT, "POST", HOST, "/", true, true, false)).markerHeader(),
                    "a POST with an idempotency key may be retried");
            assertNull(builtIn().plan(facts(CLIENT, "PUT", HOST, "/", false, false, false)).markerHeader(),
                    "a body that cannot be replayed");
            assertNull(engine(policy(defaults(b -> b.maxAttempts(1)))).plan(get()).markerHeader(), "maxAttempts 1");
        }

        @Test
        void aCallMadeInsideAnAttemptCarriesTheMarkerEvenWhenItWouldNotBeRetriedItself() {
            CallFacts post = TestPolicies.call("POST").insideAttempt(2);
            assertEquals("Retry-Attempt", builtIn().plan(post).markerHeader(),
                    "the enclosing call's retries cover it: layers below must not retry it");
            assertFalse(builtIn().plan(post).mayRetry());
        }

        @Test
        void mayRetryIsTheMarkersCondition() {
            RetryEngine engine = builtIn();
            assertTrue(engine.plan(get()).mayRetry());
            assertFalse(engine.plan(TestPolicies.call("POST")).mayRetry());
            assertFalse(engine.plan(facts(CLIENT, "GET", HOST, "/", false, true, true)).mayRetry(), "already marked");
            assertFalse(engine(policy(Mode.OBSERVE, RetrySettings.builtIn())).plan(get()).mayRetry());
            assertFalse(engine(policy(defaults(b -> b.maxAttempts(1)))).plan(get()).mayRetry());
        }

        @Test
        void planningACallCountsNothing() {
            RetryEngine engine = builtIn();
            engine.plan(get()).mode();
            engine.plan(get()).markerHeader();
            assertNull(engine.counters(CLIENT, "https", HOST, 443));
        }
    }

    @Test
    void decidingAllocatesNoDecisionForADoneOutcome() {
        RetryEngine engine = builtIn();
        assertSame(RetryDecision.done(), first(engine, get(), Outcome.status(200, null)));
    }
}
