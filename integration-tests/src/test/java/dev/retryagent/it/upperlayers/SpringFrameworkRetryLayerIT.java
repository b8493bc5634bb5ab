package dev.retryagent.it.upperlayers;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Spring Framework 7.0.10's {@code org.springframework.core.retry.RetryTemplate} ({@code maxRetries(2)}, or 0) around
 * java.net.http's {@code HttpClient}, the app {@code retryapps.SpringFrameworkRetryApp}: see {@link LayerMatrix}.
 */
class SpringFrameworkRetryLayerIT {
    @Test
    void springFrameworkRetryIsOneRetryLayer() {
        new LayerMatrix("spring-framework-retry", "spring-core-7.0.10",
                "dev.retryagent.it.retryapps.SpringFrameworkRetryApp",
                LayerMatrix.appClasspath("libs"), List.of("jdkhttp-on", "jdkhttp-off"),
                List.of(LayerMatrix.Scenario.ALWAYS_503, LayerMatrix.Scenario.RECOVERS,
                        LayerMatrix.Scenario.DROPPED_GET, LayerMatrix.Scenario.DROPPED_POST))
                .runAndCheck(3, List.of("jdkhttp-on"), List.of("jdkhttp-off"));
    }
}
