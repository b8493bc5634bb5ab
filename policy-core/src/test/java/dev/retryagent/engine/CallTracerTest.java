package dev.retryagent.engine;

import static dev.retryagent.engine.TestPolicies.defaults;
import static dev.retryagent.engine.TestPolicies.get;
import static dev.retryagent.engine.TestPolicies.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.retryagent.engine.AsyncRetryLoopTest.Caller;
import dev.retryagent.engine.AsyncRetryLoopTest.FakeAsyncExchange;
import dev.retryagent.engine.RetryLoopTest.FakeExchange;
import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Policy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the loops tell a {@link CallTracer}: one trace per call this layer may retry, each attempt sent inside its
 * scope, and each retry with its wait and cause before the wait; nothing for calls left alone or nested, and a
 * tracer that fails changes nothing of the call.
 */
class CallTracerTest {
    private final FakeClock clock = new FakeClock();
    private final FakeSleeper sleeper = new FakeSleeper(clock);
    private final FakeScheduler scheduler = new FakeScheduler(clock);
    private final RecordingTracer tracer = new RecordingTracer();

    private RetryEngine engine() {
        Policy exact = policy(defaults(TestPolicies::noJitter));
        return new RetryEngine(exact, clock, new FakeRandom(0.5));
    }

    /** Records what the loops told it, and what was sent while an attempt's scope was open. */
    static final class RecordingTracer implements CallTracer {
        final List<String> events = Collections.synchronizedList(new ArrayList<String>());
        int calls;
        RuntimeException failure;

        @Override
        public CallTrace callStarting() {
            if (failure != null) {
                throw failure;
            }
            calls++;
            final int call = calls;
            return new CallTrace() {
                @Override
                public Scope attemptStarting(final int attempt) {
                    events.add("open " + call + "." + attempt);
                    return new Scope() {
                        @Override
                        public void close() {
                            events.add("close " + call + "." + attempt);
                        }
                    };
                }

                @Override
                public void retrying(int nextAttempt, long waitMillis, String cause) {
                    events.add("retrying " + call + "." + nextAttempt + " in " + waitMillis + " after " + cause);
                }
            };
        }
    }

    @Test
    void eachAttemptOfARetriedCallIsSentInsideItsScopeAndEachRetryIsToldItsWaitAndCause() throws IOException {
        FakeExchange exchange = new FakeExchange(Script.of().status(503).fail(FailureKind.RESET).status(200));
        exchange.duringSend = () -> tracer.events.add("send");
        FakeResponse response = new RetryLoop(engine(), clock, sleeper, tracer).execute(get(), exchange);

        assertEquals(200, response.status);
        assertEquals(1, tracer.calls);
        assertEquals(Arrays.asList("open 1.1", "send", "close 1.1", "retrying 1.2 in 100 after status:503",
                "open 1.2", "send", "close 1.2", "retrying 1.3 in 200 after failure:reset",
                "open 1.3", "send", "close 1.3"), tracer.events);
    }

    @Test
    void anAsyncAttemptIsHandedToTheClientInsideItsScopeOnWhicheverThreadSendsIt() {
        FakeAsyncExchange exchange = new FakeAsyncExchange(Script.of().status(503).status(200), false);
        Caller caller = new Caller();
        new AsyncRetryLoop(engine(), clock, scheduler, tracer).execute(get(), exchange, caller);
        exchange.completeNext();
        scheduler.runNext();
        exchange.completeNext();

        assertSame(exchange.sent.get(1), caller.only());
        assertEquals(1, tracer.calls);
        assertEquals(Arrays.asList("open 1.1", "close 1.1", "retrying 1.2 in 100 after status:503",
                "open 1.2", "close 1.2"), tracer.events);
    }

    @Test
    void aCallThisLayerWillNotRetryIsNotTraced() throws IOException {
        FakeExchange exchange = new FakeExchange(Script.of().status(503));
        FakeResponse response = new RetryLoop(engine(), clock, sleeper, tracer)
                .execute(TestPolicies.call("POST"), exchange);
        assertEquals(503, response.status);
        assertEquals(0, tracer.calls);
        assertEquals(Collections.emptyList(), tracer.events);
    }

    @Test
    void aCallMadeInsideAnAttemptIsNotTracedAgain() throws IOException {
        RetryLoop loop = new RetryLoop(engine(), clock, sleeper, tracer);
        FakeExchange inner = new FakeExchange(Script.of().status(503));
        FakeExchange outer = new FakeExchange(Script.of().status(200));
        outer.duringSend = () -> {
            try {
                loop.execute(get(), inner);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        };
        loop.execute(get(), outer);
        assertEquals(Arrays.asList(1), inner.attempts, "the nested call is sent once");
        assertEquals(1, tracer.calls);
        assertEquals(Arrays.asList("open 1.1", "close 1.1"), tracer.events);
    }

    @Test
    void aTracerThatFailsChangesNothingOfTheCall() throws IOException {
        tracer.failure = new IllegalStateException("tracer broke");
        FakeExchange exchange = new FakeExchange(Script.of().status(503).status(200));
        FakeResponse response = new RetryLoop(engine(), clock, sleeper, tracer).execute(get(), exchange);
        assertEquals(200, response.status);
        assertEquals(Arrays.asList(1, 2), exchange.attempts);
        assertEquals(Collections.emptyList(), tracer.events);
    }
}
