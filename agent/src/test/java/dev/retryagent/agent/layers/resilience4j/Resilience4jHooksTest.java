package dev.retryagent.agent.layers.resilience4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.LibraryClassFiles;
import dev.retryagent.agent.layers.LayerTable;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.engine.LayerRetries;
import dev.retryagent.engine.UpperLayer;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Resilience4j Retry 1.7.1 (the line compiled against; 2.4.0 is checked by the integration tests). */
class Resilience4jHooksTest {
    private final Resilience4jHooks hooks = new Resilience4jHooks();

    private static Retry retry(int maxAttempts) {
        return Retry.of("r", RetryConfig.custom().maxAttempts(maxAttempts).waitDuration(Duration.ofMillis(10)).build());
    }

    @Test
    void aRetryOfMoreThanOneAttemptIsTheLayer() {
        Supplier<String> s = () -> "x";
        assertEquals("resilience4j", layer(null, retry(3), s));
        assertEquals("resilience4j", layer(retry(2), s));
        assertEquals("resilience4j", layer(Retry.ofDefaults("d"), s));
    }

    /** The name of the layer the handler answers for {@code self} and {@code args}, or null. */
    private String layer(Object self, Object... args) {
        LayerRetries layer = hooks.retryLayer(Resilience4jHooks.RETRY_LOOP, self, args);
        return layer == null ? null : layer.layer();
    }

    @Test
    void oneAttemptIsRetriesOff() {
        Object answer = hooks.retryLayer(Resilience4jHooks.RETRY_LOOP, null, new Object[]{retry(1), (Supplier<?>) () -> 1});
        assertTrue(answer == LayerRetries.RETRIES_OFF, String.valueOf(answer));
        answer = hooks.retryLayer(Resilience4jHooks.RETRY_LOOP, retry(1), new Object[]{(Runnable) () -> { }});
        assertTrue(answer == LayerRetries.RETRIES_OFF, String.valueOf(answer));
    }

    @Test
    void anythingElseIsNoLoop() {
        assertNull(hooks.retryLayer(Resilience4jHooks.RETRY_LOOP, null, new Object[]{"not a retry"}));
        assertNull(hooks.retryLayer(Resilience4jHooks.RETRY_LOOP, null, new Object[0]));
    }

    /**
     * Every synchronous loop of this Retry is hooked: each {@code lambda$decorate...} body (but the
     * {@code CompletionStage} one, which schedules its attempts on an executor) and each {@code executeX} default
     * method. A release that renumbers its lambdas fails here once compiled against.
     */
    @Test
    void everySynchronousLoopOfTheJarIsHooked() {
        Set<String> hooked = new TreeSet<>();
        for (HookPoint point : LayerTable.named(Resilience4jHooks.LAYER).hookPoints()) {
            assertEquals(HookPoint.Where.RETRY_LOOP, point.where());
            assertEquals(Retry.class.getName(), point.className());
            hooked.add(point.methodName() + point.descriptor());
        }
        Set<String> loops = new TreeSet<>();
        for (String method : LibraryClassFiles.concreteMethods(Retry.class.getName()).keySet()) {
            boolean lambda = method.startsWith("lambda$decorate") && !method.startsWith("lambda$decorateCompletionStage");
            boolean execute = method.startsWith("execute") && !method.startsWith("executeCompletionStage");
            if (lambda || execute) {
                loops.add(method);
            }
        }
        assertEquals(9 + 6, loops.size(), loops.toString());
        for (String loop : loops) {
            assertTrue(hooked.contains(loop), loop + " is not hooked: " + hooked);
        }
    }
}
