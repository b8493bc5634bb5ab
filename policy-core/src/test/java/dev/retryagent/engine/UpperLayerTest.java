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
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.engine.RetryDecision.Action;
import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetrySettings;
import dev.retryagent.policy.UpperLayers;
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
            UpperLayer.enter(null);
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
            UpperLayer.enter(null);
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
            assertEquals(UpperLayer.AWS_SDK_V2, UpperLayer.of(headers("amz-sdk-request", "attempt=1; max=3")));
            assertEquals(UpperLayer.AWS_SDK_V2, UpperLayer.of(headers("Amz-Sdk-Request", "attempt=1; MAX=4")));
            assertNull(UpperLayer.of(headers("amz-sdk-request", "attempt=1; max=1")), "retries off: no layer");
            assertNull(UpperLayer.of(headers("amz-sdk-request", "attempt=1")), "no max: nothing known");
        }

        @Test
        void theRetryHeaderOfV1AloneSaysNothingOfTheAttemptsToCome() {
            assertNull(UpperLayer.of(headers("amz-sdk-retry", "0/0/500")));
            assertNull(UpperLayer.of(headers("Accept", "*/*")));
        }

        @Test
        void awsSdkV1WritesTheAttemptHeaderTooAndItsMaxDecides() {
            assertEquals(UpperLayer.AWS_SDK_V1, UpperLayer.of(headers("amz-sdk-retry", "0/0/500",
                    "amz-sdk-request", "attempt=1;max=4")));
            assertNull(UpperLayer.of(headers("amz-sdk-retry", "0/0/500", "amz-sdk-request", "attempt=1;max=1")),
                    "NO_RETRY_POLICY: one attempt, no layer");
        }

        @Test
        void aHookedLoopDecidesBeforeTheHeaders() {
            UpperLayer.enter(UpperLayer.RETRIES_OFF);
            assertNull(UpperLayer.of(headers("amz-sdk-retry", "0/0/500", "amz-sdk-request", "attempt=1;max=4")),
                    "the loop said its retries are off");
            UpperLayer.exit();
            UpperLayer.enter("spring-retry");
            assertEquals("spring-retry", UpperLayer.of(headers("amz-sdk-request", "attempt=1; max=1")));
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
            assertFalse(engine.mayRetry(call), "the layer above retries it");
            assertFalse(engine.mayRetry(call, FailureKind.RESET), "nor does a client's hidden resend");
            assertNull(engine.markerHeaderFor(call), "unmarked: the layer below may still retry it");

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
                    RetryLog.line(call, engine.modeFor(call), Outcome.status(503, null), decision));
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
            assertTrue(engine.mayRetry(call));
            assertEquals(Action.RETRY, decisions.decide(engine, call, 1, Outcome.status(503, null), 0, 0).action());
            assertEquals(0, engine.counters(CLIENT, "https", HOST, 443).upperLayerCalls());
        }

        @Test
        void theAwsAttemptHeaderAloneIsEnough() {
            CallFacts call = read(engine, "GET", headers("amz-sdk-request", "attempt=1; max=4"));
            assertEquals(UpperLayer.AWS_SDK_V2, call.upperLayer());
            assertFalse(engine.mayRetry(call));
        }

        @Test
        void aLoopWithItsRetriesOffIsNoLayer() {
            UpperLayer.enter(UpperLayer.RETRIES_OFF);
            CallFacts call = read(engine, "GET", headers("amz-sdk-request", "attempt=1; max=3"));
            UpperLayer.exit();
            assertNull(call.upperLayer());
            assertTrue(engine.mayRetry(call));
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
            assertTrue(engine.mayRetry(call));
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
            assertNull(engine.markerHeaderFor(call));
            RetryDecision decision = decisions.decide(engine, call, 1, Outcome.status(503, null), 0, 0);
            assertEquals(GiveUpReason.UPPER_LAYER, decision.reason());
            assertEquals(0, engine.counters(CLIENT, "https", HOST, 443).wouldRetry());
            assertTrue(RetryLog.line(call, engine.modeFor(call), Outcome.status(503, null), decision)
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
}
