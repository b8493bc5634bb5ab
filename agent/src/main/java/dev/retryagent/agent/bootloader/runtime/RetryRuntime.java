package dev.retryagent.agent.bootloader.runtime;

import dev.retryagent.engine.AsyncRetryLoop;
import dev.retryagent.engine.Clock;
import dev.retryagent.engine.LogWindows;
import dev.retryagent.engine.RandomSource;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.engine.RetryLoop;
import dev.retryagent.engine.Scheduler;
import dev.retryagent.engine.Sleeper;
import dev.retryagent.policy.BuiltInRetries;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.Rule;
import java.security.AccessController;
import java.security.PrivilegedAction;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The JVM-wide retry machinery every client adapter uses: one {@link RetryEngine} (so that budgets and
 * counters are shared by all clients and class loaders), the sync and async loops, and the scheduler that
 * async retries wait on. On the bootstrap search path, next to policy-core.
 */
public final class RetryRuntime {
    /** The name of the one thread async retries wait on (docs/reference.md#interrupts-async-calls-and-cancel: never a
     * dispatcher thread). */
    public static final String SCHEDULER_THREAD = "retry-agent-scheduler";

    private static volatile RetryEngine engine;
    private static volatile RetryLoop loop;
    private static volatile AsyncRetryLoop asyncLoop;

    private RetryRuntime() {
    }

    /** Starts the runtime with {@code policy}. Called once, by the agent's start-up. */
    public static synchronized void install(Policy policy) {
        install(policy, DaemonScheduler.INSTANCE);
    }

    /**
     * Starts the runtime with {@code policy}, async retries waiting on {@code scheduler} instead of the agent's
     * scheduler thread: for tests, which then see each wait and decide when it is over.
     */
    public static synchronized void install(Policy policy, Scheduler scheduler) {
        if (scheduler == null) {
            throw new NullPointerException("scheduler");
        }
        RetryEngine e = new RetryEngine(policy, Clock.SYSTEM, RandomSource.THREAD_LOCAL);
        loop = new RetryLoop(e, Clock.SYSTEM, Sleeper.SYSTEM, OpenTelemetryTracer.INSTANCE);
        asyncLoop = new AsyncRetryLoop(e, Clock.SYSTEM, scheduler, OpenTelemetryTracer.INSTANCE);
        // The log's summary lines read this engine's counters.
        RetryLog.install(new LogWindows(e, Clock.SYSTEM, EndLogWindows.INSTANCE));
        engine = e;
    }

    /**
     * Replaces the running policy (a reload, docs/reference.md#hot-reload): calls that start afterwards run under it,
     * calls in flight finish under the one they started with. The clients' own configuration, changed when a client
     * object was built, stays as it was built (see {@link #replacesBuiltInRetries()}).
     */
    public static void setPolicy(Policy policy) {
        RetryEngine e = engine;
        if (e != null && policy != null) {
            e.setPolicy(policy);
        }
    }

    /** The engine, or null when the agent has not started (adapters then leave calls alone). */
    public static RetryEngine engine() {
        return engine;
    }

    public static RetryLoop loop() {
        return loop;
    }

    public static AsyncRetryLoop asyncLoop() {
        return asyncLoop;
    }

    /**
     * True when the clients' own hidden retries must be switched off (docs/reference.md#one-retry-layer): the policy
     * says {@code builtInRetries: replace} and the agent retries something. Observe and off change no traffic, so
     * they leave the clients' configuration alone too. For what is set once per client object; a hook that sees each
     * call asks the call's plan ({@code CallPlan.replacesClientRetries}).
     */
    public static boolean replacesBuiltInRetries() {
        RetryEngine e = engine;
        if (e == null) {
            return false;
        }
        Policy p = e.policy();
        if (p.builtInRetries() != BuiltInRetries.REPLACE) {
            return false;
        }
        if (p.effectiveMode(p.defaults()) == Mode.ENFORCE) {
            return true;
        }
        for (Rule rule : p.rules()) {
            if (p.effectiveMode(rule.settings()) == Mode.ENFORCE) {
                return true;
            }
        }
        return false;
    }

    /**
     * Ends the log's windows every second from the first one on, so that a window's summary is written when its
     * 10 s are over even if its destination sees no further event, and once more at JVM exit, so that a short run
     * does not lose the counts of its last window. A service whose calls never fail starts nothing.
     */
    private static final class EndLogWindows implements Runnable {
        static final EndLogWindows INSTANCE = new EndLogWindows();

        private boolean scheduled;

        @Override
        public synchronized void run() {
            if (scheduled) {
                return;
            }
            scheduled = true;
            Housekeeping.every("log-windows", 1000, new Runnable() {
                @Override
                public void run() {
                    RetryLog.flushWindows();
                }
            });
            // Privileged: the first event may come on an application's thread, whose grant need not include
            // shutdown hooks, and whose context the hook's thread would inherit.
            AccessController.doPrivileged(new PrivilegedAction<Void>() {
                @Override
                public Void run() {
                    Thread atExit = new Thread(new Runnable() {
                        @Override
                        public void run() {
                            // Straight to stderr, where the agent's handler writes: java.util.logging's own shutdown
                            // hook may have closed the handlers already.
                            for (String line : RetryLog.endAllWindows()) {
                                System.err.println(line);
                            }
                        }
                    }, "retry-agent-log-exit");
                    atExit.setContextClassLoader(null);
                    try {
                        Runtime.getRuntime().addShutdownHook(atExit);
                    } catch (IllegalStateException shuttingDown) {
                        // the JVM is exiting already: nothing more will be counted
                    }
                    return null;
                }
            });
        }
    }

    /**
     * One daemon thread, created at the first async retry, that only starts the next attempt when its wait
     * is over; the attempt itself runs on the client's own threads.
     */
    private static final class DaemonScheduler implements Scheduler, ThreadFactory {
        static final DaemonScheduler INSTANCE = new DaemonScheduler();

        private volatile ScheduledThreadPoolExecutor executor;

        @Override
        public void schedule(final Runnable task, long delayMillis) {
            executor().schedule(new Runnable() {
                @Override
                public void run() {
                    try {
                        task.run();
                    } catch (Throwable t) {
                        // An application callback failed on this thread; report it the way a thread would.
                        Thread self = Thread.currentThread();
                        self.getUncaughtExceptionHandler().uncaughtException(self, t);
                    }
                }
            }, Math.max(0, delayMillis), TimeUnit.MILLISECONDS);
        }

        private ScheduledThreadPoolExecutor executor() {
            ScheduledThreadPoolExecutor e = executor;
            if (e == null) {
                synchronized (this) {
                    e = executor;
                    if (e == null) {
                        e = new ScheduledThreadPoolExecutor(1, this);
                        e.setRemoveOnCancelPolicy(true);
                        executor = e;
                    }
                }
            }
            return e;
        }

        @Override
        public Thread newThread(final Runnable r) {
            // Privileged: created at the first async retry, on a client's or the application's thread, whose access
            // control context the scheduler's thread would otherwise inherit.
            return AccessController.doPrivileged(new PrivilegedAction<Thread>() {
                @Override
                public Thread run() {
                    Thread t = new Thread(r, SCHEDULER_THREAD);
                    t.setDaemon(true);
                    t.setContextClassLoader(null);
                    return t;
                }
            });
        }
    }
}
