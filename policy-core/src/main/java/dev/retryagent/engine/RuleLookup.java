package dev.retryagent.engine;

import dev.retryagent.policy.Policy;

/**
 * The engine's rule lookup and policy reload: which rule of which policy a call runs under, and the destination its
 * decisions count at, found through the last lookup made for the call's destination (a service's calls mostly go to
 * a few endpoints) instead of the policy's rules each time. Thread-safe.
 */
final class RuleLookup {
    static final int MEMO_MISSES_BEFORE_REPLACING = 64;

    private final Destinations destinations;
    /** The policy with its rules' settings, modes, markers and backoffs worked out once. */
    private volatile ResolvedRule.Policies policies;
    /** The one before, for calls whose facts were read under it just before a reload. */
    private volatile ResolvedRule.Policies previous;
    /**
     * The memo a destination was last given ({@link #lastLookup}). Replaced only when a memo is made (once per
     * destination and policy, or after a run of misses there), never on a hit, so that calls to many endpoints do
     * not write it on every call.
     */
    private volatile ResolvedRule.Memo lastMemo;

    RuleLookup(Destinations destinations, Policy policy) {
        this.destinations = destinations;
        setPolicy(policy);
    }

    Policy policy() {
        ResolvedRule.Policies p = policies;
        return p == null ? null : p.policy;
    }

    /** {@link RetryEngine#setPolicy}. */
    synchronized void setPolicy(Policy policy) {
        ResolvedRule.Policies current = this.policies;
        if (current != null && current.policy == policy) {
            return;
        }
        this.previous = current;
        // A null policy is kept as null, so that the next question fails and the loops fail open.
        this.policies = policy == null ? null : new ResolvedRule.Policies(policy);
    }

    /** {@code call}'s plan, under the policy its facts were read under (or the current one). */
    CallPlan plan(CallFacts call) {
        return CallPlan.of(lookUp(policiesFor(call), call), call);
    }

    /**
     * The plan of {@code at}, the facts a client's redirect took an attempt of a call planned as {@code origin} to:
     * under the policy {@code at} names, or else the call's, so that the call sees one policy to its end.
     */
    CallPlan planAt(CallFacts at, CallPlan origin) {
        return CallPlan.of(lookUp(at.readUnder != null ? policiesFor(at) : origin.rule.owner, at), at);
    }

    /** {@code call}'s rule under {@code p}, through the last lookup at its destination when it is for this call. */
    private ResolvedRule lookUp(ResolvedRule.Policies p, CallFacts call) {
        int removals = destinations.removals();
        ResolvedRule.Memo last = lastLookup(p, removals, call.client(), call.method(), call.scheme(), call.host(),
                call.port(), call.path());
        if (last != null) {
            return last.resolution;
        }
        Destination d = destinations.find(call.scheme(), call.host(), call.port());
        return lookUp(p, d, removals, call.client(), call.method(), call.host(), call.port(), call.path());
    }

    /** {@link CallFacts.Builder#build}: the call's facts, read under the current policy's rule for them. */
    CallFacts read(CallFacts.Builder call, HeaderLookup headers) {
        ResolvedRule.Policies p = policies;
        int removals = destinations.removals();
        ResolvedRule.Memo last = lastLookup(p, removals, call.client, call.method, call.scheme, call.host, call.port,
                call.path);
        ResolvedRule r = last != null ? last.resolution
                : lookUp(p, destinations.find(call.scheme, call.host, call.port), removals, call.client, call.method,
                        call.host, call.port, call.path);
        return call.build(r, p.policy, headers);
    }

    /** The policy to answer a call under: the one its facts were read under, or else the current one. */
    private ResolvedRule.Policies policiesFor(CallFacts call) {
        ResolvedRule.Policies p = policies;
        Policy under = call.readUnder;
        if (under == null || p == null || p.policy == under) {
            return p;
        }
        ResolvedRule.Policies before = previous;
        if (before != null && before.policy == under) {
            return before;
        }
        // Read under a policy two reloads back: rare enough to work it out anew.
        return new ResolvedRule.Policies(under);
    }

    /**
     * The lookup last remembered at a destination, engine-wide, when it is for this very call (client, method,
     * scheme, host, port, path, under policy {@code p}) and its destination was not dropped since ({@code removals});
     * else null. A service whose calls mostly go to one endpoint finds that endpoint's rule and destination here
     * without the table's chain of dependent loads.
     */
    private ResolvedRule.Memo lastLookup(ResolvedRule.Policies p, int removals, String client, String method,
                                       String scheme, String host, int port, String path) {
        ResolvedRule.Memo last = lastMemo;
        return last != null && last.removals == removals && last.isFor(p, client, method, host, port, path)
                && last.destination.is(scheme, port) ? last : null;
    }

    /**
     * The rule lookup: {@link Policy#ruleFor}, unless the last lookup at the call's destination was for
     * the same client, method, host, port and path under the same policy. Destinations are only found
     * here, never added, so that calls the agent leaves alone leave no trace.
     */
    private ResolvedRule lookUp(ResolvedRule.Policies p, Destination d, int removals, String client, String method,
                              String host, int port, String path) {
        if (d == null) {
            return p.resolve(client, method, host, port, path);
        }
        ResolvedRule.Memo memo = d.ruleMemo;
        if (memo != null && memo.isFor(p, client, method, host, port, path)) {
            return memo.resolution;
        }
        ResolvedRule r = p.resolve(client, method, host, port, path);
        if (p != policies) {
            return r; // a call that started under the policy before: the memo is for the current one
        }
        // Calls whose paths never repeat (ids in the path) must not replace the memo on every call:
        // that would allocate each time. It is replaced when it is missing or from an older policy, and
        // otherwise after a run of misses, so that a destination whose common call changes follows it.
        if (memo == null || memo.resolution.owner != p || ++d.ruleMemoMisses >= MEMO_MISSES_BEFORE_REPLACING) {
            d.ruleMemoMisses = 0;
            ResolvedRule.Memo made = new ResolvedRule.Memo(r, client, method, host, port, path, d, removals);
            d.ruleMemo = made;
            lastMemo = made;
        }
        return r;
    }

    /**
     * The destination whose budget and counters {@code call}'s decisions use: the last lookup's when that was at the
     * call's address, unless one was dropped since; else from the table (added when new).
     */
    Destination destinationOf(CallFacts call) {
        int removals = destinations.removals();
        ResolvedRule.Memo last = lastMemo;
        if (last != null && last.removals == removals && last.isAt(call.scheme(), call.host(), call.port())) {
            return last.destination;
        }
        return destinations.get(call.scheme(), call.host(), call.port());
    }
}
