package dev.retryagent.agent.layers.awssdk2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.retryagent.agent.layers.LayerTable;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.engine.LayerRetries;
import dev.retryagent.engine.UpperLayer;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import net.bytebuddy.jar.asm.Type;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.client.config.SdkClientConfiguration;
import software.amazon.awssdk.core.client.config.SdkClientOption;
import software.amazon.awssdk.core.internal.http.HttpClientDependencies;
import software.amazon.awssdk.core.internal.http.pipeline.stages.RetryableStage;
import software.amazon.awssdk.core.retry.RetryPolicy;
import software.amazon.awssdk.retries.api.RetryStrategy;

/** What the handler answers for the SDK's own retry stage, built as the SDK builds it, per retry configuration. */
class AwsSdk2HooksTest {
    private final AwsSdk2Hooks hooks = new AwsSdk2Hooks();

    private String layer(SdkClientConfiguration config) {
        RetryableStage<Object> stage = new RetryableStage<>(
                HttpClientDependencies.builder().clientConfiguration(config).build(), null);
        LayerRetries layer = hooks.retryLayer(AwsSdk2Hooks.RETRYABLE_STAGE, stage, new Object[2]);
        return layer == null ? null : layer.layer();
    }

    private String strategy(RetryStrategy strategy) {
        return layer(SdkClientConfiguration.builder().option(SdkClientOption.RETRY_STRATEGY, strategy).build());
    }

    @Test
    void aStrategyOfOneAttemptIsRetriesOff() {
        assertEquals(UpperLayer.RETRIES_OFF, strategy(AwsRetryStrategy.doNotRetry()));
        assertEquals(UpperLayer.RETRIES_OFF, strategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
                .maxAttempts(1).build()));
    }

    @Test
    void aStrategyThatRetriesIsTheLayer() {
        assertEquals(UpperLayer.AWS_SDK_V2, strategy(AwsRetryStrategy.standardRetryStrategy()));
        assertEquals(UpperLayer.AWS_SDK_V2, strategy(AwsRetryStrategy.legacyRetryStrategy()));
        assertEquals(UpperLayer.AWS_SDK_V2, strategy(AwsRetryStrategy.adaptiveRetryStrategy()));
    }

    @Test
    void aLegacyRetryPolicyIsReadFirstAsTheSdkDoes() {
        assertEquals(UpperLayer.RETRIES_OFF, layer(SdkClientConfiguration.builder()
                .option(SdkClientOption.RETRY_POLICY, RetryPolicy.none())
                .option(SdkClientOption.RETRY_STRATEGY, AwsRetryStrategy.standardRetryStrategy()).build()));
        assertEquals(UpperLayer.AWS_SDK_V2, layer(SdkClientConfiguration.builder()
                .option(SdkClientOption.RETRY_POLICY, RetryPolicy.defaultRetryPolicy()).build()));
    }

    @Test
    void nothingConfiguredIsTheSdkDefaultWhichRetries() {
        assertEquals(UpperLayer.AWS_SDK_V2, layer(SdkClientConfiguration.builder().build()));
    }

    @Test
    void theHookedMethodIsTheStageLoopWithThisDescriptor() {
        HookPoint point = LayerTable.named(UpperLayer.AWS_SDK_V2).hookPoints().get(0);
        assertEquals(RetryableStage.class.getName(), point.className());
        int found = 0;
        for (Method m : RetryableStage.class.getDeclaredMethods()) {
            if (m.getName().equals(point.methodName()) && !m.isBridge()
                    && Type.getMethodDescriptor(m).equals(point.descriptor())) {
                assertFalse(Modifier.isAbstract(m.getModifiers()));
                found++;
            }
        }
        assertEquals(1, found);
    }
}
