package dev.retryagent.it.upperlayers;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Feign 13.12 with {@code Retryer.Default(10, 50, 5)} (or {@code NEVER_RETRY}) over its default client
 * (HttpURLConnection) and {@code feign-okhttp} (OkHttp 5), the app {@code retryapps.FeignApp}: see
 * {@link LayerMatrix} for what is run and checked.
 */
class FeignLayerIT {
    @Test
    void feignIsOneRetryLayerOverBothClients() {
        new LayerMatrix("feign", "feign-13.12", "dev.retryagent.it.retryapps.FeignApp",
                LayerMatrix.appClasspath("libs"),
                List.of("default-on", "okhttp-on", "default-off", "okhttp-off"), List.of(LayerMatrix.Scenario.values()))
                .runAndCheck(5, List.of("default-on", "okhttp-on"), List.of("default-off", "okhttp-off"));
    }

    /** feign-core 13.13 (its loop in the private {@code runWithRetry}, below the hooked {@code invoke}): default client. */
    @Test
    void feign13IsOneRetryLayerWhereTheLoopMovedBelowInvoke() {
        new LayerMatrix("feign", "feign-13.13", "dev.retryagent.it.retryapps.FeignApp",
                LayerMatrix.appClasspath("libs-feign-13.13"), List.of("default-on", "default-off"),
                List.of(LayerMatrix.Scenario.ALWAYS_503, LayerMatrix.Scenario.RECOVERS,
                        LayerMatrix.Scenario.DROPPED_GET, LayerMatrix.Scenario.DROPPED_POST))
                .runAndCheck(5, List.of("default-on"), List.of("default-off"));
    }
}
