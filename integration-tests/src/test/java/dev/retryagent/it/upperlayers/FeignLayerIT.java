package dev.retryagent.it.upperlayers;

import dev.retryagent.it.upperlayers.LayerMatrix.App;
import dev.retryagent.it.upperlayers.LayerMatrix.Scenario;
import dev.retryagent.it.upperlayers.LayerMatrix.Way;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Feign 13.12 with {@code Retryer.Default(10, 50, 5)} (or {@code NEVER_RETRY}) over its default client
 * (HttpURLConnection) and {@code feign-okhttp} (OkHttp 5), the app {@code retryapps.FeignApp}: see
 * {@link LayerMatrix} for what is run and checked.
 */
class FeignLayerIT {
    private static final int RETRIES = 4;

    @Test
    void feignIsOneRetryLayerOverBothClients() {
        LayerMatrix.measureAndCheck(new App("feign-13.12", "retry-apps", "dev.retryagent.it.retryapps.FeignApp",
                List.of("libs"), "feign", List.of(new Way("default", true, RETRIES + 1),
                new Way("okhttp", true, RETRIES + 1)), RETRIES).scenarios(List.of(Scenario.values())), "feign-13.12");
    }

    /** feign-core 13.13 (its loop in the private {@code runWithRetry}, below the hooked {@code invoke}): default client. */
    @Test
    void feign13IsOneRetryLayerWhereTheLoopMovedBelowInvoke() {
        LayerMatrix.measureAndCheck(new App("feign-13.13", "retry-apps", "dev.retryagent.it.retryapps.FeignApp",
                List.of("libs-feign-13.13"), "feign", List.of(new Way("default", true, RETRIES + 1)), RETRIES),
                "feign-13.13");
    }
}
