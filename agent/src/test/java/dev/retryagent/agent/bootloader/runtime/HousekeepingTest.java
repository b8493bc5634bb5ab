package dev.retryagent.agent.bootloader.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class HousekeepingTest {
    @Test
    void tasksRunAgainAndAgainOnTheOneDaemonThreadAndAFailureKeepsTheSchedule() throws InterruptedException {
        CountDownLatch quick = new CountDownLatch(5);
        CountDownLatch failing = new CountDownLatch(3);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        Housekeeping.every("test-quick", 1, () -> {
            ranOn.set(Thread.currentThread());
            quick.countDown();
        });
        Housekeeping.every("test-failing", 2, () -> {
            failing.countDown();
            throw new IllegalStateException("a bad run");
        });
        assertTrue(quick.await(10, TimeUnit.SECONDS), "the task ran 5 times");
        assertTrue(failing.await(10, TimeUnit.SECONDS), "a task that throws keeps its schedule");
        Thread t = ranOn.get();
        assertEquals(Housekeeping.THREAD, t.getName());
        assertTrue(t.isDaemon());
        assertNull(t.getContextClassLoader());
    }
}
