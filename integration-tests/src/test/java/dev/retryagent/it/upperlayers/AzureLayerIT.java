package dev.retryagent.it.upperlayers;

import dev.retryagent.it.upperlayers.LayerMatrix.App;
import dev.retryagent.it.upperlayers.LayerMatrix.Way;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Azure SDK's core 1.61.0: an {@code HttpPipeline} with {@code new RetryPolicy(new FixedDelay(3, 10 ms))} over
 * its OkHttp client (azure-core-http-okhttp 1.13.7, OkHttp 4.12) and its JDK client (azure-core-http-jdk-httpclient
 * 1.1.7, {@code java.net.http}): {@code sendSync} (the hooked loop) on both, and on OkHttp
 * {@code send(...).block()}, the reactive path, whose attempts the agent does not see inside one loop on one
 * thread: it retries them as any other call (the attempts multiply, under {@code defer} too).
 */
@Timeout(240)
class AzureLayerIT {
    private static final int RETRIES = 3;

    @Test
    void theLibrarysAttemptsOnly() {
        LayerMatrix.measureAndCheck(new App("azure-core-1.61.0(OkHttp-4.12|java.net.http)", "resilience-apps",
                "dev.retryagent.it.layers.AzureApp", List.of("libs/newest"), "azure-sdk", List.of(new Way("sync", true, RETRIES + 1), new Way("jdk-sync", true, RETRIES + 1),
                new Way("async", false, RETRIES + 1)),
                RETRIES), "azure");
    }
}
