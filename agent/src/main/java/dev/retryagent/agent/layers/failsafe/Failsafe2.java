package dev.retryagent.agent.layers.failsafe;

import dev.retryagent.engine.UpperLayer;
import java.lang.reflect.Method;
import java.util.List;

/**
 * Failsafe 2.4's policies ({@code net.jodah.failsafe}), read by reflection: a {@code RetryPolicy} is a class there,
 * its {@code getMaxRetries()} public (-1: unlimited).
 */
final class Failsafe2 {
    static final String RETRY_POLICY = "net.jodah.failsafe.RetryPolicy";

    /** {@code RetryPolicy.getMaxRetries()}, looked up from the first retry policy seen. */
    private static volatile Method maxRetries;

    private Failsafe2() {
    }

    static String layerOf(List<?> policies) throws ReflectiveOperationException {
        if (policies == null) {
            return null;
        }
        String answer = null;
        for (Object policy : policies) {
            Class<?> retryPolicy = retryPolicyClass(policy);
            if (retryPolicy == null) {
                continue;
            }
            Method m = maxRetries;
            if (m == null || m.getDeclaringClass() != retryPolicy) {
                m = retryPolicy.getMethod("getMaxRetries");
                maxRetries = m;
            }
            if (((Integer) m.invoke(policy)).intValue() != 0) {
                return FailsafeHooks.LAYER;
            }
            answer = UpperLayer.RETRIES_OFF;
        }
        return answer;
    }

    /** Failsafe 2.4's {@code RetryPolicy} class when {@code policy} is one (or a subclass), else null. */
    private static Class<?> retryPolicyClass(Object policy) {
        for (Class<?> c = policy == null ? null : policy.getClass(); c != null; c = c.getSuperclass()) {
            if (c.getName().equals(RETRY_POLICY)) {
                return c;
            }
        }
        return null;
    }
}
