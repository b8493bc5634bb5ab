package dev.retryagent.engine;

import dev.retryagent.policy.MethodSet;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetrySettings;
import dev.retryagent.policy.Rule;
import java.util.Collections;
import java.util.List;

/**
 * What a policy says for the calls that one of its rules (or its defaults) covers, worked out once per
 * policy instead of once per call: the settings, the effective mode, the marker header and the backoff.
 * Immutable but for the backoff and the plans, which are made on first use and then only read; safe to share and
 * to publish through a data race (every field a reader needs is final, and so is every field of a plan).
 */
final class ResolvedRule {
    final Policies owner;
    final RetrySettings settings;
    final Mode mode;
    /** The marker header to send, or null: none configured, or the mode is not enforce. */
    final String marker;
    /** The plans of this rule's calls, by shape ({@link CallPlan#of}), made on first use. */
    final CallPlan[] plans = CallPlan.shapes();
    private volatile Backoff backoff;

    private ResolvedRule(Policies owner, Policy policy, RetrySettings settings) {
        this.owner = owner;
        this.settings = settings;
        this.mode = policy.effectiveMode(settings);
        this.marker = mode == Mode.ENFORCE ? policy.markerHeader() : null;
    }

    /** Whether a call under this rule may have more than one attempt: it is not off and allows more than one. */
    private boolean retries() {
        return mode != Mode.OFF && settings.maxAttempts() > 1;
    }

    Backoff backoff() {
        Backoff b = backoff;
        if (b == null) {
            // Racing threads may each build one; they are equal and immutable, so either will do.
            b = Backoff.of(settings.backoff());
            backoff = b;
        }
        return b;
    }

    /**
     * A policy with a {@link ResolvedRule} for its defaults and for each rule. Rule matching itself stays
     * {@link Policy#ruleFor}'s; this only maps the rule found to its resolution.
     */
    static final class Policies {
        final Policy policy;
        private final Rule[] rules;
        private final ResolvedRule[] byRule;
        private final ResolvedRule defaults;
        /** The methods that the defaults or a rule, not off and with more than one attempt, count as idempotent. */
        private final MethodSet methodsRetried;
        /** Whether the defaults or a rule is not off and allows more than one attempt. */
        private final boolean anyRetried;
        /** Whether the defaults or a rule is not off, allows more than one attempt and retries unsent requests. */
        private final boolean anyRetriesUnsent;

        Policies(Policy policy) {
            this.policy = policy;
            List<Rule> list = policy.rules();
            this.rules = list.toArray(new Rule[0]);
            this.byRule = new ResolvedRule[rules.length];
            for (int i = 0; i < rules.length; i++) {
                byRule[i] = new ResolvedRule(this, policy, rules[i].settings());
            }
            this.defaults = new ResolvedRule(this, policy, policy.defaults());
            MethodSet methods = new MethodSet(Collections.<String>emptySet());
            boolean any = false;
            boolean unsent = false;
            for (ResolvedRule r : byRule) {
                if (r.retries()) {
                    methods = new MethodSet(methods, r.settings.idempotentMethodSet());
                    any = true;
                    unsent |= r.settings.retriesUnsentRequests();
                }
            }
            if (defaults.retries()) {
                methods = new MethodSet(methods, defaults.settings.idempotentMethodSet());
                any = true;
                unsent |= defaults.settings.retriesUnsentRequests();
            }
            this.methodsRetried = methods;
            this.anyRetried = any;
            this.anyRetriesUnsent = unsent;
        }

        /**
         * Whether some rule of this policy, or its defaults, could retry a request with {@code method}, keyed or not,
         * that nothing else forbids: a client's redirect may have the request decided under any of them. The method
         * is matched as {@link RetrySettings#isIdempotentMethod} matches it; any method may be retried where a request
         * that never left is.
         */
        boolean mayRetrySomewhere(String method, boolean keyed) {
            return keyed ? anyRetried : anyRetriesUnsent || methodsRetried.contains(method);
        }

        /** The resolution of the first rule that matches the call, or of the defaults. */
        ResolvedRule resolve(String client, String method, String host, int port, String path) {
            Rule rule = policy.ruleFor(client, method, host, port, path);
            if (rule == null) {
                return defaults;
            }
            for (int i = 0; i < rules.length; i++) {
                if (rules[i] == rule) {
                    return byRule[i];
                }
            }
            // Not one of the policy's listed rules (cannot happen with Policy as it is): resolve it anew.
            return new ResolvedRule(this, policy, rule.settings());
        }
    }

    /**
     * The last rule lookup made for a destination, so that the next call with the same client, method,
     * host, port and path (the only inputs of rule matching) skips the lookup. Immutable.
     */
    static final class Memo {
        final ResolvedRule resolution;
        /** Where it was made, with {@link Destinations#removals()} then: the destination is current while equal. */
        final Destination destination;
        final int removals;
        /** {@code resolution.owner}, here so that checking it is one load less on every call. */
        private final Policies owner;
        private final String client;
        private final String method;
        private final String host;
        private final int port;
        private final String path;

        Memo(ResolvedRule resolution, String client, String method, String host, int port, String path,
             Destination destination, int removals) {
            this.resolution = resolution;
            this.destination = destination;
            this.removals = removals;
            this.owner = resolution.owner;
            this.client = client;
            this.method = method;
            this.host = host;
            this.port = port;
            this.path = path;
        }

        boolean isFor(Policies policies, String client, String method, String host, int port, String path) {
            return owner == policies
                    && this.port == port
                    && same(this.path, path)
                    && same(this.host, host)
                    && same(this.method, method)
                    && same(this.client, client);
        }

        /** Whether {@link #destination} is that of {@code scheme://host:port}, the host spelled as here. */
        boolean isAt(String scheme, String host, int port) {
            return this.port == port && same(this.host, host) && destination.is(scheme, port);
        }

        private static boolean same(String a, String b) {
            return a == b || a != null && a.equals(b);
        }
    }
}
