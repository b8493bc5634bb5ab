package dev.retryagent.engine;

import static dev.retryagent.engine.TestPolicies.CLIENT;
import static dev.retryagent.engine.TestPolicies.HOST;
import static dev.retryagent.engine.TestPolicies.defaults;
import static dev.retryagent.engine.TestPolicies.host;
import static dev.retryagent.engine.TestPolicies.policy;
import static dev.retryagent.engine.TestPolicies.rule;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.engine.LayerRetries.Failures;
import dev.retryagent.engine.LayerRetries.Statuses;
import dev.retryagent.engine.RetryDecision.Action;
import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetrySettings;
import dev.retryagent.policy.StatusSet;
import dev.retryagent.policy.UpperLayers;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** docs/reference.md#layers-above-the-client: the loops a thread runs, the attempt headers of the AWS SDK, and what the
 * engine does inside a layer. */
class UpperLayerTest {
    private final FakeClock clock = new FakeClock();
    private final Decisions decisions = new Decisions(clock);
    private final FakeRandom random = new FakeRandom(0.5);

    @AfterEach
    void leaveEveryLoop() {
        while (UpperLayer.current() != null) {
            UpperLayer.exit();
        }
    }

    /** Request headers, compared case-insensitively as HTTP does. */
    private static HeaderLookup headers(String... namesAndValues) {
        Map<String, String> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 0; i < namesAndValues.length; i += 2) {
            map.put(namesAndValues[i], namesAndValues[i + 1]);
        }
        return new HeaderLookup() {
            @Override
            public boolean has(String name) {
                return map.containsKey(name);
            }

            @Override
            public String value(String name) {
                return map.get(name);
            }
        };
    }

    /** The name of the layer {@link UpperLayer#of} finds for {@code headers}, or null. */
    private static String layerOf(HeaderLookup headers) {
        LayerRetries layer = UpperLayer.of(headers);
        return layer == null ? null : layer.layer();
    }

    private static CallFacts read(RetryEngine engine, String method, HeaderLookup headers) {
        return CallFacts.builder(CLIENT, method, "https", HOST, 443, "/items").build(engine, headers);
    }

    @Nested
    class TheLoopsOfAThread {
        @Test
        void noLoopIsNoLayer() {
            assertNull(UpperLayer.current());
        }

        @Test
        void theInnermostLoopThatRetriesNamesTheLayer() {
            UpperLayer.enter("spring-retry");
            assertEquals("spring-retry", UpperLayer.current());
            UpperLayer.enter("aws-sdk-v2");
            assertEquals("aws-sdk-v2", UpperLayer.current());
            UpperLayer.enter(UpperLayer.RETRIES_OFF);
            assertEquals("aws-sdk-v2", UpperLayer.current(), "a loop with its retries off inside one that retries");
            UpperLayer.enter((LayerRetries) null);
            assertEquals("aws-sdk-v2", UpperLayer.current(), "a method that is no loop changes nothing");
            UpperLayer.exit();
            UpperLayer.exit();
            UpperLayer.exit();
            assertEquals("spring-retry", UpperLayer.current());
            UpperLayer.exit();
            assertNull(UpperLayer.current());
        }

        @Test
        void loopsWithTheirRetriesOffSaySo() {
            UpperLayer.enter(UpperLayer.RETRIES_OFF);
            UpperLayer.enter((LayerRetries) null);
            assertEquals(UpperLayer.RETRIES_OFF, UpperLayer.current());
            UpperLayer.exit();
            UpperLayer.exit();
            assertNull(UpperLayer.current());
        }

        @Test
        void aLeaveWithoutAnEnterChangesNothing() {
            UpperLayer.exit(); // a loop entered before the agent was attached
            UpperLayer.enter("feign");
            assertEquals("feign", UpperLayer.current());
            UpperLayer.exit();
            assertNull(UpperLayer.current());
        }

        @Test
        void loopsDeeperThanRecordedAreCountedSoThatTheOuterOnesComeBack() {
            UpperLayer.enter("outer");
            for (int i = 0; i < 40; i++) {
                UpperLayer.enter("inner");
            }
            assertEquals("inner", UpperLayer.current());
            for (int i = 0; i < 40; i++) {
                UpperLayer.exit();
            }
            assertEquals("outer", UpperLayer.current());
            UpperLayer.exit();
            assertNull(UpperLayer.current());
        }

        @Test
        void eachThreadHasItsOwn() throws Exception {
            UpperLayer.enter("feign");
            String[] seen = new String[1];
            Thread other = new Thread(() -> seen[0] = UpperLayer.current());
            other.start();
            other.join();
            assertNull(seen[0]);
            UpperLayer.exit();
        }
    }

    @Nested
    class AttemptHeaders {
        @Test
        void awsSdkV2IsALayerWhenItsAttemptHeaderAllowsMoreThanOne() {
            assertEquals(3, UpperLayer.awsMaxAttempts("attempt=1; max=3"));
            assertEquals(12, UpperLayer.awsMaxAttempts("attempt=2;max=12"));
            assertEquals(0, UpperLayer.awsMaxAttempts("attempt=1"));
            assertEquals(0, UpperLayer.awsMaxAttempts("max="));
            assertEquals(UpperLayer.AWS_SDK_V2, layerOf(headers("amz-sdk-request", "attempt=1; max=3")));
            assertEquals(UpperLayer.AWS_SDK_V2, layerOf(headers("Amz-Sdk-Request", "attempt=1; MAX=4")));
            assertNull(layerOf(headers("amz-sdk-request", "attempt=1; max=1")), "retries off: no layer");
            assertNull(layerOf(headers("amz-sdk-request", "attempt=1")), "no max: nothing known");
        }

        @Test
        void theRetryHeaderOfV1AloneSaysNothingOfTheAttemptsToCome() {
            assertNull(layerOf(headers("amz-sdk-retry", "0/0/500")));
            assertNull(layerOf(headers("Accept", "*/*")));
        }

        @Test
        void awsSdkV1WritesTheAttemptHeaderTooAndItsMaxDecides() {
            assertEquals(UpperLayer.AWS_SDK_V1, layerOf(headers("amz-sdk-retry", "0/0/500",
                    "amz-sdk-request", "attempt=1;max=4")));
            assertNull(layerOf(headers("amz-sdk-retry", "0/0/500", "amz-sdk-request", "attempt=1;max=1")),
                    "NO_RETRY_POLICY: one attempt, no layer");
        }

        @Test
        void aHookedLoopDecidesBeforeTheHeaders() {
            UpperLayer.enter(UpperLayer.RETRIES_OFF);
            assertNull(layerOf(headers("amz-sdk-retry", "0/0/500", "amz-sdk-request", "attempt=1;max=4")),
                    "the loop said its retries are off");
            UpperLayer.exit();
            UpperLayer.enter("spring-retry");
            assertEquals("spring-retry", layerOf(headers("amz-sdk-request", "attempt=1; max=1")));
            UpperLayer.exit();
        }
    }

    @Nested
    class TheEngineInsideALayer {
        private final RetryEngine engine = new RetryEngine(Policy.builtIn(), clock, random);

        @Test
        void aCallInsideALayerIsSentOnceUnmarkedAndCounted() {
            UpperLayer.enter("aws-sdk-v2");
            CallFacts call = read(engine, "GET", headers());
            UpperLayer.exit();
            assertEquals("aws-sdk-v2", call.upperLayer());
            assertFalse(engine.plan(call).mayRetry(), "the layer above retries it");
            assertFalse(engine.plan(call).mayRetry(FailureKind.RESET), "nor does a client's hidden resend");
            assertNull(engine.plan(call).markerHeader(), "unmarked: the layer below may still retry it");

            RetryDecision decision = decisions.decide(engine, call, 1, Outcome.status(503, null), 0, 0);
            assertEquals(Action.GIVE_UP, decision.action());
            assertEquals(GiveUpReason.UPPER_LAYER, decision.reason());
            RetryCounters counters = engine.counters(CLIENT, "https", HOST, 443);
            assertEquals(1, counters.calls());
            assertEquals(1, counters.upperLayerCalls());
            assertEquals(1, counters.giveUps(GiveUpReason.UPPER_LAYER));
            assertEquals(0, counters.retries());
            assertEquals("retry-agent give up client=okhttp method=GET host=api.internal path=/items attempt=1/3"
                    + " cause=status:503 reason=upper-layer layer=aws-sdk-v2",
                    RetryLog.line(call, engine.plan(call).mode(), Outcome.status(503, null), decision));
        }

        @Test
        void aSuccessInsideALayerIsCountedAsDeferredAndNothingElse() {
            UpperLayer.enter("feign");
            CallFacts call = read(engine, "GET", headers());
            UpperLayer.exit();
            assertEquals(Action.DONE, decisions.decide(engine, call, 1, Outcome.status(200, null), 0, 0).action());
            RetryCounters counters = engine.counters(CLIENT, "https", HOST, 443);
            assertEquals(1, counters.upperLayerCalls());
            assertEquals(0, counters.giveUps(GiveUpReason.UPPER_LAYER));
        }

        @Test
        void theSameCallOutsideTheLayerIsRetried() {
            CallFacts call = read(engine, "GET", headers());
            assertNull(call.upperLayer());
            assertTrue(engine.plan(call).mayRetry());
            assertEquals(Action.RETRY, decisions.decide(engine, call, 1, Outcome.status(503, null), 0, 0).action());
            assertEquals(0, engine.counters(CLIENT, "https", HOST, 443).upperLayerCalls());
        }

        @Test
        void theAwsAttemptHeaderAloneIsEnough() {
            CallFacts call = read(engine, "GET", headers("amz-sdk-request", "attempt=1; max=4"));
            assertEquals(UpperLayer.AWS_SDK_V2, call.upperLayer());
            assertFalse(engine.plan(call).mayRetry());
        }

        @Test
        void aLoopWithItsRetriesOffIsNoLayer() {
            UpperLayer.enter(UpperLayer.RETRIES_OFF);
            CallFacts call = read(engine, "GET", headers("amz-sdk-request", "attempt=1; max=3"));
            UpperLayer.exit();
            assertNull(call.upperLayer());
            assertTrue(engine.plan(call).mayRetry());
        }
    }

    @Nested
    class WhatTheRuleSays {
        @Test
        void upperLayersRetryRetriesTheCallAsAnyOther() {
            RetrySettings retry = defaults(b -> b.upperLayers(UpperLayers.RETRY));
            RetryEngine engine = new RetryEngine(policy(retry), clock, random);
            UpperLayer.enter("aws-sdk-v2");
            CallFacts call = read(engine, "GET", headers());
            UpperLayer.exit();
            assertNull(call.upperLayer(), "the rule does not defer: the layer is not looked for");
            assertTrue(engine.plan(call).mayRetry());
            assertEquals(Action.RETRY, decisions.decide(engine, call, 1, Outcome.status(503, null), 0, 0).action());
            assertEquals(0, engine.counters(CLIENT, "https", HOST, 443).upperLayerCalls());
        }

        @Test
        void aRuleDefersOrRetriesForItsOwnCalls() {
            RetrySettings defaults = RetrySettings.builtIn();
            Policy policy = policy(defaults, rule(0, host("reports.internal"), defaults,
                    b -> b.upperLayers(UpperLayers.RETRY)));
            RetryEngine engine = new RetryEngine(policy, clock, random);
            UpperLayer.enter("feign");
            CallFacts deferred = read(engine, "GET", headers());
            CallFacts retried = CallFacts.builder(CLIENT, "GET", "https", "reports.internal", 443, "/")
                    .build(engine, headers());
            UpperLayer.exit();
            assertEquals("feign", deferred.upperLayer());
            assertNull(retried.upperLayer());
        }

        @Test
        void observeReportsWouldDeferAndChangesNothing() {
            RetryEngine engine = new RetryEngine(policy(Mode.OBSERVE, RetrySettings.builtIn()), clock, random);
            UpperLayer.enter("resilience4j");
            CallFacts call = read(engine, "GET", headers());
            UpperLayer.exit();
            assertNull(engine.plan(call).markerHeader());
            RetryDecision decision = decisions.decide(engine, call, 1, Outcome.status(503, null), 0, 0);
            assertEquals(GiveUpReason.UPPER_LAYER, decision.reason());
            assertEquals(0, engine.counters(CLIENT, "https", HOST, 443).wouldRetry());
            assertTrue(RetryLog.line(call, engine.plan(call).mode(), Outcome.status(503, null), decision)
                    .startsWith("retry-agent would defer client=okhttp"), "observe says what enforce would do");
        }

        @Test
        void modeOffLooksForNoLayer() {
            RetryEngine engine = new RetryEngine(policy(Mode.OFF, RetrySettings.builtIn()), clock, random);
            UpperLayer.enter("failsafe");
            CallFacts call = read(engine, "GET", headers());
            UpperLayer.exit();
            assertNull(call.upperLayer());
        }
    }

    /**
     * A layer whose hook tells what its loop retries: the outcomes it may retry are left to it, the others are the
     * agent's, under the call's rule.
     */
    @Nested
    class ALayerThatSaysWhatItRetries {
        /** Feign's default ErrorDecoder and Retryer: every I/O error, a status only with Retry-After. */
        private final LayerRetries feign = LayerRetries.of("feign", Failures.RETRIED, Statuses.WITH_RETRY_AFTER);
        /** google-http-client's back-off handler for responses (5xx), no I/O-exception handler. */
        private final LayerRetries serverErrorsOnly = LayerRetries.listed("google-http-client", Failures.NOT_RETRIED,
                StatusSet.of(500, 501, 502, 503, 504, 505, 599));
        private final RetryEngine engine = new RetryEngine(policy(defaults(TestPolicies::noJitter)), clock, random);

        private CallFacts inside(LayerRetries layer, String method) {
            UpperLayer.enter(layer);
            try {
                return read(engine, method, headers());
            } finally {
                UpperLayer.exit();
            }
        }

        private RetryDecision decide(CallFacts call, Outcome outcome) {
            return decisions.decide(engine, call, 1, outcome, 0, 0);
        }

        @Test
        void aCallTheAgentMayRetryIsMarkedAndEachOutcomeGoesToTheLayerThatRetriesIt() {
            CallFacts call = inside(feign, "GET");
            assertEquals("feign", call.upperLayer());
            assertTrue(engine.plan(call).mayRetry(), "a 503 without Retry-After is the agent's");
            assertEquals("Retry-Attempt", engine.plan(call).markerHeader(), "marked: this JVM retries it, in two layers");
            assertFalse(engine.plan(call).mayRetry(FailureKind.RESET), "Feign retries a reset; nor does a hidden resend");

            assertEquals(Action.RETRY, decide(call, Outcome.status(503, null)).action());
            assertEquals(GiveUpReason.UPPER_LAYER, decide(call, Outcome.status(503, "0")).reason());
            assertEquals(GiveUpReason.UPPER_LAYER, decide(call, Outcome.failure(FailureKind.RESET)).reason());
            assertEquals(Action.DONE, decide(call, Outcome.status(200, null)).action());
            RetryCounters counters = engine.counters(CLIENT, "https", HOST, 443);
            assertEquals(4, counters.upperLayerCalls(), "every call made inside the layer");
            assertEquals(2, counters.giveUps(GiveUpReason.UPPER_LAYER));
            assertEquals(1, counters.retries());
            assertEquals("retry-agent give up client=okhttp method=GET host=api.internal path=/items attempt=1/3"
                    + " cause=failure:reset reason=upper-layer layer=feign",
                    RetryLog.line(call, Mode.ENFORCE, Outcome.failure(FailureKind.RESET),
                            decide(call, Outcome.failure(FailureKind.RESET))));
        }

        @Test
        void theAgentRetriesInsideOneOfTheLayersAttemptsAndLeavesTheOthersAlone() throws IOException {
            RetryLoop loop = new RetryLoop(engine, clock, new FakeSleeper(clock));
            RetryLoopTest.FakeExchange recovered = new RetryLoopTest.FakeExchange(
                    Script.of().status(503).status(503).status(200));
            assertEquals(200, loop.execute(inside(feign, "GET"), recovered).status);
            assertEquals(List.of("1", "2", "3"), recovered.markers);

            RetryLoopTest.FakeExchange deferred = new RetryLoopTest.FakeExchange(
                    Script.of().status(503, "0").status(200));
            assertEquals(503, loop.execute(inside(feign, "GET"), deferred).status);
            assertEquals(List.of("1"), deferred.markers, "sent once, marked: Feign sends the next attempt");

            RetryLoopTest.FakeExchange dropped = new RetryLoopTest.FakeExchange(
                    Script.of().fail(FailureKind.RESET).status(200));
            CallFacts call = inside(feign, "GET");
            IOException thrown = assertThrows(IOException.class,
                    () -> loop.execute(call, dropped));
            assertEquals(dropped.thrown.get(0), thrown);
            assertEquals(List.of(1), dropped.attempts);
        }

        @Test
        void theLayerComesBeforeTheAgentsOwnRefusalsAndThoseStillHold() {
            CallFacts post = inside(feign, "POST");
            assertFalse(engine.plan(post).mayRetry());
            assertNull(engine.plan(post).markerHeader(), "a POST without key: never the agent's, unmarked");
            assertEquals(GiveUpReason.NOT_IDEMPOTENT, decide(post, Outcome.status(503, null)).reason());
            assertEquals(GiveUpReason.UPPER_LAYER, decide(post, Outcome.status(503, "0")).reason());
            assertEquals(Action.DONE, decide(post, Outcome.status(404, null)).action(), "classified first");
        }

        @Test
        void aLayerThatRetriesNoFailureLeavesThemToTheAgent() {
            CallFacts call = inside(serverErrorsOnly, "GET");
            assertTrue(engine.plan(call).mayRetry(FailureKind.RESET));
            assertEquals(Action.RETRY, decide(call, Outcome.failure(FailureKind.RESET)).action());
            assertEquals(Action.RETRY, decide(call, Outcome.status(429, null)).action(), "not a server error");
            assertEquals(GiveUpReason.UPPER_LAYER, decide(call, Outcome.status(503, null)).reason());
        }

        @Test
        void aRequestThatNeverLeftIsTheAgentsOnlyWhereTheLayerRetriesNoFailure() {
            CallFacts insideFeign = inside(feign, "POST");
            assertFalse(engine.plan(insideFeign).mayRetryUnsent(FailureKind.CONNECT), "Feign retries a refused connection");
            assertEquals(GiveUpReason.UPPER_LAYER,
                    decide(insideFeign, Outcome.unsentFailure(FailureKind.CONNECT)).reason());
            CallFacts insideServerErrorsOnly = inside(serverErrorsOnly, "POST");
            assertTrue(engine.plan(insideServerErrorsOnly).mayRetryUnsent(FailureKind.CONNECT));
            assertEquals(Action.RETRY,
                    decide(insideServerErrorsOnly, Outcome.unsentFailure(FailureKind.CONNECT)).action());
            assertEquals(GiveUpReason.NOT_IDEMPOTENT,
                    decide(insideServerErrorsOnly, Outcome.failure(FailureKind.RESET)).reason());
            assertEquals(1, engine.plan(insideFeign).lastAttemptRetriedUnsent(FailureKind.CONNECT));
            assertEquals(3, engine.plan(insideServerErrorsOnly).lastAttemptRetriedUnsent(FailureKind.CONNECT));
        }

        @Test
        void aLayerThatRetriesEveryOutcomeTheRuleRetriesIsDeferredToWhole() {
            LayerRetries serverErrorsAndFailures = LayerRetries.listed("google-http-client", Failures.RETRIED,
                    StatusSet.of(500, 502, 503, 504));
            RetryEngine fiveHundreds = new RetryEngine(policy(defaults(b -> b.retryStatuses(StatusSet.of(502, 503)))),
                    clock, random);
            UpperLayer.enter(serverErrorsAndFailures);
            CallFacts call = read(fiveHundreds, "GET", headers());
            CallFacts underBuiltIn = read(engine, "GET", headers());
            UpperLayer.exit();
            assertFalse(fiveHundreds.plan(call).mayRetry());
            assertNull(fiveHundreds.plan(call).markerHeader(), "unmarked, as a layer nothing is known of");
            assertTrue(engine.plan(underBuiltIn).mayRetry(), "the built-in policy retries 408 and 429 too");
        }

        @Test
        void anOutcomeAnyLayerAroundTheCallMayRetryIsLeftToTheLayers() {
            UpperLayer.enter(LayerRetries.unknown("spring-retry"));
            CallFacts insideUnknown = inside(feign, "GET");
            UpperLayer.exit();
            assertEquals("feign", insideUnknown.upperLayer(), "the innermost loop names the call's layer");
            assertFalse(engine.plan(insideUnknown).mayRetry(), "Spring Retry may retry whatever comes out of Feign's loop");
            RetryDecision decision = decide(insideUnknown, Outcome.status(503, null));
            assertEquals(GiveUpReason.UPPER_LAYER, decision.reason());
            assertTrue(RetryLog.line(insideUnknown, Mode.ENFORCE, Outcome.status(503, null), decision)
                    .endsWith("reason=upper-layer layer=spring-retry"), "the layer that takes it");

            UpperLayer.enter(serverErrorsOnly);
            CallFacts insideKnown = inside(feign, "GET");
            UpperLayer.exit();
            assertTrue(engine.plan(insideKnown).mayRetry());
            RetryDecision serverError = decide(insideKnown, Outcome.status(503, null));
            assertTrue(RetryLog.line(insideKnown, Mode.ENFORCE, Outcome.status(503, null), serverError)
                    .endsWith("reason=upper-layer layer=google-http-client"));
            RetryDecision reset = decide(insideKnown, Outcome.failure(FailureKind.RESET));
            assertTrue(RetryLog.line(insideKnown, Mode.ENFORCE, Outcome.failure(FailureKind.RESET), reset)
                    .endsWith("reason=upper-layer layer=feign"));
            assertEquals(Action.RETRY, decide(insideKnown, Outcome.status(429, null)).action(), "neither retries it");
            assertNull(UpperLayer.current());
        }

        @Test
        void whatIsNotKnownIsTheLayers() {
            LayerRetries unknown = LayerRetries.unknown("spring-retry");
            assertTrue(unknown.mayRetry(Outcome.status(429, null)));
            assertTrue(unknown.mayRetry(Outcome.failure(FailureKind.CONNECT)));
            LayerRetries failuresUnknown = LayerRetries.of("x", Failures.UNKNOWN, Statuses.NONE);
            assertTrue(failuresUnknown.mayRetry(Outcome.failure(FailureKind.RESET)));
            assertFalse(failuresUnknown.mayRetry(Outcome.status(503, "1")));
            assertTrue(LayerRetries.of("x", Failures.NOT_RETRIED, Statuses.ALL).mayRetry(Outcome.status(408, null)));
            CallFacts call = inside(unknown, "GET");
            assertFalse(engine.plan(call).mayRetry());
            assertEquals(GiveUpReason.UPPER_LAYER, decide(call, Outcome.status(503, null)).reason());
        }

        @Test
        void observeSaysWhichOutcomesItWouldDefer() {
            RetryEngine observing = new RetryEngine(policy(Mode.OBSERVE, RetrySettings.builtIn()), clock, random);
            UpperLayer.enter(feign);
            CallFacts call = read(observing, "GET", headers());
            UpperLayer.exit();
            assertNull(observing.plan(call).markerHeader(), "observe changes no traffic");
            assertEquals(Action.WOULD_RETRY,
                    decisions.decide(observing, call, 1, Outcome.status(503, null), 0, 0).action());
            RetryDecision deferred = decisions.decide(observing, call, 1, Outcome.status(503, "0"), 0, 0);
            assertTrue(RetryLog.line(call, Mode.OBSERVE, Outcome.status(503, "0"), deferred)
                    .startsWith("retry-agent would defer client=okhttp"));
        }
    }
}
