package dev.retryagent.agent.layers.springretry;

import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.weaving.PerClassLookup;
import dev.retryagent.agent.bootloader.weaving.RetryLoopHandler;
import dev.retryagent.engine.UpperLayer;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * Says whether a run of {@code RetryTemplate.doExecute} is Spring Retry retrying ({@value #LAYER}) or a template whose
 * policy allows one attempt only ({@link UpperLayer#RETRIES_OFF}): a {@code NeverRetryPolicy}; a policy whose
 * {@code getMaxAttempts()} is 1 ({@code SimpleRetryPolicy}, {@code MaxAttemptsRetryPolicy}; from 2.0 every policy has
 * the method, {@code -1} meaning "not said", which counts as a layer); or a {@code CompositeRetryPolicy} whose parts
 * say so (what 1.3's {@code RetryTemplate.builder()} makes). By reflection only (the template's policy is private);
 * lookups are kept per class ({@link PerClassLookup}).
 */
public final class SpringRetryHooks extends RetryLoopHandler {
    public static final String DO_EXECUTE = "spring-retry.do-execute";
    /** The layer's name in logs ({@code reason=upper-layer layer=spring-retry}). */
    public static final String LAYER = "spring-retry";
    /** The hooked class, whose private {@code retryPolicy} is read. */
    public static final String RETRY_TEMPLATE = "org.springframework.retry.support.RetryTemplate";

    static final String RETRY_POLICY_FIELD = "retryPolicy";
    static final String NEVER_RETRY_POLICY = "org.springframework.retry.policy.NeverRetryPolicy";
    static final String GET_MAX_ATTEMPTS = "getMaxAttempts";
    /**
     * What {@code RetryTemplate.builder()} builds in 1.3: {@code CompositeRetryPolicy} of a
     * {@code MaxAttemptsRetryPolicy} and an exception classifier policy, its parts in the package-private field
     * {@code policies}, its mode in the private {@code optimistic}.
     */
    static final String COMPOSITE_RETRY_POLICY = "org.springframework.retry.policy.CompositeRetryPolicy";
    private static final int MAX_NESTING = 8;

    static {
        Hooks.register(SpringRetryHooks.class, new SpringRetryHooks());
    }

    public SpringRetryHooks() {
        super(DO_EXECUTE);
    }

    /** The template's private {@code retryPolicy} field, per template class (an application's subclass included). */
    private static final PerClassLookup<Field> POLICY_FIELD = new PerClassLookup<Field>() {
        @Override
        protected Field computeValue(Class<?> templateClass) {
            return declaredField(templateClass, RETRY_TEMPLATE, RETRY_POLICY_FIELD);
        }
    };

    /** A policy class's {@code int getMaxAttempts()}, in a one-element array; empty when it has none (1.3 policies). */
    private static final PerClassLookup<Method[]> MAX_ATTEMPTS = new PerClassLookup<Method[]>() {
        @Override
        protected Method[] computeValue(Class<?> policyClass) {
            try {
                Method m = policyClass.getMethod(GET_MAX_ATTEMPTS);
                if (m.getReturnType() != int.class) {
                    return new Method[0];
                }
                m.setAccessible(true); // a public method of a class that need not be public
                return new Method[] {m};
            } catch (NoSuchMethodException e) {
                return new Method[0];
            }
        }
    };

    /** A {@code CompositeRetryPolicy}'s fields {@code policies} and {@code optimistic}; empty for any other class. */
    private static final PerClassLookup<Field[]> COMPOSITE_FIELDS = new PerClassLookup<Field[]>() {
        @Override
        protected Field[] computeValue(Class<?> policyClass) {
            if (!COMPOSITE_RETRY_POLICY.equals(policyClass.getName())) {
                return new Field[0];
            }
            try {
                Field policies = policyClass.getDeclaredField("policies");
                Field optimistic = policyClass.getDeclaredField("optimistic");
                policies.setAccessible(true);
                optimistic.setAccessible(true);
                return new Field[] {policies, optimistic};
            } catch (NoSuchFieldException e) {
                return new Field[0];
            }
        }
    };

    @Override
    protected String layerOf(String hook, Object self) throws ReflectiveOperationException {
        Object policy = POLICY_FIELD.of(self.getClass()).get(self);
        return policy == null ? null : policyLayer(policy);
    }

    /** {@value #LAYER} for a policy that may retry, {@link UpperLayer#RETRIES_OFF} for one that allows one attempt. */
    static String policyLayer(Object policy) throws ReflectiveOperationException {
        return retriesOff(policy, 0) ? UpperLayer.RETRIES_OFF : LAYER;
    }

    /** True when {@code policy} allows one attempt only (as far as its class can be read). */
    private static boolean retriesOff(Object policy, int depth) throws ReflectiveOperationException {
        Class<?> type = policy.getClass();
        if (NEVER_RETRY_POLICY.equals(type.getName())) {
            return true;
        }
        Field[] composite = COMPOSITE_FIELDS.of(type);
        if (composite.length == 2) {
            Object[] parts = (Object[]) composite[0].get(policy);
            if (parts == null || parts.length == 0 || depth > MAX_NESTING) {
                return false;
            }
            boolean optimistic = composite[1].getBoolean(policy);
            // Pessimistic (the default): a retry needs every part to allow it. Optimistic: any part.
            for (Object part : parts) {
                boolean off = part != null && retriesOff(part, depth + 1);
                if (off != optimistic) {
                    return off;
                }
            }
            return optimistic;
        }
        Method[] max = MAX_ATTEMPTS.of(type);
        if (max.length == 1) {
            int attempts = (Integer) max[0].invoke(policy);
            return attempts == 0 || attempts == 1;
        }
        return false;
    }
}
