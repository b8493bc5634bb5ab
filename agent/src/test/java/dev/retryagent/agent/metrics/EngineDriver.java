package dev.retryagent.agent.metrics;

import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.Clock;
import dev.retryagent.engine.Outcome;
import dev.retryagent.engine.RetryDecision;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.policy.PolicyException;
import dev.retryagent.policy.PolicyLoader;
import java.util.concurrent.TimeUnit;

/** A real engine on a clock the test moves, and calls decided the way the retry loop asks. */
final class EngineDriver implements Clock {
    static final String POLICY = """
            version: 1
            defaults:
              maxAttempts: 3
            rules:
              - match: { host: "broke.example" }
                budget: { ratio: 0.0, minPerSecond: 0 }
              - match: { host: "watched.example" }
                mode: observe
            """;

    private long nanos = TimeUnit.SECONDS.toNanos(100);
    private long wallMillis = 1_768_478_400_000L;
    final RetryEngine engine;

    EngineDriver() {
        try {
            engine = new RetryEngine(PolicyLoader.parse(POLICY, "test.yaml"), this, () -> 0.5);
        } catch (PolicyException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public long nanoTime() {
        return nanos;
    }

    @Override
    public long currentTimeMillis() {
        return wallMillis;
    }

    void advanceMinutes(long minutes) {
        nanos += TimeUnit.MINUTES.toNanos(minutes);
        wallMillis += TimeUnit.MINUTES.toMillis(minutes);
    }

    static CallFacts get(String client, String host, int port) {
        return new CallFacts(client, "GET", "http", host, port, "/", false, true, false);
    }

    static CallFacts post(String client, String host, int port) {
        return new CallFacts(client, "POST", "http", host, port, "/", false, true, false);
    }

    /** One call whose attempts end with {@code statuses} in turn, asked as the loop asks; returns the last decision. */
    RetryDecision call(CallFacts call, int... statuses) {
        RetryDecision d = null;
        for (int i = 0; i < statuses.length; i++) {
            d = engine.decide(call, i + 1, Outcome.status(statuses[i], null), 0, 0);
            if (!d.shouldRetry()) {
                return d;
            }
        }
        return d;
    }
}
