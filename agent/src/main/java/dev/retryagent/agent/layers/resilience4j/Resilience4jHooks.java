package dev.retryagent.agent.layers.resilience4j;

import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.weaving.RetryLoopHandler;
import dev.retryagent.engine.UpperLayer;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;

/**
 * The handler of Resilience4j Retry's loops (its hook points: {@link dev.retryagent.agent.layers.LayerTable}): which layer a
 * loop's run is, from the {@code Retry} it runs for (the receiver of an {@code executeX} default method, the first
 * argument of a {@code decorateX} lambda body). Compiled against 1.7.1; {@code Retry.getRetryConfig()} and
 * {@code RetryConfig.getMaxAttempts()} are the same in 2.x.
 */
public final class Resilience4jHooks extends RetryLoopHandler {
    /** The layer's name in logs ({@code layer=resilience4j}). */
    public static final String LAYER = "resilience4j";
    public static final String RETRY_LOOP = "resilience4j.retry-loop";

    static {
        Hooks.register(Resilience4jHooks.class, new Resilience4jHooks());
    }

    public Resilience4jHooks() {
        super(RETRY_LOOP);
    }

    /** The receiver of an {@code executeX} default method, or the first argument of a {@code decorateX} lambda body. */
    @Override
    protected Object loopOf(Object self, Object[] args) {
        return self != null ? self : args.length > 0 ? args[0] : null;
    }

    @Override
    protected String layerOf(String hook, Object retry) {
        return retry instanceof Retry ? layerOf((Retry) retry) : null;
    }

    /**
     * {@link #LAYER} when {@code retry} makes more than one attempt, {@link UpperLayer#RETRIES_OFF} when it makes one
     * ({@code maxAttempts(1)}), null when it has no configuration to tell (an application's own {@code Retry}).
     */
    static String layerOf(Retry retry) {
        RetryConfig config = retry.getRetryConfig();
        if (config == null) {
            return null;
        }
        return config.getMaxAttempts() > 1 ? LAYER : UpperLayer.RETRIES_OFF;
    }
}
