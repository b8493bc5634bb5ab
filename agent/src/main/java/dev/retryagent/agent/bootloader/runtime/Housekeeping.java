package dev.retryagent.agent.bootloader.runtime;

import dev.retryagent.engine.RetryLog;
import java.security.AccessController;
import java.security.PrivilegedAction;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The agent's one thread for periodic work that is not a retry: polling the policy file, registering metrics,
 * ending log windows. Kept apart from the async retries' scheduler ({@link RetryRuntime#SCHEDULER_THREAD}) so
 * that a slow file system can never delay a retry. A plain daemon thread rather than a
 * {@code ScheduledThreadPoolExecutor}: premain schedules these tasks, and the executor's classes and set-up cost
 * several milliseconds of every start (measured: 2.7-4.4 ms against 0.4-0.7 ms). The thread is created by the first
 * task and carries no context class loader.
 */
public final class Housekeeping {
    public static final String THREAD = "retry-agent-housekeeping";

    /** Guarded by the class lock. */
    private static final List<Task> TASKS = new ArrayList<Task>();
    private static Thread thread;

    private Housekeeping() {
    }

    /**
     * Runs {@code task} every {@code periodMillis}, the first time after one period. A task that throws is logged
     * once under {@code name} and keeps its schedule: one bad run must not end the work for good.
     */
    public static synchronized void every(String name, long periodMillis, Runnable task) {
        if (periodMillis <= 0) {
            throw new IllegalArgumentException("periodMillis " + periodMillis);
        }
        long periodNanos = TimeUnit.MILLISECONDS.toNanos(periodMillis);
        TASKS.add(new Task(name, periodNanos, task, System.nanoTime() + periodNanos));
        if (thread == null) {
            // Privileged: the first task may be scheduled on an application's thread, and a thread inherits its
            // creator's access control context: the agent's own work must not run under the application's grant.
            thread = AccessController.doPrivileged(new PrivilegedAction<Thread>() {
                @Override
                public Thread run() {
                    Thread t = new Thread(new Runnable() {
                        @Override
                        public void run() {
                            loop();
                        }
                    }, THREAD);
                    t.setDaemon(true);
                    t.setContextClassLoader(null);
                    t.start();
                    return t;
                }
            });
        } else {
            Housekeeping.class.notifyAll();
        }
    }

    private static void loop() {
        List<Task> due = new ArrayList<Task>();
        while (true) {
            synchronized (Housekeeping.class) {
                long now = System.nanoTime();
                long waitNanos = Long.MAX_VALUE;
                for (Task t : TASKS) {
                    long left = t.nextNanos - now;
                    if (left <= 0) {
                        due.add(t);
                        t.nextNanos = now + t.periodNanos;
                        left = t.periodNanos;
                    }
                    waitNanos = Math.min(waitNanos, left);
                }
                if (due.isEmpty()) {
                    try {
                        // At least 1 ms: a wait of 0 would mean "forever".
                        Housekeeping.class.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos)));
                    } catch (InterruptedException e) {
                        return; // nobody but the JVM's shutdown interrupts a daemon thread of ours
                    }
                    continue;
                }
            }
            // Outside the lock: a slow task must not block a new registration on an application thread.
            for (Task t : due) {
                t.runOnce();
            }
            due.clear();
        }
    }

    private static final class Task {
        final String name;
        final long periodNanos;
        final Runnable work;
        /** Guarded by the class lock. */
        long nextNanos;

        Task(String name, long periodNanos, Runnable work, long nextNanos) {
            this.name = name;
            this.periodNanos = periodNanos;
            this.work = work;
            this.nextNanos = nextNanos;
        }

        void runOnce() {
            try {
                work.run();
            } catch (Throwable t) {
                if (t instanceof VirtualMachineError) {
                    throw (VirtualMachineError) t;
                }
                RetryLog.internalError("housekeeping:" + name, t, "the task runs again at its next turn; calls are not affected");
            }
        }
    }
}
