package dev.retryagent.agent.layers.springframeworkretry;

import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.weaving.RetryLoopHandler;
import dev.retryagent.engine.UpperLayer;
import java.lang.reflect.Method;

/**
 * Says whether a run of {@code org.springframework.core.retry.RetryTemplate.execute} is Spring Framework retrying
 * ({@value #LAYER}) or a template whose policy allows no retry ({@link UpperLayer#RETRIES_OFF}). In 7.0 the number
 * of retries lives in the policy's {@code BackOff}: {@code RetryPolicy.withMaxRetries(n)} and
 * {@code builder().maxRetries(n)} give a {@code FixedBackOff} or {@code ExponentialBackOff} whose
 * {@code getMaxAttempts()} is {@code n} (retries after the first attempt); 0 means none. An
 * {@code ExponentialBackOff} with {@code maxElapsedTime} 0 stops at once too. Any other {@code BackOff} counts as a
 * layer. Public methods only ({@code getRetryPolicy()}, {@code RetryPolicy.getBackOff()}), found by reflection once
 * per class ({@link ClassValue}).
 */
public final class SpringFrameworkRetryHooks extends RetryLoopHandler {
    public static final String EXECUTE = "spring-framework-retry.execute";
    /**
     * The layer's name in logs ({@code reason=upper-layer layer=spring-framework-retry}): Spring Framework's
     * {@code org.springframework.core.retry}, told apart from the separate Spring Retry project ({@code spring-retry}).
     */
    public static final String LAYER = "spring-framework-retry";

    static final String FIXED_BACK_OFF = "org.springframework.util.backoff.FixedBackOff";
    static final String EXPONENTIAL_BACK_OFF = "org.springframework.util.backoff.ExponentialBackOff";

    static {
        Hooks.register(SpringFrameworkRetryHooks.class, new SpringFrameworkRetryHooks());
    }

    public SpringFrameworkRetryHooks() {
        super(EXECUTE);
    }

    /** {@code getRetryPolicy()} of the template class and {@code getBackOff()} of the policy interface it returns. */
    private static final ClassValue<Method[]> POLICY_READERS = new ClassValue<Method[]>() {
        @Override
        protected Method[] computeValue(Class<?> templateClass) {
            try {
                Method getRetryPolicy = templateClass.getMethod("getRetryPolicy");
                Method getBackOff = getRetryPolicy.getReturnType().getMethod("getBackOff");
                return new Method[] {getRetryPolicy, getBackOff};
            } catch (NoSuchMethodException e) {
                throw new IllegalStateException(templateClass.getName() + " has no retry policy to read", e);
            }
        }
    };

    /**
     * For Spring's two back-off classes: {@code getMaxAttempts()} and, for the exponential one,
     * {@code getMaxElapsedTime()}; empty for any other {@code BackOff}.
     */
    private static final ClassValue<Method[]> BACK_OFF_LIMITS = new ClassValue<Method[]>() {
        @Override
        protected Method[] computeValue(Class<?> backOffClass) {
            String name = backOffClass.getName();
            try {
                if (FIXED_BACK_OFF.equals(name)) {
                    return new Method[] {backOffClass.getMethod("getMaxAttempts")};
                }
                if (EXPONENTIAL_BACK_OFF.equals(name)) {
                    return new Method[] {backOffClass.getMethod("getMaxAttempts"),
                            backOffClass.getMethod("getMaxElapsedTime")};
                }
            } catch (NoSuchMethodException e) {
                return new Method[0];
            }
            return new Method[0];
        }
    };

    @Override
    protected String layerOf(String hook, Object self) throws ReflectiveOperationException {
        Method[] readers = POLICY_READERS.get(self.getClass());
        Object policy = readers[0].invoke(self);
        if (policy == null) {
            return null;
        }
        Object backOff = readers[1].invoke(policy);
        return backOff == null ? LAYER : backOffLayer(backOff);
    }

    /** {@link UpperLayer#RETRIES_OFF} for a Spring back-off that allows no retry, else {@value #LAYER}. */
    static String backOffLayer(Object backOff) throws ReflectiveOperationException {
        Method[] limits = BACK_OFF_LIMITS.get(backOff.getClass());
        for (Method limit : limits) {
            Object value = limit.invoke(backOff);
            if (value instanceof Long && (Long) value <= 0L) {
                return UpperLayer.RETRIES_OFF;
            }
        }
        return LAYER;
    }
}
