package dev.retryagent.engine;

import dev.retryagent.policy.BackoffPolicy;
import dev.retryagent.policy.BuiltInRetries;
import dev.retryagent.policy.Jitter;
import dev.retryagent.policy.Match;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetrySettings;
import dev.retryagent.policy.Rule;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.function.UnaryOperator;

/** Policies and call facts for engine tests, built in code (the YAML loader is tested on its own). */
final class TestPolicies {
    static final String CLIENT = "okhttp";
    static final String HOST = "api.internal";

    private TestPolicies() {
    }

    /** The built-in defaults, changed by {@code change}. */
    static RetrySettings defaults(UnaryOperator<RetrySettings.Builder> change) {
        return change.apply(RetrySettings.builtIn().toBuilder()).build();
    }

    /** Defaults with a jitter-free backoff, so that every wait is exact: base 100ms, cap 2s, x2. */
    static RetrySettings.Builder noJitter(RetrySettings.Builder b) {
        return b.backoff(new BackoffPolicy(100, 2000, 2.0, Jitter.NONE));
    }

    /** The built-in defaults without jitter: waits of 100, 200, 400 ... ms. */
    static Policy exact() {
        return policy(defaults(TestPolicies::noJitter));
    }

    /** As {@link #exact()}, with {@code maxAttempts} attempts. */
    static Policy exact(int maxAttempts) {
        return policy(defaults(b -> noJitter(b).maxAttempts(maxAttempts)));
    }

    static Policy policy(Mode mode, RetrySettings defaults, Rule... rules) {
        return new Policy("(test)", 1, mode, BuiltInRetries.REPLACE, Policy.DEFAULT_MARKER_HEADER, defaults,
                Arrays.asList(rules));
    }

    static Policy policy(RetrySettings defaults, Rule... rules) {
        return policy(Mode.ENFORCE, defaults, rules);
    }

    static Policy withMarker(Policy p, String markerHeader) {
        return new Policy(p.source(), p.version(), p.mode(), p.builtInRetries(), markerHeader, p.defaults(),
                p.rules());
    }

    /** Rule number {@code index} (from 0): {@code match}, with settings derived from {@code defaults}. */
    static Rule rule(int index, Match match, RetrySettings defaults, UnaryOperator<RetrySettings.Builder> change) {
        return new Rule(index, index + 1, match, change.apply(defaults.toBuilder()).build());
    }

    static Match host(String hostGlob) {
        return new Match(hostGlob, -1, null, Collections.<String>emptySet(), null);
    }

    static Match match(String hostGlob, String pathGlob, String... methods) {
        return new Match(hostGlob, -1, pathGlob, new LinkedHashSet<>(Arrays.asList(methods)), null);
    }

    static CallFacts get() {
        return call("GET");
    }

    static CallFacts call(String method) {
        return facts(CLIENT, method, HOST, "/items", false, true, false);
    }

    static CallFacts facts(String client, String method, String host, String path, boolean idempotencyKey,
                           boolean replayable, boolean markerPresent) {
        return new CallFacts(client, method, "https", host, 443, path, idempotencyKey, replayable, markerPresent);
    }

    static CallFacts at(String host, String path) {
        return facts(CLIENT, "GET", host, path, false, true, false);
    }

    static List<Rule> rules(Rule... rules) {
        return new ArrayList<>(Arrays.asList(rules));
    }
}
