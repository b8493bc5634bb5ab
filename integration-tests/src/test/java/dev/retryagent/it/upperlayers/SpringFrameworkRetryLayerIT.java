package dev.retryagent.it.upperlayers;

import dev.retryagent.it.upperlayers.LayerMatrix.App;
import dev.retryagent.it.upperlayers.LayerMatrix.Way;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Spring Framework 7.0.10's {@code org.springframework.core.retry.RetryTemplate} ({@code maxRetries(2)}, or 0) around
 * java.net.http's {@code HttpClient}, the app {@code retryapps.SpringFrameworkRetryApp}: see {@link LayerMatrix}.
 */
class SpringFrameworkRetryLayerIT {
    private static final int RETRIES = 2;

    @Test
    void springFrameworkRetryIsOneRetryLayer() {
        LayerMatrix.measureAndCheck(new App("spring-core-7.0.10", "retry-apps",
                "dev.retryagent.it.retryapps.SpringFrameworkRetryApp", List.of("libs"), "spring-framework-retry",
                List.of(new Way("jdkhttp", true, RETRIES + 1)), RETRIES), "spring-core-7.0.10");
    }
}
