package dev.retryagent.engine;

import static dev.retryagent.engine.TestPolicies.CLIENT;
import static dev.retryagent.engine.TestPolicies.HOST;
import static dev.retryagent.engine.TestPolicies.call;
import static dev.retryagent.engine.TestPolicies.defaults;
import static dev.retryagent.engine.TestPolicies.facts;
import static dev.retryagent.engine.TestPolicies.get;
import static dev.retryagent.engine.TestPolicies.host;
import static dev.retryagent.engine.TestPolicies.match;
import static dev.retryagent.engine.TestPolicies.noJitter;
import static dev.retryagent.engine.TestPolicies.policy;
import static dev.retryagent.engine.TestPolicies.rule;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.policy.BudgetPolicy;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetrySettings;
import java.io.IOException;
import java.util.Arrays;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * A client that follows a redirect inside one attempt: the loops decide each response under the rule of the address
 * it came from, count the call there once, and still count the call at the destination it was addressed to.
 */
class RedirectDecisionTest {
    private static final String OTHER = "b.internal";

    private final FakeClock clock = new FakeClock();
    private final FakeRandom random = new FakeRandom(0.5);
    private final FakeSleeper sleeper = new FakeSleeper(clock);

    /** Defaults allow 2 attempts; the rule for {@link #OTHER} allows 4. */
    private static Policy policyWithRuleForOther(UnaryOperator<RetrySettings.Builder> other) {
        RetrySettings d = defaults(b -> noJitter(b).maxAttempts(2));
        return policy(d, rule(0, host(OTHER), d, b -> other.apply(b.maxAttempts(4))));
    }

    private RetryEngine engine(Policy policy) {
        return new RetryEngine(policy, clock, random);
    }

    private RetryEngine engineWithRuleForOther(UnaryOperator<RetrySettings.Builder> other) {
        return engine(policyWithRuleForOther(other));
    }

    private FakeResponse execute(RetryEngine engine, CallFacts call, RedirectingExchange exchange) throws IOException {
        return new RetryLoop(engine, clock, sleeper).execute(call, exchange);
    }

    /** A fake exchange whose every response came, after a redirect, from {@code scheme://host:port/path}. */
    private static final class RedirectingExchange extends RetryLoopTest.FakeExchange {
        final String host;
        final String path;

        RedirectingExchange(Script script, String host, String path) {
            super(script);
            this.host = host;
            this.path = path;
        }

        @Override
        public CallFacts decidedUnder(CallFacts call, FakeResponse response) {
            return call.redirectedTo("https", host, 443, path);
        }
    }

    @Test
    void theRetryFollowsTheRuleOfTheHostTheRequestWentToAndIsCountedThere() throws IOException {
        RetryEngine engine = engineWithRuleForOther(b -> b);
        RedirectingExchange exchange = new RedirectingExchange(
                Script.of().status(503).status(503).status(503).status(200), OTHER, "/items");

        FakeResponse response = execute(engine, get(), exchange);

        assertEquals(200, response.status);
        assertEquals(Arrays.asList(1, 2, 3, 4), exchange.attempts); // the other host's 4, not the defaults' 2
        RetryCounters other = engine.counters(CLIENT, "https", OTHER, 443);
        assertEquals(1, other.calls());
        assertEquals(3, other.retries());
        assertEquals(1, other.successesAfterRetry());
        RetryCounters origin = engine.counters(CLIENT, "https", HOST, 443);
        assertEquals(1, origin.calls());
        assertEquals(0, origin.retries());
        assertEquals(1, origin.attempts());
    }

    @Test
    void theRetriesSpendTheBudgetOfTheHostTheRequestWentTo() throws IOException {
        RetryEngine engine = engineWithRuleForOther(b -> b.budget(new BudgetPolicy(0.0, 0)));
        RedirectingExchange exchange = new RedirectingExchange(Script.of().status(503).status(200), OTHER, "/");

        FakeResponse response = execute(engine, get(), exchange);

        assertEquals(503, response.status);
        assertEquals(Arrays.asList(1), exchange.attempts);
        assertEquals(1, engine.counters(CLIENT, "https", OTHER, 443).giveUps(GiveUpReason.BUDGET));
        assertEquals(0, engine.counters(CLIENT, "https", HOST, 443).giveUps(GiveUpReason.BUDGET));
    }

    @Test
    void aRuleInModeOffAtTheHostTheRequestWentToStopsTheRetries() throws IOException {
        RetryEngine engine = engineWithRuleForOther(b -> b.mode(Mode.OFF));
        RedirectingExchange exchange = new RedirectingExchange(Script.of().status(503).status(200), OTHER, "/");

        FakeResponse response = execute(engine, get(), exchange);

        assertEquals(503, response.status);
        assertEquals(Arrays.asList(1), exchange.attempts);
        assertNull(engine.counters(CLIENT, "https", OTHER, 443));
        assertEquals(1, engine.counters(CLIENT, "https", HOST, 443).calls());
    }

    @Test
    void aRuleInModeObserveAtTheHostTheRequestWentToCountsAWouldRetryThere() throws IOException {
        RetryEngine engine = engineWithRuleForOther(b -> b.mode(Mode.OBSERVE));
        RedirectingExchange exchange = new RedirectingExchange(Script.of().status(503).status(200), OTHER, "/");

        FakeResponse response = execute(engine, get(), exchange);

        assertEquals(503, response.status);
        assertEquals(Arrays.asList(1), exchange.attempts);
        assertEquals(1, engine.counters(CLIENT, "https", OTHER, 443).wouldRetry());
        assertEquals(0, engine.counters(CLIENT, "https", HOST, 443).wouldRetry());
    }

    @Test
    void aPostRedirectedToAHostWhoseRuleRetriesIsStillNotIdempotent() throws IOException {
        RetryEngine engine = engineWithRuleForOther(b -> b);
        RedirectingExchange exchange = new RedirectingExchange(Script.of().status(503).status(200), OTHER, "/");

        FakeResponse response = execute(engine, call("POST"), exchange);

        assertEquals(503, response.status);
        assertEquals(Arrays.asList(1), exchange.attempts);
        assertEquals(1, engine.counters(CLIENT, "https", OTHER, 443).giveUps(GiveUpReason.NOT_IDEMPOTENT));
    }

    @Test
    void aRedirectOnTheSameHostTakesThePathsRuleAndCountsTheCallOnce() throws IOException {
        RetrySettings d = defaults(b -> noJitter(b).maxAttempts(2));
        Policy p = policy(d, rule(0, match(HOST, "/moved/**"), d, b -> b.maxAttempts(3)));
        RetryEngine engine = engine(p);
        RedirectingExchange exchange = new RedirectingExchange(
                Script.of().status(503).status(503).status(200), HOST, "/moved/items");

        execute(engine, get(), exchange);

        assertEquals(Arrays.asList(1, 2, 3), exchange.attempts);
        RetryCounters c = engine.counters(CLIENT, "https", HOST, 443);
        assertEquals(1, c.calls());
        assertEquals(2, c.retries());
    }

    @Test
    void theAsyncLoopDecidesUnderTheSameFacts() {
        RetryEngine engine = engineWithRuleForOther(b -> b);
        FakeScheduler scheduler = new FakeScheduler(clock);
        AsyncRetryLoop loop = new AsyncRetryLoop(engine, clock, scheduler);
        AsyncRetryLoopTest.FakeAsyncExchange exchange = new AsyncRetryLoopTest.FakeAsyncExchange(
                Script.of().status(503).status(503).status(503).status(200), true) {
            @Override
            public CallFacts decidedUnder(CallFacts call, FakeResponse response) {
                return call.redirectedTo("https", OTHER, 443, "/");
            }
        };
        AsyncRetryLoopTest.Caller caller = new AsyncRetryLoopTest.Caller();
        loop.execute(get(), exchange, caller);
        scheduler.runAll();

        assertEquals(200, ((FakeResponse) caller.only()).status);
        assertEquals(3, engine.counters(CLIENT, "https", OTHER, 443).retries());
        assertEquals(1, engine.counters(CLIENT, "https", OTHER, 443).calls());
        assertEquals(1, engine.counters(CLIENT, "https", HOST, 443).calls());
    }

    @Test
    void redirectedFactsKeepTheRequestAndTakeTheAddress() {
        Policy p = policyWithRuleForOther(b -> b);
        CallFacts original = facts(CLIENT, "PUT", HOST, "/items", true, false, true).withPolicy(p);

        assertSame(original, original.redirectedTo("HTTPS", "API.internal", 443, "/items"));
        CallFacts moved = original.redirectedTo("http", OTHER, 8080, "");
        assertNotSame(original, moved);
        assertEquals("http", moved.scheme());
        assertEquals(OTHER, moved.host());
        assertEquals(8080, moved.port());
        assertEquals("/", moved.path());
        assertEquals("PUT", moved.method());
        assertEquals(CLIENT, moved.client());
        assertTrue(moved.idempotencyKeyPresent());
        assertFalse(moved.bodyReplayable());
        assertTrue(moved.markerPresent());
        assertSame(p, moved.policy());
        assertFalse(moved.sameDestination(original));
        assertTrue(original.redirectedTo("https", HOST, 443, "/other").sameDestination(original));
    }
}
