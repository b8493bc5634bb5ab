package dev.retryagent.engine;

import dev.retryagent.policy.Policy;
import java.util.List;

/**
 * The one retry engine. It answers two questions about a call: what may happen to it ({@link #plan}, before its first
 * attempt: what adapters ask), and what follows each of its attempts ({@link #decide}, what the loops ask). It never
 * waits and never touches a client; time and randomness are injected. Thread-safe and JVM-wide: the per-destination
 * budgets and counters are shared by every client.
 *
 * <p>Its parts: the rule lookup and the policy it reloads ({@link RuleLookup}), the decisions ({@link Decider}), and
 * the counters and budgets they keep ({@link Accounting}).
 */
public final class RetryEngine {
    private final RuleLookup lookup;
    private final Decider decider;
    private final Accounting accounting;

    public RetryEngine(Policy policy, Clock clock, RandomSource random) {
        Destinations destinations = new Destinations(clock);
        this.lookup = new RuleLookup(destinations, policy);
        this.decider = new Decider(clock, random, lookup);
        this.accounting = new Accounting(destinations);
    }

    public Policy policy() {
        return lookup.policy();
    }

    /**
     * Replaces the policy. Calls that start afterwards run under the new one; a call already planned keeps the policy
     * its plan was made under to its end, so that no call sees half of two policies.
     */
    public void setPolicy(Policy policy) {
        lookup.setPolicy(policy);
    }

    /**
     * What may happen to {@code call}: its plan, under the policy its facts were read under (or else the current one),
     * its rule looked up through the last lookup made for the call's destination when the client, method, host, port
     * and path are the same. A loop's run plans its call once and keeps the plan to the call's end.
     */
    public CallPlan plan(CallFacts call) {
        return lookup.plan(call);
    }

    /**
     * The plan of {@code at}, the facts a client's redirect took an attempt of a call planned as {@code origin} to:
     * under the policy {@code at} names, or else the call's, so that the call sees one policy to its end.
     */
    CallPlan plan(CallFacts at, CallPlan origin) {
        return lookup.planAt(at, origin);
    }

    /** {@link CallFacts.Builder#build}: the call's facts, read under the current policy. */
    CallFacts read(CallFacts.Builder call, HeaderLookup headers) {
        return lookup.read(call, headers);
    }

    /**
     * What follows {@code attempt}, planned as {@code plan} (its call's, or the plan where a client's redirect took
     * it): done, retry after a wait, would retry, or give up; counted at the destination it is decided at.
     */
    RetryDecision decide(CallPlan plan, AttemptResult attempt) {
        // Its fields handed on one by one: the result stays in the caller's frame, and a decision allocates nothing.
        return decider.decide(plan, attempt.call, attempt.redirectedFrom, attempt.number, attempt.outcome,
                attempt.firstAtDestination, attempt.previousWaitMillis, attempt.timed, attempt.startNanos,
                attempt.clock, attempt.callerLimitMillis, attempt.clientsResend);
    }

    /** The destination whose budget and counters {@code call}'s decisions use (for the log's summary lines). */
    Destination destinationOf(CallFacts call) {
        return accounting.destinationOf(call);
    }

    /** Every destination seen, with its counters per client (for JMX and tests). */
    public List<Destination> destinations() {
        return accounting.destinations();
    }

    /** The counters of {@code client} at a destination, or null when it has none yet. */
    public RetryCounters counters(String client, String scheme, String host, int port) {
        return accounting.counters(client, scheme, host, port);
    }
}
