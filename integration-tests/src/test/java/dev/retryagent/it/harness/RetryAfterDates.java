package dev.retryagent.it.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/** The check of a {@code Retry-After} HTTP-date: the retry arrives no earlier than the date the server sent. */
public final class RetryAfterDates {
    private RetryAfterDates() {
    }

    /**
     * {@code seen} is the 429 carrying {@code until} and the retry. The header has whole seconds, so the server asked
     * for {@code until} truncated to the second; a first request that arrived after that would make the check void.
     */
    public static void assertNotBefore(Instant until, List<RecordedRequest> seen) {
        assertEquals(2, seen.size(), seen.toString());
        Instant asked = until.truncatedTo(ChronoUnit.SECONDS);
        assertFalse(seen.get(0).arrivedAt().isAfter(asked),
                "the call came after the date it was to be told (too slow to test): " + seen.get(0).arrivedAt());
        assertTrue(!seen.get(1).arrivedAt().isBefore(asked),
                "retried at " + seen.get(1).arrivedAt() + ", before the Retry-After date " + asked);
    }
}
