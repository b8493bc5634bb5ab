package dev.retryagent.agent.layers.failsafe;

import dev.failsafe.FailsafeExecutor;
import dev.failsafe.Policy;
import dev.failsafe.RetryPolicy;
import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.weaving.PerClassLookup;
import dev.retryagent.agent.bootloader.weaving.RetryLoopHandler;
import dev.retryagent.engine.UpperLayer;
import java.lang.reflect.Field;
import java.util.List;

/**
 * The handler of Failsafe's synchronous executions (its hook points: {@link dev.retryagent.agent.layers.LayerTable}): a layer
 * when the executor's policies hold a {@code RetryPolicy} that allows a retry ({@code maxRetries} above 0, or -1:
 * unlimited); {@link UpperLayer#RETRIES_OFF} when every {@code RetryPolicy} it holds has {@code maxRetries} 0; null
 * when it holds none (only a circuit breaker, a timeout, a fallback...). Compiled against Failsafe 3.0 (its
 * {@code getPolicies()}, {@code RetryPolicy.getConfig().getMaxRetries()}, unchanged through 3.3); Failsafe 2.4 by
 * reflection, its types being in another package ({@code net.jodah.failsafe}).
 */
public final class FailsafeHooks extends RetryLoopHandler {
    /** The layer's name in logs ({@code layer=failsafe}). */
    public static final String LAYER = "failsafe";
    public static final String SYNC = "failsafe.sync-execution";
    public static final String SYNC_2 = "failsafe2.call";
    /** Failsafe 3's execution, whose {@code executeSync()} is hooked. */
    public static final String SYNC_EXECUTION = "dev.failsafe.SyncExecutionImpl";
    /** Failsafe 2.4's executor, whose private {@code call(Function)} is hooked. */
    public static final String EXECUTOR_2 = "net.jodah.failsafe.FailsafeExecutor";

    /** {@code SyncExecutionImpl.executor}, the execution's {@code FailsafeExecutor}. */
    private static final PerClassLookup<Field> EXECUTOR = new PerClassLookup<Field>() {
        @Override
        protected Field computeValue(Class<?> execution) {
            return declaredField(execution, SYNC_EXECUTION, "executor");
        }
    };
    /** {@code net.jodah.failsafe.FailsafeExecutor.policies} (2.4 has no {@code getPolicies()}). */
    private static final PerClassLookup<Field> POLICIES_2 = new PerClassLookup<Field>() {
        @Override
        protected Field computeValue(Class<?> executor) {
            return declaredField(executor, EXECUTOR_2, "policies");
        }
    };

    static {
        Hooks.register(FailsafeHooks.class, new FailsafeHooks());
    }

    public FailsafeHooks() {
        super(SYNC, SYNC_2);
    }

    @Override
    protected String layerOf(String hook, Object self) throws ReflectiveOperationException {
        if (SYNC_2.equals(hook)) {
            return Failsafe2.layerOf((List<?>) POLICIES_2.of(self.getClass()).get(self));
        }
        Object exec = EXECUTOR.of(self.getClass()).get(self);
        return exec instanceof FailsafeExecutor ? layerOf(((FailsafeExecutor<?>) exec).getPolicies()) : null;
    }

    /** What the policies of a Failsafe 3 executor make of its execution. */
    static String layerOf(List<? extends Policy<?>> policies) {
        String answer = null;
        for (Policy<?> policy : policies) {
            if (policy instanceof RetryPolicy) {
                int maxRetries = ((RetryPolicy<?>) policy).getConfig().getMaxRetries();
                if (maxRetries != 0) {
                    return LAYER;
                }
                answer = UpperLayer.RETRIES_OFF;
            }
        }
        return answer;
    }
}
