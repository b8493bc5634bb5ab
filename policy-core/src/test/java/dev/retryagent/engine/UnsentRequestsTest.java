package dev.retryagent.engine;

import static dev.retryagent.engine.TestPolicies.CLIENT;
import static dev.retryagent.engine.TestPolicies.HOST;
import static dev.retryagent.engine.TestPolicies.call;
import static dev.retryagent.engine.TestPolicies.defaults;
import static dev.retryagent.engine.TestPolicies.facts;
import static dev.retryagent.engine.TestPolicies.noJitter;
import static dev.retryagent.engine.TestPolicies.policy;
import static dev.retryagent.engine.TestPolicies.withMarker;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetrySettings;
import java.io.IOException;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.logging.Handler;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A request that never left (a failure before any byte of it reached a server) is retried whatever its method, under
 * {@code retryUnsent} (on by default), within the rule's attempts, deadline and budget; a failure after which a
 * server may have read the request is not, for a method that is not idempotent.
 */
class UnsentRequestsTest {
    private final FakeClock clock = new FakeClock();
    private final FakeSleeper sleeper = new FakeSleeper(clock);
    private final List<String> lines = new ArrayList<>();
    private final Handler capture = LogCapture.capture(Level.INFO, r -> lines.add(r.getMessage()));

    @AfterEach
    void stopCapture() {
        RetryLog.logger().removeHandler(capture);
    }

    private RetryEngine engine(UnaryOperator<RetrySettings.Builder> change) {
        return engine(policy(defaults(b -> change.apply(noJitter(b)))));
    }

    private RetryEngine engine(Policy policy) {
        return new RetryEngine(policy, clock, new FakeRandom(0.5));
    }

    private FakeResponse post(RetryEngine engine, RetryLoopTest.FakeExchange exchange) throws IOException {
        return new RetryLoop(engine, clock, sleeper).execute(call("POST"), exchange);
    }

    private static RetryCounters counters(RetryEngine engine) {
        return engine.counters(CLIENT, "https", HOST, 443);
    }

    @Test
    void aPostWithoutKeyWhoseConnectionWasRefusedIsRetriedAndCounted() throws IOException {
        RetryEngine engine = engine(b -> b);
        RetryLoopTest.FakeExchange exchange = new RetryLoopTest.FakeExchange(
                Script.of().fail(FailureKind.CONNECT).fail(FailureKind.CONNECT).status(200));

        assertEquals(200, post(engine, exchange).status);

        assertEquals(Arrays.asList(1, 2, 3), exchange.attempts);
        assertEquals(Arrays.asList(100L, 200L), sleeper.sleeps(), "the rule's backoff");
        assertEquals(2, counters(engine).retries());
        assertEquals(2, counters(engine).unsentRetries());
        assertTrue(lines.stream().anyMatch(l -> l.contains(" attempt=2/3 cause=failure:connect sent=no wait=100ms")),
                lines.toString());
    }

    @Test
    void aPostWithoutKeyThatMayHaveReachedTheServerIsNotRetried() throws IOException {
        RetryEngine engine = engine(b -> b);
        RetryLoopTest.FakeExchange exchange = new RetryLoopTest.FakeExchange(
                Script.of().fail(FailureKind.RESET).status(200));

        assertThrows(IOException.class, () -> post(engine, exchange));

        assertEquals(Arrays.asList(1), exchange.attempts);
        assertEquals(1, counters(engine).giveUps(GiveUpReason.NOT_IDEMPOTENT));
        assertTrue(lines.stream().anyMatch(l -> l.contains("cause=failure:reset reason=not-idempotent")),
                lines.toString());
    }

    @Test
    void aResetTheClientKnowsCameBeforeTheRequestLeftIsRetried() throws IOException {
        RetryEngine engine = engine(b -> b);
        // A refused HTTP/2 stream, as an adapter that knows its client's exceptions says so.
        RetryLoopTest.FakeExchange exchange = new RetryLoopTest.FakeExchange(
                Script.of().fail(FailureKind.RESET).status(200)) {
            @Override
            public boolean unsent(IOException failure, FailureKind kind) {
                return true;
            }
        };

        assertEquals(200, post(engine, exchange).status);
        assertEquals(1, counters(engine).unsentRetries());
    }

    @Test
    void retryUnsentOffLeavesAPostThatNeverLeftToTheCaller() throws IOException {
        RetryEngine engine = engine(b -> b.retryUnsent(false));
        RetryLoopTest.FakeExchange exchange = new RetryLoopTest.FakeExchange(
                Script.of().fail(FailureKind.CONNECT).status(200));

        assertThrows(ConnectException.class, () -> post(engine, exchange));

        assertEquals(1, counters(engine).giveUps(GiveUpReason.NOT_IDEMPOTENT));
        assertEquals(0, counters(engine).unsentRetries());
    }

    @Test
    void theRulesAttemptsBoundIt() throws IOException {
        RetryEngine engine = engine(b -> b.maxAttempts(2));
        RetryLoopTest.FakeExchange exchange = new RetryLoopTest.FakeExchange(
                Script.of().fail(FailureKind.CONNECT).fail(FailureKind.CONNECT).status(200));

        assertThrows(ConnectException.class, () -> post(engine, exchange));

        assertEquals(Arrays.asList(1, 2), exchange.attempts);
        assertEquals(1, counters(engine).giveUps(GiveUpReason.ATTEMPTS));
    }

    @Test
    void theDeadlineBoundsIt() throws IOException {
        RetryEngine engine = engine(b -> b.deadlineMillis(1_000));
        // A connect timeout that took the whole deadline: no retry after it.
        RetryLoopTest.FakeExchange exchange = new RetryLoopTest.FakeExchange(
                Script.of().fail(FailureKind.CONNECT).status(200)).taking(clock, 1_000);

        assertThrows(ConnectException.class, () -> post(engine, exchange));

        assertEquals(1, counters(engine).giveUps(GiveUpReason.DEADLINE));
    }

    @Test
    void aBodyThatCannotBeSentAgainIsSentOnce() throws IOException {
        RetryEngine engine = engine(b -> b);
        RetryLoopTest.FakeExchange exchange = new RetryLoopTest.FakeExchange(
                Script.of().fail(FailureKind.CONNECT).status(200));
        CallFacts streaming = facts(CLIENT, "POST", HOST, "/items", false, false, false);

        assertThrows(ConnectException.class, () -> new RetryLoop(engine, clock, sleeper).execute(streaming, exchange));

        assertEquals(1, counters(engine).giveUps(GiveUpReason.BODY_NOT_REPLAYABLE));
    }

    @Test
    void aPostWithoutKeyGoesOutUnmarkedOnEveryAttempt() throws IOException {
        RetryEngine engine = engine(withMarker(policy(defaults(TestPolicies::noJitter)), "Retry-Attempt"));
        RetryLoopTest.FakeExchange exchange = new RetryLoopTest.FakeExchange(
                Script.of().fail(FailureKind.CONNECT).status(200));

        assertEquals(200, post(engine, exchange).status);

        // Only a request no server has read is retried: a layer below never saw this one, and may retry it itself.
        assertEquals(Arrays.asList(null, null), exchange.markers);
        assertFalse(engine.plan(call("POST")).mayRetry());
        assertNull(engine.plan(call("POST")).markerHeader());
    }

    @Test
    void observeSaysItWouldRetry() throws IOException {
        RetryEngine engine = engine(policy(Mode.OBSERVE, defaults(TestPolicies::noJitter)));
        RetryLoopTest.FakeExchange exchange = new RetryLoopTest.FakeExchange(
                Script.of().fail(FailureKind.CONNECT).status(200));

        assertThrows(ConnectException.class, () -> post(engine, exchange));

        assertEquals(1, counters(engine).wouldRetry());
        assertTrue(lines.stream().anyMatch(l -> l.contains("would retry") && l.contains("cause=failure:connect sent=no")),
                lines.toString());
    }

    @Test
    void theAsyncLoopRetriesItToo() {
        RetryEngine engine = engine(b -> b);
        FakeScheduler scheduler = new FakeScheduler(clock);
        AsyncRetryLoop loop = new AsyncRetryLoop(engine, clock, scheduler);
        AsyncRetryLoopTest.Caller caller = new AsyncRetryLoopTest.Caller();
        AsyncRetryLoopTest.FakeAsyncExchange exchange = new AsyncRetryLoopTest.FakeAsyncExchange(
                Script.of().fail(FailureKind.CONNECT).status(200), true);

        loop.execute(call("POST"), exchange, caller);

        assertEquals(1, scheduler.runAll());
        assertEquals(200, ((FakeResponse) caller.only()).status);
        assertEquals(1, counters(engine).unsentRetries());
    }
}
