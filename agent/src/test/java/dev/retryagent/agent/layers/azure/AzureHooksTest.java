package dev.retryagent.agent.layers.azure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.core.http.policy.ExponentialBackoff;
import com.azure.core.http.policy.ExponentialBackoffOptions;
import com.azure.core.http.policy.FixedDelay;
import com.azure.core.http.policy.FixedDelayOptions;
import com.azure.core.http.policy.RetryOptions;
import com.azure.core.http.policy.RetryPolicy;
import dev.retryagent.agent.LibraryClassFiles;
import dev.retryagent.agent.layers.LayerTable;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.engine.LayerRetries;
import dev.retryagent.engine.UpperLayer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** azure-core 1.45.0, as compiled against. */
class AzureHooksTest {
    private final AzureHooks hooks = new AzureHooks();

    private String layer(RetryPolicy policy) {
        LayerRetries layer = hooks.retryLayer(AzureHooks.PROCESS_SYNC, policy, new Object[2]);
        return layer == null ? null : layer.layer();
    }

    @Test
    void aPolicyThatRetriesIsTheLayer() {
        assertEquals("azure-sdk", layer(new RetryPolicy(new FixedDelay(3, Duration.ofMillis(10)))));
        assertEquals("azure-sdk", layer(new RetryPolicy(new ExponentialBackoff())));
        assertEquals("azure-sdk", layer(new RetryPolicy(new RetryOptions(
                new FixedDelayOptions(1, Duration.ofMillis(10))))));
        assertEquals("azure-sdk", layer(new RetryPolicy(new FixedDelay(2, Duration.ofMillis(1))) { }));
    }

    @Test
    void noRetriesIsRetriesOff() {
        assertSame(UpperLayer.RETRIES_OFF, layer(new RetryPolicy(new FixedDelay(0, Duration.ofMillis(10)))));
        assertSame(UpperLayer.RETRIES_OFF, layer(new RetryPolicy(new RetryOptions(
                new ExponentialBackoffOptions().setMaxRetries(0)))));
    }

    @Test
    void theHookedMethodExists() {
        for (HookPoint point : LayerTable.named(AzureHooks.LAYER).hookPoints()) {
            assertEquals(HookPoint.Where.RETRY_LOOP, point.where());
            assertTrue(LibraryClassFiles.concreteMethods(point.className())
                    .containsKey(point.methodName() + point.descriptor()), point.toString());
        }
    }
}
