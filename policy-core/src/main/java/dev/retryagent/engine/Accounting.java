package dev.retryagent.engine;

import java.util.List;

/**
 * The engine's accounting: each destination's counters per client and its retry budget, as decisions count calls,
 * first attempts, retries and give-ups there. Thread-safe: the counters and budgets are shared by every client.
 */
final class Accounting {
    private final Destinations destinations;

    Accounting(Destinations destinations) {
        this.destinations = destinations;
    }

    /**
     * Counts a call at {@code destination} (its counters' {@code calls}, its budget's first attempts) whose attempt was
     * redirected by the client to another destination, where it is decided.
     */
    static void countCall(Destination destination, String client, boolean timed, long startNanos) {
        destination.countersFor(client).calls.increment();
        recordFirstAttempt(destination, timed, startNanos);
    }

    /** A call's first decision at a destination: counted there, and as deferred to the layer above it, if one. */
    static void countFirst(Destination destination, RetryCounters counters, CallFacts call, boolean timed,
                           long nowNanos) {
        counters.calls.increment();
        if (call.upperLayer() != null) {
            counters.upperLayerCalls.increment();
        }
        recordFirstAttempt(destination, timed, nowNanos);
    }

    /** Counts a first attempt in the destination's budget, at {@code nowNanos} when {@code timed}. */
    private static void recordFirstAttempt(Destination destination, boolean timed, long nowNanos) {
        if (timed) {
            destination.budget.recordFirstAttempt(nowNanos);
        } else {
            destination.budget.recordUndatedFirstAttempt();
        }
    }

    /** The call is done: its outcome is not one to retry (a success, counted when it came after a retry). */
    static RetryDecision done(RetryCounters counters, int attempt, Outcome outcome) {
        if (attempt > 1 && !outcome.isFailure() && outcome.status() < 400) {
            counters.successesAfterRetry.increment();
        }
        return RetryDecision.done();
    }

    static RetryDecision giveUp(RetryCounters counters, GiveUpReason reason, int attempt, int max) {
        counters.giveUps[reason.ordinal()].increment();
        return RetryDecision.giveUp(reason, attempt, max);
    }

    /** The destination whose budget and counters {@code call}'s decisions use (for the log's summary lines). */
    Destination destinationOf(CallFacts call) {
        return destinations.get(call.scheme(), call.host(), call.port());
    }

    /** Every destination seen, with its counters per client (for JMX and tests). */
    List<Destination> destinations() {
        return destinations.all();
    }

    /** The counters of {@code client} at a destination, or null when it has none yet. */
    RetryCounters counters(String client, String scheme, String host, int port) {
        for (Destination d : destinations.all()) {
            if (d.host().equalsIgnoreCase(host) && d.is(scheme, port)) {
                for (RetryCounters c : d.counters()) {
                    if (c.client().equals(client)) {
                        return c;
                    }
                }
            }
        }
        return null;
    }
}
