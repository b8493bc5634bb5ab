package dev.retryagent.it.upperlayers;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Spring Retry's {@code RetryTemplate} (3 attempts, or {@code maxAttempts(1)}) around HttpURLConnection, the app
 * {@code retryapps.SpringRetryApp}, on 2.0.13 and on 1.3.4 (the line Java 8 fleets run): see {@link LayerMatrix}.
 */
class SpringRetryLayerIT {
    private static final List<LayerMatrix.Scenario> SCENARIOS = List.of(LayerMatrix.Scenario.ALWAYS_503,
            LayerMatrix.Scenario.RECOVERS, LayerMatrix.Scenario.DROPPED_GET, LayerMatrix.Scenario.DROPPED_POST);

    @Test
    void springRetry2IsOneRetryLayer() {
        check("spring-retry-2.0.13", "libs");
    }

    @Test
    void springRetry13IsOneRetryLayer() {
        check("spring-retry-1.3.4", "libs-spring-retry-1.3");
    }

    private static void check(String label, String libs) {
        new LayerMatrix("spring-retry", label, "dev.retryagent.it.retryapps.SpringRetryApp",
                LayerMatrix.appClasspath(libs),
                List.of("jdk-on", "jdk-off"), SCENARIOS)
                .runAndCheck(3, List.of("jdk-on"), List.of("jdk-off"));
    }
}
