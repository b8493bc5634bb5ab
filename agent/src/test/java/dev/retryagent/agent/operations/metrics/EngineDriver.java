package dev.retryagent.agent.operations.metrics;

import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.Clock;
import dev.retryagent.engine.Exchange;
import dev.retryagent.engine.Outcome;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.engine.RetryLoop;
import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.PolicyException;
import dev.retryagent.policy.PolicyLoader;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/** A real engine on a clock the test moves, and calls run through the retry loop (its waits take no time). */
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
    private final RetryLoop loop;

    EngineDriver() {
        try {
            engine = new RetryEngine(PolicyLoader.parse(POLICY, "test.yaml"), this, () -> 0.5);
        } catch (PolicyException e) {
            throw new IllegalStateException(e);
        }
        loop = new RetryLoop(engine, this, millis -> { });
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

    /** One call whose attempts answer {@code statuses} in turn (the loop makes as many as it decides to). */
    void call(CallFacts call, int... statuses) {
        try {
            loop.execute(call, new Exchange<Integer>() {
                @Override
                public Integer send(int attempt, String marker) {
                    return statuses[attempt - 1];
                }

                @Override
                public void discard(Integer response) {
                }

                @Override
                public Outcome outcome(Integer status) {
                    return Outcome.status(status, null);
                }

                @Override
                public FailureKind classify(IOException failure) {
                    return FailureKind.OTHER;
                }
            });
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
