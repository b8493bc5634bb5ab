package dev.retryagent.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which call's attempt a thread is making, as a client's hooks inside an attempt ask it: always the innermost. */
class AttemptScopeTest {
    private final FakeClock clock = new FakeClock();
    private final List<String> seen = new ArrayList<>();

    private RetryLoop loop(Policy policy) {
        return new RetryLoop(new RetryEngine(policy, clock, new FakeRandom(0.5)), clock, new FakeSleeper(clock));
    }

    /** Notes the host of the call whose attempt this thread is making, or "none". */
    private void note() {
        CallFacts call = AttemptScope.currentCall();
        seen.add(call == null ? "none" : call.host());
        if (call != null) {
            assertSame(call, AttemptScope.currentCall());
            assertEquals(Mode.ENFORCE, AttemptScope.currentPlan().mode());
        } else {
            assertNull(AttemptScope.currentPlan());
        }
    }

    /** An exchange answering 200 whose attempts run {@code during}. */
    private static RetryLoopTest.FakeExchange answering200(Runnable during) {
        RetryLoopTest.FakeExchange exchange = new RetryLoopTest.FakeExchange(Script.of().status(200));
        exchange.duringSend = during;
        return exchange;
    }

    private static void execute(RetryLoop loop, CallFacts call, Runnable during) {
        try {
            loop.execute(call, answering200(during));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aCallInsideAnAttemptIsTheCurrentOneUntilItReturns() {
        RetryLoop loop = loop(TestPolicies.exact());
        note();
        execute(loop, TestPolicies.at("outer.example", "/a"), () -> {
            note();
            execute(loop, TestPolicies.at("inner.example", "/b"), this::note);
            note();
        });
        note();
        assertEquals(List.of("none", "outer.example", "inner.example", "outer.example", "none"), seen);
    }

    @Test
    void aSyncCallInsideAnAsyncAttemptRunHereIsTheCurrentOne() {
        RetryLoop loop = loop(TestPolicies.exact());
        CallFacts asyncCall = TestPolicies.at("async.example", "/a");
        CallPlan asyncPlan = loop.engine().plan(asyncCall);
        AttemptScope.RunningCall outer = AttemptScope.attemptOf(new AttemptScope.RunningCall() {
            @Override
            public CallFacts call() {
                return asyncCall;
            }

            @Override
            public CallPlan plan() {
                return asyncPlan;
            }
        });
        try {
            note();
            execute(loop, TestPolicies.at("sync.example", "/b"), this::note);
            note();
        } finally {
            AttemptScope.attemptOf(outer);
        }
        note();
        assertEquals(List.of("async.example", "sync.example", "async.example", "none"), seen);
    }

    @Test
    void aCallTheAgentLeavesAloneIsNoAttemptOfTheEnclosingCall() {
        Policy offForLegacy = TestPolicies.policy(TestPolicies.defaults(b -> b), TestPolicies.rule(0,
                TestPolicies.host("legacy.example"), TestPolicies.defaults(b -> b), b -> b.mode(Mode.OFF)));
        RetryLoop loop = loop(offForLegacy);
        execute(loop, TestPolicies.at("outer.example", "/a"), () -> {
            execute(loop, TestPolicies.at("legacy.example", "/b"), this::note);
            note();
        });
        assertEquals(List.of("none", "outer.example"), seen);
    }
}
