package dev.retryagent.agent.layers.springretry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.retryagent.agent.layers.LayerTable;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.engine.LayerRetries;
import dev.retryagent.engine.UpperLayer;
import java.io.IOException;
import java.lang.reflect.Method;
import net.bytebuddy.jar.asm.Type;
import org.junit.jupiter.api.Test;
import org.springframework.retry.RecoveryCallback;
import org.springframework.retry.RetryPolicy;
import org.springframework.retry.RetryCallback;
import org.springframework.retry.RetryState;
import org.springframework.retry.policy.AlwaysRetryPolicy;
import org.springframework.retry.policy.CompositeRetryPolicy;
import org.springframework.retry.policy.MaxAttemptsRetryPolicy;
import org.springframework.retry.policy.NeverRetryPolicy;
import org.springframework.retry.policy.SimpleRetryPolicy;
import org.springframework.retry.support.RetryTemplate;

/** The hooked loop and the retries-on/off answers against real Spring Retry 2.0.13 templates (no network). */
class SpringRetryHooksTest {
    private final SpringRetryHooks hooks = new SpringRetryHooks();

    @Test
    void theHookPointNamesTheRealLoop() throws Exception {
        HookPoint point = LayerTable.named(SpringRetryHooks.LAYER).hookPoints().get(0);
        assertEquals(HookPoint.Where.RETRY_LOOP, point.where());
        Method doExecute = Class.forName(point.className()).getDeclaredMethod(point.methodName(),
                RetryCallback.class, RecoveryCallback.class, RetryState.class);
        assertEquals(point.descriptor(), Type.getMethodDescriptor(doExecute));
        assertEquals("spring-retry", SpringRetryHooks.LAYER);
    }

    @Test
    void aTemplateThatRetriesIsTheSpringRetryLayer() {
        assertEquals("spring-retry", layerOf(RetryTemplate.builder().maxAttempts(3).fixedBackoff(10)
                .retryOn(IOException.class).build()));
        assertEquals("spring-retry", layerOf(new RetryTemplate())); // SimpleRetryPolicy, 3 attempts
        assertEquals("spring-retry", layerOf(template(new MaxAttemptsRetryPolicy(2))));
        assertEquals("spring-retry", layerOf(template(new AlwaysRetryPolicy()))); // getMaxAttempts() -1: not said
        assertEquals("spring-retry", layerOf(RetryTemplate.builder().withTimeout(1000).build()));
    }

    @Test
    void oneAttemptOnlyIsRetriesOff() {
        assertEquals(UpperLayer.RETRIES_OFF, layerOf(template(new NeverRetryPolicy())));
        assertEquals(UpperLayer.RETRIES_OFF, layerOf(RetryTemplate.builder().maxAttempts(1).build()));
        assertEquals(UpperLayer.RETRIES_OFF, layerOf(template(new SimpleRetryPolicy(1))));
        assertEquals(UpperLayer.RETRIES_OFF, layerOf(template(new MaxAttemptsRetryPolicy(1))));
    }

    /** 1.3's builder makes a composite of a max-attempts policy and a classifier policy. */
    @Test
    void aCompositeIsOffWhenItsPartsSaySo() {
        assertEquals(UpperLayer.RETRIES_OFF, layerOf(template(composite(false, new MaxAttemptsRetryPolicy(1),
                new AlwaysRetryPolicy()))));
        assertEquals("spring-retry", layerOf(template(composite(false, new MaxAttemptsRetryPolicy(3),
                new AlwaysRetryPolicy()))));
        assertEquals("spring-retry", layerOf(template(composite(true, new MaxAttemptsRetryPolicy(1),
                new AlwaysRetryPolicy()))));
        assertEquals(UpperLayer.RETRIES_OFF, layerOf(template(composite(true, new NeverRetryPolicy(),
                composite(false, new MaxAttemptsRetryPolicy(1))))));
    }

    private static CompositeRetryPolicy composite(boolean optimistic, RetryPolicy... parts) {
        CompositeRetryPolicy c = new CompositeRetryPolicy();
        c.setOptimistic(optimistic);
        c.setPolicies(parts);
        return c;
    }

    /** A subclass of the template reads the same private field. */
    @Test
    void aSubclassOfTheTemplateIsReadToo() {
        RetryTemplate sub = new RetryTemplate() {
        };
        sub.setRetryPolicy(new NeverRetryPolicy());
        assertEquals(UpperLayer.RETRIES_OFF, layerOf(sub));
    }

    @Test
    void nothingToReadIsNoLayer() {
        assertNull(hooks.retryLayer(SpringRetryHooks.DO_EXECUTE, null, new Object[3]));
    }

    private static RetryTemplate template(RetryPolicy policy) {
        RetryTemplate t = new RetryTemplate();
        t.setRetryPolicy(policy);
        return t;
    }

    private String layerOf(RetryTemplate template) {
        LayerRetries layer = hooks.retryLayer(SpringRetryHooks.DO_EXECUTE, template, new Object[3]);
        return layer == null ? null : layer.layer();
    }
}
