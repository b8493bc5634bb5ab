package dev.retryagent.agent.clients.jdkhttp;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The caller's thread of a {@code send} gets the next attempt when it is due, nothing once the call is done. */
class CallerThreadTest {
    private final CallerThreadScheduler waits = new CallerThreadScheduler();
    private final CompletableFuture<Object> done = new CompletableFuture<>();

    @Test
    void anAttemptThatIsDueIsHandedToTheCallerOnce() throws InterruptedException {
        Runnable next = () -> { };
        waits.schedule(next, 0);
        assertSame(next, waits.awaitDue(done));
        done.complete("response");
        assertNull(waits.awaitDue(done), "nothing more once the call is done");
    }

    @Test
    void aDoneCallEndsTheWaitEvenWithAnAttemptScheduled() throws InterruptedException {
        waits.schedule(() -> { }, 60_000);
        done.complete("response");
        assertNull(waits.awaitDue(done));
    }

    @Test
    void anInterruptEndsTheWaitAndIsReported() {
        waits.schedule(() -> { }, 60_000);
        Thread.currentThread().interrupt();
        try {
            assertThrows(InterruptedException.class, () -> waits.awaitDue(done));
        } finally {
            assertTrue(!Thread.interrupted(), "the flag was consumed by the wait, as Object.wait does");
        }
    }
}
