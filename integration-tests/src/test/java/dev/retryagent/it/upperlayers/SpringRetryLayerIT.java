package dev.retryagent.it.upperlayers;

import dev.retryagent.it.upperlayers.LayerMatrix.App;
import dev.retryagent.it.upperlayers.LayerMatrix.Way;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Spring Retry's {@code RetryTemplate} (3 attempts, or {@code maxAttempts(1)}) around HttpURLConnection, the app
 * {@code retryapps.SpringRetryApp}, on 2.0.13 and on 1.3.4 (the line Java 8 fleets run): see {@link LayerMatrix}.
 */
class SpringRetryLayerIT {
    private static final int RETRIES = 2;

    @Test
    void springRetry2IsOneRetryLayer() {
        check("spring-retry-2.0.13", "libs");
    }

    @Test
    void springRetry13IsOneRetryLayer() {
        check("spring-retry-1.3.4", "libs-spring-retry-1.3");
    }

    private static void check(String label, String libs) {
        LayerMatrix.measureAndCheck(new App(label, "retry-apps", "dev.retryagent.it.retryapps.SpringRetryApp",
                List.of(libs), "spring-retry", List.of(new Way("jdk", true, RETRIES + 1)), RETRIES), label);
    }
}
