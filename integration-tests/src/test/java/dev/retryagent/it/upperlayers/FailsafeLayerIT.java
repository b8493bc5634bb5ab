package dev.retryagent.it.upperlayers;

import dev.retryagent.it.upperlayers.LayerMatrix.App;
import dev.retryagent.it.upperlayers.LayerMatrix.Way;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Failsafe over OkHttp 4.12 (sync {@code execute}), a {@code RetryPolicy} of 3 retries 10 ms apart handling an
 * {@code IOException} and a 503: 3.3.2's {@code Failsafe.with(policy).get(...)} and {@code newCall(...).execute()},
 * 2.4.4's {@code get}; and a 3.3.2 executor with only a {@code CircuitBreaker}, which is no retry loop (the agent
 * retries its calls as any other).
 */
@Timeout(240)
class FailsafeLayerIT {
    private static final int RETRIES = 3;

    @Test
    void theLibrarysAttemptsOnly() {
        LayerMatrix.measureAndCheck(new App("failsafe-3.3.2+2.4.4(OkHttp-4.12)", "resilience-apps",
                "dev.retryagent.it.layers.FailsafeApp", List.of("libs/newest"), "failsafe", List.of(new Way("get", true, RETRIES + 1), new Way("call", true, RETRIES + 1),
                new Way("v2", true, RETRIES + 1), new Way("breaker", false, 1)), RETRIES), "failsafe");
    }
}
