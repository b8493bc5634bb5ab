package dev.retryagent.agent.layers.azure;

import com.azure.core.http.policy.RetryStrategy;
import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.weaving.PerClassLookup;
import dev.retryagent.agent.bootloader.weaving.RetryLoopHandler;
import dev.retryagent.engine.UpperLayer;
import java.lang.reflect.Field;

/**
 * The handler of the Azure SDK's {@code RetryPolicy.processSync} (its hook points:
 * {@link dev.retryagent.agent.layers.LayerTable}): a layer when the policy's {@code RetryStrategy} (its private field
 * {@code retryStrategy}, read by reflection; the strategy built from {@code RetryOptions}, an
 * {@code ExponentialBackoff}, a {@code FixedDelay} or the application's own) allows a retry ({@code getMaxRetries()}
 * above 0), {@link UpperLayer#RETRIES_OFF} when it allows none. Compiled against azure-core 1.45.0; the field and
 * {@code RetryStrategy.getMaxRetries()} are the same through 1.61.
 */
public final class AzureHooks extends RetryLoopHandler {
    /** The layer's name in logs ({@code layer=azure-sdk}). */
    public static final String LAYER = "azure-sdk";
    public static final String PROCESS_SYNC = "azure-sdk.retry-policy-sync";
    /** The hooked class: azure-core's {@code RetryPolicy}, the pipeline's retry step. */
    public static final String RETRY_POLICY = "com.azure.core.http.policy.RetryPolicy";

    /** {@code RetryPolicy.retryStrategy}. */
    private static final PerClassLookup<Field> RETRY_STRATEGY = new PerClassLookup<Field>() {
        @Override
        protected Field computeValue(Class<?> policy) {
            return declaredField(policy, RETRY_POLICY, "retryStrategy");
        }
    };

    static {
        Hooks.register(AzureHooks.class, new AzureHooks());
    }

    public AzureHooks() {
        super(PROCESS_SYNC);
    }

    @Override
    protected String layerOf(String hook, Object self) throws ReflectiveOperationException {
        Object strategy = RETRY_STRATEGY.of(self.getClass()).get(self);
        return strategy instanceof RetryStrategy ? layerOf((RetryStrategy) strategy) : null;
    }

    static String layerOf(RetryStrategy strategy) {
        return strategy.getMaxRetries() > 0 ? LAYER : UpperLayer.RETRIES_OFF;
    }
}
