package dev.retryagent.agent.layers.awssdk2;

import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.weaving.PerClassLookup;
import dev.retryagent.agent.bootloader.weaving.RetryLoopHandler;
import dev.retryagent.engine.UpperLayer;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * The handler of the AWS SDK v2's retry stages (its hook points: {@link dev.retryagent.agent.layers.LayerTable}): says
 * whether the loop starting here retries. Reads, by reflection, what {@code RetryableStageHelper} itself reads when the
 * loop starts: the stage's {@code dependencies.clientConfiguration()}, its option {@code SdkClientOption.RETRY_POLICY}
 * (a legacy {@code RetryPolicy}: {@code numRetries() + 1} attempts), else its option {@code RETRY_STRATEGY}
 * ({@code maxAttempts()}). {@code RetryableStage2} reads the strategy only, as its helper does.
 */
public final class AwsSdk2Hooks extends RetryLoopHandler {
    public static final String RETRYABLE_STAGE = "aws-sdk-v2.retryable-stage";
    public static final String RETRYABLE_STAGE2 = "aws-sdk-v2.retryable-stage2";

    private static final Object[] NO_ARGS = new Object[0];

    /** The accessors for each stage class (one SDK per class loader). */
    private static final PerClassLookup<Accessors> ACCESSORS = new PerClassLookup<Accessors>() {
        @Override
        protected Accessors computeValue(Class<?> stageClass) {
            return new Accessors(stageClass);
        }
    };

    static {
        Hooks.register(AwsSdk2Hooks.class, new AwsSdk2Hooks());
    }

    public AwsSdk2Hooks() {
        super(RETRYABLE_STAGE, RETRYABLE_STAGE2);
    }

    @Override
    protected String layerOf(String hook, Object self) {
        return layerFor(ACCESSORS.of(self.getClass()).maxAttempts(self, !RETRYABLE_STAGE2.equals(hook)));
    }

    /** The layer for a loop of {@code maxAttempts} attempts; 0: not known, the SDK's defaults retry. */
    static String layerFor(int maxAttempts) {
        return maxAttempts == 1 ? UpperLayer.RETRIES_OFF : UpperLayer.AWS_SDK_V2;
    }

    /** Reflective access to one stage class and the SDK types of its class loader, looked up once. */
    static final class Accessors {
        final Class<?> stageClass;
        private final Field dependencies;
        private final Method clientConfiguration;
        private final Method option;
        /** The option keys, as one-element argument arrays for {@code option}; null where the SDK has none. */
        private final Object[] retryPolicyKey;
        private final Object[] retryStrategyKey;
        private final Method numRetries;
        private final Method maxAttempts;

        Accessors(Class<?> stageClass) {
            this.stageClass = stageClass;
            ClassLoader loader = stageClass.getClassLoader();
            try {
                dependencies = stageClass.getDeclaredField("dependencies");
                dependencies.setAccessible(true);
                clientConfiguration = dependencies.getType().getMethod("clientConfiguration");
                Class<?> optionClass = Class.forName("software.amazon.awssdk.core.client.config.ClientOption",
                        false, loader);
                option = clientConfiguration.getReturnType().getMethod("option", optionClass);
                Class<?> options = Class.forName("software.amazon.awssdk.core.client.config.SdkClientOption",
                        false, loader);
                retryPolicyKey = key(options, "RETRY_POLICY");
                retryStrategyKey = key(options, "RETRY_STRATEGY");
                numRetries = method(loader, "software.amazon.awssdk.core.retry.RetryPolicy", "numRetries");
                maxAttempts = method(loader, "software.amazon.awssdk.retries.api.RetryStrategy", "maxAttempts");
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("AWS SDK v2 " + stageClass.getName() + ": " + e, e);
            }
        }

        private static Object[] key(Class<?> options, String name) throws IllegalAccessException {
            try {
                return new Object[] {options.getField(name).get(null)};
            } catch (NoSuchFieldException none) {
                return null;
            }
        }

        private static Method method(ClassLoader loader, String type, String name) throws NoSuchMethodException {
            try {
                return Class.forName(type, false, loader).getMethod(name);
            } catch (ClassNotFoundException none) {
                return null;
            }
        }

        /**
         * The attempts the stage's loop makes at most, as its helper reads them; 0 when not known. {@code policyFirst}:
         * a legacy retry policy, when configured, is what the loop runs ({@code RetryableStage}).
         */
        int maxAttempts(Object self, boolean policyFirst) {
            try {
                Object config = clientConfiguration.invoke(dependencies.get(self), NO_ARGS);
                if (config == null) {
                    return 0;
                }
                if (policyFirst && retryPolicyKey != null && numRetries != null) {
                    Object policy = option.invoke(config, retryPolicyKey);
                    if (policy != null) {
                        Object n = numRetries.invoke(policy, NO_ARGS);
                        return n instanceof Integer ? (Integer) n + 1 : 0;
                    }
                }
                if (retryStrategyKey != null && maxAttempts != null) {
                    Object strategy = option.invoke(config, retryStrategyKey);
                    if (strategy != null) {
                        return (Integer) maxAttempts.invoke(strategy, NO_ARGS);
                    }
                }
                return 0;
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("AWS SDK v2 " + stageClass.getName() + ": " + e, e);
            }
        }
    }
}
