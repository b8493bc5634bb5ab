package dev.retryagent.agent.layers.awssdk1;

import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.weaving.PerClassLookup;
import dev.retryagent.agent.bootloader.weaving.RetryLoopHandler;
import dev.retryagent.engine.UpperLayer;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * The handler of the AWS SDK v1's retry loop (its hook points: {@link dev.retryagent.agent.layers.LayerTable}): says whether
 * the loop starting here retries. Reads, by reflection, the retry policy the loop asks ({@code shouldRetry}): the
 * executor's outer {@code AmazonHttpClient} ({@code this$0}) and its {@code retryPolicy}, a {@code RetryPolicyAdapter}
 * whose {@code getMaxErrorRetry()} is the client's resolved retries ({@code ClientConfiguration.setMaxErrorRetry}, else
 * the policy's own: 0 for {@code PredefinedRetryPolicies.NO_RETRY_POLICY}).
 */
public final class AwsSdk1Hooks extends RetryLoopHandler {
    public static final String EXECUTE_HELPER = "aws-sdk-v1.execute-helper";

    private static final Object[] NO_ARGS = new Object[0];

    /** The accessors for each executor class (one SDK per class loader). */
    private static final PerClassLookup<Accessors> ACCESSORS = new PerClassLookup<Accessors>() {
        @Override
        protected Accessors computeValue(Class<?> executorClass) {
            return new Accessors(executorClass);
        }
    };

    static {
        Hooks.register(AwsSdk1Hooks.class, new AwsSdk1Hooks());
    }

    public AwsSdk1Hooks() {
        super(EXECUTE_HELPER);
    }

    @Override
    protected String layerOf(String hook, Object self) {
        return layerFor(ACCESSORS.of(self.getClass()).maxErrorRetry(self));
    }

    /** The layer for a loop that makes at most {@code maxErrorRetry} retries; -1: not known, the defaults retry. */
    static String layerFor(int maxErrorRetry) {
        return maxErrorRetry == 0 ? UpperLayer.RETRIES_OFF : UpperLayer.AWS_SDK_V1;
    }

    /** Reflective access to the executor class and its outer client's retry policy, looked up once. */
    static final class Accessors {
        final Class<?> executorClass;
        private final Field outer;
        private final Field retryPolicy;
        /** The policy class {@link #getMaxErrorRetry} belongs to, and the method; null when the SDK has neither. */
        private final Class<?> policyClass;
        private final Method getMaxErrorRetry;

        Accessors(Class<?> executorClass) {
            this.executorClass = executorClass;
            try {
                outer = executorClass.getDeclaredField("this$0");
                outer.setAccessible(true);
                retryPolicy = outer.getType().getDeclaredField("retryPolicy");
                retryPolicy.setAccessible(true);
                Class<?> adapter;
                try {
                    adapter = Class.forName("com.amazonaws.retry.RetryPolicyAdapter", false,
                            executorClass.getClassLoader());
                } catch (ClassNotFoundException olderSdk) {
                    adapter = retryPolicy.getType(); // a legacy com.amazonaws.retry.RetryPolicy field
                }
                Method m;
                try {
                    m = adapter.getMethod("getMaxErrorRetry");
                } catch (NoSuchMethodException none) {
                    m = null;
                }
                policyClass = adapter;
                getMaxErrorRetry = m;
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("AWS SDK v1 " + executorClass.getName() + ": " + e, e);
            }
        }

        /** The executor's client's resolved retries; -1 when not known (a retry policy of the application's own). */
        int maxErrorRetry(Object executor) {
            try {
                return clientMaxErrorRetry(outer.get(executor));
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("AWS SDK v1 " + executorClass.getName() + ": " + e, e);
            }
        }

        /** {@link #maxErrorRetry} of an {@code AmazonHttpClient}. */
        int clientMaxErrorRetry(Object amazonHttpClient) {
            try {
                Object policy = retryPolicy.get(amazonHttpClient);
                if (getMaxErrorRetry == null || !policyClass.isInstance(policy)) {
                    return -1;
                }
                return (Integer) getMaxErrorRetry.invoke(policy, NO_ARGS);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("AWS SDK v1 " + executorClass.getName() + ": " + e, e);
            }
        }
    }
}
