package dev.retryagent.agent.clients.jdkhttp;

import dev.retryagent.engine.Scheduler;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The waits of one {@code send} call: the retry loop schedules the next attempt here, and the caller's thread, which
 * waits in {@link #awaitDue}, runs it when it is due. So a {@code send} sleeps on its own thread (an interrupt ends
 * the wait) and makes every attempt there, as the client does without the agent, while the decisions are taken when
 * each response head arrives.
 */
final class CallerThreadScheduler implements Scheduler, Runnable {
    private Runnable task;
    private long dueNanos;

    @Override
    public synchronized void schedule(Runnable next, long delayMillis) {
        task = next;
        dueNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMillis);
        notifyAll();
    }

    /** The call is done: wakes the caller. */
    @Override
    public synchronized void run() {
        notifyAll();
    }

    /** The next attempt once it is due, or null once {@code done} is. */
    synchronized Runnable awaitDue(Future<?> done) throws InterruptedException {
        while (!done.isDone()) {
            if (task == null) {
                wait(1000); // woken by schedule() or run(); the bound only guards against a lost wake-up
                continue;
            }
            long left = dueNanos - System.nanoTime();
            if (left <= 0) {
                Runnable due = task;
                task = null;
                return due;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return null;
    }
}
