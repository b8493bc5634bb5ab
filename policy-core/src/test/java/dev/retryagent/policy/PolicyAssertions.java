package dev.retryagent.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/** Field-by-field comparisons of the model, which has no equals of its own. */
final class PolicyAssertions {
    private PolicyAssertions() {
    }

    static void assertSameSettings(RetrySettings expected, RetrySettings actual) {
        assertEquals(expected.mode(), actual.mode(), "mode");
        assertEquals(expected.maxAttempts(), actual.maxAttempts(), "maxAttempts");
        assertSameBackoff(expected.backoff(), actual.backoff());
        assertEquals(expected.deadlineMillis(), actual.deadlineMillis(), "deadline");
        assertArrayEquals(expected.retryStatuses().codes(), actual.retryStatuses().codes(), "retryOn.statuses");
        assertEquals(expected.retryFailures(), actual.retryFailures(), "retryOn.failures");
        assertEquals(expected.retryAfter().honor(), actual.retryAfter().honor(), "retryAfter.honor");
        assertEquals(expected.retryAfter().maxMillis(), actual.retryAfter().maxMillis(), "retryAfter.max");
        assertEquals(expected.retryAfter().spread(), actual.retryAfter().spread(), "retryAfter.spread");
        assertEquals(expected.idempotentMethods(), actual.idempotentMethods(), "idempotentMethods");
        assertEquals(expected.idempotencyKeyHeaders(), actual.idempotencyKeyHeaders(), "idempotencyKeyHeaders");
        assertEquals(expected.budget().ratio(), actual.budget().ratio(), "budget.ratio");
        assertEquals(expected.upperLayers(), actual.upperLayers(), "upperLayers");
        assertEquals(expected.budget().minPerSecond(), actual.budget().minPerSecond(), "budget.minPerSecond");
        assertEquals(expected.toString(), actual.toString());
    }

    /** The defaults the spec gives a file that sets none, each value spelt out rather than read from the model. */
    static void assertSpecDefaults(RetrySettings d) {
        assertNull(d.mode());
        assertEquals(3, d.maxAttempts());
        assertEquals(100, d.backoff().baseMillis());
        assertEquals(2000, d.backoff().capMillis());
        assertEquals(2.0, d.backoff().multiplier());
        assertEquals(Jitter.FULL, d.backoff().jitter());
        assertEquals(10_000, d.deadlineMillis());
        assertArrayEquals(new int[] {408, 429, 502, 503, 504}, d.retryStatuses().codes());
        assertEquals(EnumSet.of(FailureKind.CONNECT, FailureKind.RESET, FailureKind.TIMEOUT), d.retryFailures());
        assertTrue(d.retryAfter().honor());
        assertEquals(30_000, d.retryAfter().maxMillis());
        assertEquals(0.5, d.retryAfter().spread());
        assertEquals(List.of("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"), new ArrayList<>(d.idempotentMethods()));
        assertEquals(List.of("Idempotency-Key"), d.idempotencyKeyHeaders());
        assertEquals(0.1, d.budget().ratio());
        assertEquals(10, d.budget().minPerSecond());
        assertSameSettings(RetrySettings.builtIn(), d);
    }

    static void assertSameBackoff(BackoffPolicy expected, BackoffPolicy actual) {
        assertEquals(expected.baseMillis(), actual.baseMillis(), "backoff.base");
        assertEquals(expected.capMillis(), actual.capMillis(), "backoff.cap");
        assertEquals(expected.multiplier(), actual.multiplier(), "backoff.multiplier");
        assertEquals(expected.jitter(), actual.jitter(), "backoff.jitter");
    }

    static void assertSamePolicy(Policy expected, Policy actual) {
        assertEquals(expected.version(), actual.version(), "version");
        assertEquals(expected.mode(), actual.mode(), "mode");
        assertEquals(expected.builtInRetries(), actual.builtInRetries(), "builtInRetries");
        assertEquals(expected.markerHeader(), actual.markerHeader(), "marker.header");
        assertSameSettings(expected.defaults(), actual.defaults());
        assertEquals(expected.rules().size(), actual.rules().size(), "number of rules");
        for (int i = 0; i < expected.rules().size(); i++) {
            Rule e = expected.rules().get(i);
            Rule a = actual.rules().get(i);
            assertEquals(e.match().toString(), a.match().toString(), "rules[" + i + "].match");
            assertSameSettings(e.settings(), a.settings());
        }
    }
}
