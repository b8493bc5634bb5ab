package dev.retryagent.agent.layers.failsafe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.failsafe.CircuitBreaker;
import dev.failsafe.Failsafe;
import dev.failsafe.Policy;
import dev.failsafe.RetryPolicy;
import dev.failsafe.Timeout;
import dev.retryagent.agent.LibraryClassFiles;
import dev.retryagent.agent.layers.LayerTable;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.engine.LayerRetries;
import dev.retryagent.engine.UpperLayer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Failsafe 3.0.0 and 2.4.4, as compiled against. */
class FailsafeHooksTest {
    private final FailsafeHooks hooks = new FailsafeHooks();

    /** What the handler answers from inside a real synchronous execution of {@code policies} (its context). */
    @SafeVarargs
    private String fromInside(Policy<Object>... policies) {
        Object execution = Failsafe.with(policies[0], java.util.Arrays.copyOfRange(policies, 1, policies.length))
                .get(ctx -> ctx);
        assertEquals(FailsafeHooks.SYNC_EXECUTION, execution.getClass().getName());
        return name(hooks.retryLayer(FailsafeHooks.SYNC, execution, new Object[0]));
    }

    private static String name(LayerRetries layer) {
        return layer == null ? null : layer.layer();
    }

    @Test
    void aRetryPolicyThatRetriesIsTheLayer() {
        assertEquals("failsafe", fromInside(RetryPolicy.ofDefaults()));
        assertEquals("failsafe", fromInside(RetryPolicy.builder().withMaxRetries(-1).build()));
        assertEquals("failsafe", fromInside(Timeout.of(Duration.ofSeconds(5)),
                RetryPolicy.builder().withMaxAttempts(2).build()));
    }

    @Test
    void noRetriesIsRetriesOffAndNoRetryPolicyIsNoLoop() {
        assertSame(UpperLayer.RETRIES_OFF, fromInside(RetryPolicy.builder().withMaxRetries(0).build()));
        assertSame(UpperLayer.RETRIES_OFF, fromInside(RetryPolicy.builder().withMaxAttempts(1).build(),
                Timeout.of(Duration.ofSeconds(5))));
        assertNull(fromInside(CircuitBreaker.ofDefaults()));
        assertNull(fromInside(Timeout.of(Duration.ofSeconds(5))));
        assertEquals("failsafe", FailsafeHooks.layerOf(List.of(RetryPolicy.builder().withMaxRetries(0).build(),
                RetryPolicy.ofDefaults())));
    }

    @Test
    void failsafe2() {
        net.jodah.failsafe.FailsafeExecutor<Object> on = net.jodah.failsafe.Failsafe.with(
                new net.jodah.failsafe.RetryPolicy<>().withMaxRetries(2));
        assertEquals("failsafe", name(hooks.retryLayer(FailsafeHooks.SYNC_2, on, new Object[1])));
        net.jodah.failsafe.FailsafeExecutor<Object> off = net.jodah.failsafe.Failsafe.with(
                new net.jodah.failsafe.RetryPolicy<>().withMaxRetries(0),
                new net.jodah.failsafe.CircuitBreaker<>());
        assertSame(LayerRetries.RETRIES_OFF, hooks.retryLayer(FailsafeHooks.SYNC_2, off, new Object[1]));
        net.jodah.failsafe.FailsafeExecutor<Object> none = net.jodah.failsafe.Failsafe.with(
                new net.jodah.failsafe.CircuitBreaker<>());
        assertNull(hooks.retryLayer(FailsafeHooks.SYNC_2, none, new Object[1]));
    }

    @Test
    void theHookedMethodsExist() {
        boolean seen3 = false;
        for (HookPoint point : LayerTable.named(FailsafeHooks.LAYER).hookPoints()) {
            assertEquals(HookPoint.Where.RETRY_LOOP, point.where());
            boolean there = LibraryClassFiles.concreteMethods(point.className())
                    .containsKey(point.methodName() + point.descriptor());
            if (point.className().equals(FailsafeHooks.SYNC_EXECUTION)) {
                seen3 |= there; // one descriptor per release line (3.0: the ExecutionResult)
            } else {
                assertTrue(there, point.toString());
            }
        }
        assertTrue(seen3, "executeSync of Failsafe 3.0.0");
    }
}
