package dev.retryagent.engine;

import static dev.retryagent.engine.TestPolicies.HOST;
import static dev.retryagent.engine.TestPolicies.defaults;
import static dev.retryagent.engine.TestPolicies.host;
import static dev.retryagent.engine.TestPolicies.policy;
import static dev.retryagent.engine.TestPolicies.rule;
import static dev.retryagent.engine.TestPolicies.withMarker;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetrySettings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The one way adapters build facts: the engine resolves the rule, the rule names the headers to read. */
class CallFactsBuilderTest {
    private final RetrySettings defaults = RetrySettings.builtIn();
    private final FakeClock clock = new FakeClock();
    private final Decisions decisions = new Decisions(clock);

    private RetryEngine engine(Policy policy) {
        return new RetryEngine(policy, clock, () -> 0.5);
    }

    /** A request's headers, names compared case-insensitively; records what it was asked. */
    private static final class Headers implements HeaderLookup {
        final Set<String> names = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        final List<String> asked = new ArrayList<>();
        final Set<String> setByTheAgent = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);

        Headers(String... names) {
            this.names.addAll(Arrays.asList(names));
        }

        @Override
        public boolean has(String name) {
            asked.add(name.toLowerCase(Locale.ROOT));
            return names.contains(name);
        }

        @Override
        public boolean hasMarker(String name) {
            return has(name) && !setByTheAgent.contains(name);
        }
    }

    private static CallFacts.Builder post(String path) {
        return CallFacts.builder(TestPolicies.CLIENT, "post", "https", HOST, 443, path);
    }

    @Test
    void theAddressIsNormalisedAndTheBodyIsReplayableUnlessSaidOtherwise() {
        RetryEngine engine = engine(policy(defaults));
        CallFacts facts = post("").build(engine, new Headers());
        assertEquals("POST", facts.method());
        assertEquals("/", facts.path());
        assertEquals("https", facts.scheme());
        assertEquals(443, facts.port());
        assertTrue(facts.bodyReplayable());
        assertFalse(facts.idempotencyKeyPresent());
        assertFalse(facts.markerPresent());
        assertFalse(post("/x").bodyReplayable(false).build(engine, new Headers()).bodyReplayable());
    }

    @Test
    void theKeyHeadersAreTheMatchingRulesAndTheMarkerIsThePolicys() {
        Policy p = withMarker(policy(defaults, rule(0, host(HOST), defaults,
                b -> b.idempotencyKeyHeaders(Arrays.asList("X-Request-Id", "X-Op")))), "X-Try");
        RetryEngine engine = engine(p);

        Headers standardKey = new Headers("Idempotency-Key");
        assertFalse(post("/a").build(engine, standardKey).idempotencyKeyPresent(), "the rule replaced the defaults'");
        assertEquals(Arrays.asList("x-request-id", "x-op", "x-try"), standardKey.asked);

        CallFacts keyed = post("/a").build(engine, new Headers("x-op", "x-try"));
        assertTrue(keyed.idempotencyKeyPresent());
        assertTrue(keyed.markerPresent());
        assertSame(p, keyed.policy(), "the facts name the policy they were read under");

        CallFacts elsewhere = CallFacts.builder(TestPolicies.CLIENT, "POST", "https", "other.internal", 443, "/a")
                .build(engine, new Headers("Idempotency-Key"));
        assertTrue(elsewhere.idempotencyKeyPresent(), "no rule matches: the defaults' key header");
    }

    @Test
    void aMarkerTheAgentSetItselfIsNotTheApplications() {
        RetryEngine engine = engine(policy(defaults));
        Headers headers = new Headers("Retry-Attempt");
        headers.setByTheAgent.add("retry-attempt");
        assertFalse(post("/a").build(engine, headers).markerPresent());
    }

    @Test
    void noMarkerHeaderIsAskedForWhenThePolicyHasNone() {
        RetryEngine engine = engine(withMarker(policy(defaults), null));
        Headers headers = new Headers("Retry-Attempt");
        assertFalse(post("/a").build(engine, headers).markerPresent());
        assertEquals(Arrays.asList("idempotency-key"), headers.asked);
    }

    @Test
    void theRuleFoundWhileReadingTheHeadersIsTheOneEveryLaterQuestionIsAnsweredUnder() {
        Policy first = policy(defaults, rule(0, host(HOST), defaults,
                b -> b.maxAttempts(2).idempotencyKeyHeaders(Arrays.asList("X-Op"))));
        RetryEngine engine = engine(first);
        CallFacts read = post("/a").build(engine, new Headers("X-Op"));
        engine.setPolicy(policy(Mode.OFF, defaults(b -> b.maxAttempts(5))));

        assertEquals(Mode.ENFORCE, engine.plan(read).mode());
        assertTrue(engine.plan(read).mayRetry(), "a keyed POST under the rule it was read under");
        assertEquals(2, decisions.decide(engine, read, 1, Outcome.status(503, null), 0, 0).maxAttempts());
        CallFacts nested = read.insideAttempt(1);
        assertEquals(Mode.ENFORCE, engine.plan(nested).mode(), "a copy for a nested call keeps the rule");

        CallFacts after = post("/a").build(engine, new Headers("X-Op"));
        assertEquals(Mode.OFF, engine.plan(after).mode());
        assertFalse(after.idempotencyKeyPresent(), "the new policy's key header is the default one");
    }
}
