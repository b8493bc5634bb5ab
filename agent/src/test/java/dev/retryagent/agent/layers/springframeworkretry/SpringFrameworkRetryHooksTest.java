package dev.retryagent.agent.layers.springframeworkretry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.retryagent.agent.layers.LayerTable;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.engine.LayerRetries;
import dev.retryagent.engine.UpperLayer;
import java.io.IOException;
import java.lang.reflect.Method;
import java.time.Duration;
import net.bytebuddy.jar.asm.Type;
import org.junit.jupiter.api.Test;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.core.retry.Retryable;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;
import org.springframework.util.backoff.FixedBackOff;

/** The hooked loop and the retries-on/off answers against real Spring Framework 7.0.10 templates (no network). */
class SpringFrameworkRetryHooksTest {
    private final SpringFrameworkRetryHooks hooks = new SpringFrameworkRetryHooks();

    @Test
    void theHookPointNamesTheRealLoop() throws Exception {
        HookPoint point = LayerTable.named(SpringFrameworkRetryHooks.LAYER).hookPoints().get(0);
        assertEquals(HookPoint.Where.RETRY_LOOP, point.where());
        Method execute = Class.forName(point.className()).getDeclaredMethod(point.methodName(), Retryable.class);
        assertEquals(point.descriptor(), Type.getMethodDescriptor(execute));
        assertEquals("spring-framework-retry", SpringFrameworkRetryHooks.LAYER);
    }

    @Test
    void aPolicyThatRetriesIsTheLayer() {
        assertEquals("spring-framework-retry", layerOf(new RetryTemplate())); // withDefaults(): 3 retries
        assertEquals("spring-framework-retry", layerOf(new RetryTemplate(RetryPolicy.withMaxRetries(2))));
        assertEquals("spring-framework-retry", layerOf(new RetryTemplate(RetryPolicy.builder().maxRetries(2)
                .delay(Duration.ofMillis(10)).includes(IOException.class).build())));
        // A back-off of the application's own cannot be read: a layer.
        assertEquals("spring-framework-retry", layerOf(new RetryTemplate(RetryPolicy.builder()
                .backOff(() -> () -> BackOffExecution.STOP).build())));
    }

    @Test
    void noRetriesIsRetriesOff() {
        assertEquals(UpperLayer.RETRIES_OFF, layerOf(new RetryTemplate(RetryPolicy.withMaxRetries(0))));
        assertEquals(UpperLayer.RETRIES_OFF, layerOf(new RetryTemplate(RetryPolicy.builder().maxRetries(0).build())));
        assertEquals(UpperLayer.RETRIES_OFF, layerOf(new RetryTemplate(RetryPolicy.builder()
                .backOff(new FixedBackOff(10, 0)).build())));
        ExponentialBackOff noTime = new ExponentialBackOff();
        noTime.setMaxElapsedTime(0);
        assertEquals(UpperLayer.RETRIES_OFF, layerOf(new RetryTemplate(RetryPolicy.builder().backOff(noTime).build())));
    }

    @Test
    void nothingToReadIsNoLayer() {
        assertNull(hooks.retryLayer(SpringFrameworkRetryHooks.EXECUTE, null, new Object[1]));
    }

    private String layerOf(RetryTemplate template) {
        LayerRetries layer = hooks.retryLayer(SpringFrameworkRetryHooks.EXECUTE, template, new Object[1]);
        return layer == null ? null : layer.layer();
    }
}
