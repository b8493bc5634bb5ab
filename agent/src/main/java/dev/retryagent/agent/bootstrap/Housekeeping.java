package dev.retryagent.agent.bootstrap;

import dev.retryagent.engine.RetryLog;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The agent's one thread for periodic work that is not a retry: polling the policy file, registering metrics,
 * ending log windows. Kept apart from the async retries' scheduler ({@link RetryRuntime#SCHEDULER_THREAD}) so
 * that a slow file system can never delay a retry. The thread is created by the first task, is a daemon, and
 * carries no context class loader.
 */
public final class Housekeeping {
    public static final String THREAD = "retry-agent-housekeeping";

    private static ScheduledThreadPoolExecutor executor;

    private Housekeeping() {
    }

    /**
     * Runs {@code task} every {@code periodMillis}, the first time after one period. A task that throws is logged
     * once under {@code name} and keeps its schedule: one bad run must not end the work for good.
     */
    public static synchronized void every(final String name, long periodMillis, final Runnable task) {
        if (executor == null) {
            executor = new ScheduledThreadPoolExecutor(1, new ThreadFactory() {
                @Override
                public Thread newThread(Runnable r) {
                    Thread t = new Thread(r, THREAD);
                    t.setDaemon(true);
                    t.setContextClassLoader(null);
                    return t;
                }
            });
            executor.setRemoveOnCancelPolicy(true);
        }
        executor.scheduleWithFixedDelay(new Runnable() {
            @Override
            public void run() {
                try {
                    task.run();
                } catch (Throwable t) {
                    if (t instanceof VirtualMachineError) {
                        throw (VirtualMachineError) t;
                    }
                    RetryLog.internalError("housekeeping:" + name, t);
                }
            }
        }, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }
}
