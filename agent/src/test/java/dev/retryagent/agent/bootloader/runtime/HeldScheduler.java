package dev.retryagent.agent.bootloader.runtime;

import dev.retryagent.engine.Scheduler;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Scheduler} for {@link RetryRuntime#install(dev.retryagent.policy.Policy, Scheduler)} that holds every
 * wait of the async retry loop until the test ends it: a test knows when the loop is in its wait (instead of
 * sleeping until it probably is) and decides when the wait is over, on its own thread.
 */
public final class HeldScheduler implements Scheduler {
    private static final long TIMEOUT_SECONDS = 10;

    private final BlockingQueue<Wait> waits = new LinkedBlockingQueue<>();

    /** One wait of the loop: how long it asked for, and what runs when it is over. */
    public static final class Wait {
        private final Runnable task;
        private final long delayMillis;
        private final String scheduledOn;

        Wait(Runnable task, long delayMillis, String scheduledOn) {
            this.task = task;
            this.delayMillis = delayMillis;
            this.scheduledOn = scheduledOn;
        }

        public long delayMillis() {
            return delayMillis;
        }

        /** The name of the thread the loop scheduled this wait on (the one that heard the attempt end). */
        public String scheduledOn() {
            return scheduledOn;
        }

        /** Ends the wait: runs what the loop scheduled, on the calling thread. */
        public void end() {
            task.run();
        }
    }

    @Override
    public void schedule(Runnable task, long delayMillis) {
        waits.add(new Wait(task, delayMillis, Thread.currentThread().getName()));
    }

    /** The next wait the loop schedules (or has scheduled); fails the test if none comes within 10 seconds. */
    public Wait awaitWait() throws InterruptedException {
        Wait wait = waits.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (wait == null) {
            throw new AssertionError("the retry loop scheduled no wait within " + TIMEOUT_SECONDS + " s");
        }
        return wait;
    }

    /** How many waits are scheduled and not yet taken by {@link #awaitWait()}. */
    public int pending() {
        return waits.size();
    }
}
