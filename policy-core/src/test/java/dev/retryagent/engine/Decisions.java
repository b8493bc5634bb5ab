package dev.retryagent.engine;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Asks {@link RetryEngine#decide}, the decision the loops' runs ask for, as a run would on a test's clock: each call
 * (each facts object) keeps the plan made at its first decision to its end, and began {@code elapsedMillis} before
 * the clock's now. Thread-safe.
 */
final class Decisions {
    private final Clock clock;
    /** Per engine, the plan of each call decided (keys by identity: neither class overrides equals). */
    private final Map<RetryEngine, Map<CallFacts, CallPlan>> plans = new ConcurrentHashMap<>();

    Decisions(Clock clock) {
        this.clock = clock;
    }

    /**
     * What follows attempt {@code attempt} of {@code call}, which ended with {@code outcome}; the call counted at its
     * destination at attempt 1.
     *
     * @param elapsedMillis      time since the call began (before its first attempt)
     * @param previousWaitMillis the wait before this attempt (0 for the first)
     */
    RetryDecision decide(RetryEngine engine, CallFacts call, int attempt, Outcome outcome, long elapsedMillis,
                         long previousWaitMillis) {
        CallPlan plan = plans.computeIfAbsent(engine, e -> new ConcurrentHashMap<>())
                .computeIfAbsent(call, engine::plan);
        long startNanos = clock.nanoTime() - TimeUnit.MILLISECONDS.toNanos(elapsedMillis);
        return engine.decide(plan, new AttemptResult(call, null, attempt, outcome, previousWaitMillis, true, startNanos,
                clock, 0, false, attempt == 1));
    }
}
