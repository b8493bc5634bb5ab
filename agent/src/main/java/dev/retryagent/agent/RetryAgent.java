package dev.retryagent.agent;

import dev.retryagent.agent.startup.AgentStartup;
import dev.retryagent.agent.startup.bootloading.BootClasses;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.security.AccessControlException;
import java.security.AccessController;
import java.security.PrivilegedAction;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;

/**
 * {@code Premain-Class} and {@code Agent-Class}. Deliberately tiny and linked to nothing but the JDK: before
 * any class of the engine may load, the classes of the nested {@code META-INF/retry-agent/bootstrap.jar}
 * (policy-core, relocated SnakeYAML and the {@code dev.retryagent.agent.bootloader} room) are made the boot loader's
 * ({@link BootClasses}), so that the one engine is visible from every class loader that loads an HTTP client. Only
 * then does {@link AgentStartup} run. Nothing thrown here reaches the application: it starts, without retries.
 */
public final class RetryAgent {
    /**
     * Set once the agent starts in a JVM, to {@code premain} or {@code attach}: a JVM-wide mark that a second
     * load sees whatever class loader its {@code RetryAgent} comes from, and that {@code attach} (and
     * {@code jcmd PID VM.system_properties}) reads from outside.
     */
    public static final String STARTED_PROPERTY = "retry-agent.started";
    /** A class of the bootstrap jar: once the boot loader finds it, the agent has started here. */
    private static final String BOOTSTRAP_MARKER = "dev.retryagent.agent.bootloader.runtime.Hooks";
    private static final String ALREADY_STARTED =
            "retry-agent already-started: this JVM runs the agent already; the second load is ignored";

    /**
     * For the start-up benchmark (agent/bench/startup-floor.sh): when set to {@code true}, premain writes one line to
     * stderr with the time each of its phases took on its thread.
     */
    static final String TIMES_PROPERTY = "retry.agent.test.startupTimes";

    private static boolean started;
    /** The line of {@link #TIMES_PROPERTY}, null unless it is set; the time of the last mark. Premain's thread only. */
    private static StringBuilder times;
    private static long firstMark;
    private static long lastMark;
    private static long firstCpu;
    private static long lastCpu;

    private RetryAgent() {
    }

    public static void premain(String args, Instrumentation inst) {
        start(args, inst, false);
    }

    public static void agentmain(String args, Instrumentation inst) {
        start(args, inst, true);
    }

    private static synchronized void start(final String args, final Instrumentation inst, final boolean attached) {
        if (started) {
            System.err.println(ALREADY_STARTED);
            return;
        }
        started = true;
        try {
            // Privileged: under a security manager the agent's start is checked against its own jar's grant only,
            // whatever called premain or agentmain.
            AccessController.doPrivileged(new PrivilegedExceptionAction<Void>() {
                @Override
                public Void run() throws Exception {
                    startPrivileged(args, inst, attached);
                    return null;
                }
            });
        } catch (Throwable t) {
            Throwable cause = t instanceof PrivilegedActionException ? t.getCause() : t;
            AccessControlException denied = denial(cause);
            if (denied != null) {
                // Not started: an attach may try again, unless boot classes were defined (bootstrapClassesLoaded).
                started = false;
                unmarkStarted();
                System.err.println("retry-agent permission-missing where=start permission=" + denied.getPermission()
                        + "; the agent is not started and the application runs without retries (grant the agent"
                        + " jar java.security.AllPermission: docs/reference.md#under-a-security-manager)");
            } else {
                System.err.println("retry-agent start-failed error=" + cause.getClass().getName()
                        + " message=" + cause.getMessage() + "; the application runs without retries");
            }
        }
        if (times != null) {
            mark("rest");
            System.err.println(times.append(" total=").append((lastMark - firstMark) / 1000).append('/')
                    .append((lastCpu - firstCpu) / 1000));
            times = null;
        }
    }

    private static void startPrivileged(String args, Instrumentation inst, boolean attached) throws Exception {
        if (System.getProperty(STARTED_PROPERTY) != null || bootstrapClassesLoaded()) {
            System.err.println(ALREADY_STARTED);
            return;
        }
        if (Boolean.getBoolean(TIMES_PROPERTY)) {
            times = new StringBuilder("retry-agent startup-times");
            firstCpu = threadCpuNanos();
            lastCpu = firstCpu;
            firstMark = System.nanoTime();
            lastMark = firstMark;
        }
        System.setProperty(STARTED_PROPERTY, attached ? "attach" : "premain");
        loadBootstrapClasses(inst);
        AgentStartup.start(args, inst, attached);
    }

    /** So that {@code attach} reports a start that a security policy stopped as not started. */
    private static void unmarkStarted() {
        try {
            AccessController.doPrivileged(new PrivilegedAction<Void>() {
                @Override
                public Void run() {
                    System.clearProperty(STARTED_PROPERTY);
                    return null;
                }
            });
        } catch (SecurityException e) {
            // the mark was never set then: reading or writing it was what the policy refused
        }
    }

    /**
     * The security manager's refusal that {@code t} is, or was caused by (through reflection's wrappers), else null.
     * Not {@code RetryLog}'s: that class may be what could not be loaded.
     */
    private static AccessControlException denial(Throwable t) {
        for (int depth = 0; t != null && depth < 8; depth++, t = t.getCause()) {
            if (t instanceof AccessControlException && ((AccessControlException) t).getPermission() != null) {
                return (AccessControlException) t;
            }
        }
        return null;
    }

    /**
     * Ends the phase {@code name} of {@link #TIMES_PROPERTY}'s line: its wall and its thread's CPU time, in
     * microseconds ({@code wall/cpu}). Nothing unless the property is set.
     */
    public static void mark(String name) {
        StringBuilder line = times;
        if (line != null) {
            long now = System.nanoTime();
            long cpu = threadCpuNanos();
            line.append(' ').append(name).append('=').append((now - lastMark) / 1000).append('/')
                    .append((cpu - lastCpu) / 1000);
            lastMark = now;
            lastCpu = cpu;
        }
    }

    /**
     * The CPU time of the calling thread (Linux: the first field of {@code /proc/thread-self/schedstat}), so that the
     * phases' figures hold on a loaded machine; 0 where that cannot be read. Not through {@code ThreadMXBean}: JMX
     * would cost the start-up more than it measures.
     */
    private static long threadCpuNanos() {
        try {
            FileInputStream in = new FileInputStream("/proc/thread-self/schedstat");
            try {
                byte[] bytes = new byte[64];
                int n = in.read(bytes);
                long nanos = 0;
                for (int i = 0; i < n && bytes[i] >= '0' && bytes[i] <= '9'; i++) {
                    nanos = nanos * 10 + (bytes[i] - '0');
                }
                return nanos;
            } finally {
                in.close();
            }
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * True when an earlier start gave the boot loader the bootstrap classes, even one whose mark was since removed
     * from the system properties: a second set would start a second transformer.
     */
    private static boolean bootstrapClassesLoaded() {
        try {
            Class.forName(BOOTSTRAP_MARKER, false, null);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /**
     * Makes the bootstrap classes the boot loader's: defined there directly where the JVM allows it
     * ({@link BootClasses}), else (Java 8) by appending the nested bootstrap jar to the boot loader's search path,
     * which turns class sharing off for the application's classes.
     */
    private static void loadBootstrapClasses(Instrumentation inst) throws Exception {
        boolean defined = false;
        try {
            if (BootClasses.openUnsafe(inst, agentJar())) {
                mark("open-unsafe");
                BootClasses.defineCore();
                mark("define-core");
                defined = true;
            }
        } catch (Exception e) {
            BootClasses.release();
            if (denial(e) != null) {
                throw e; // appending the jar needs what was refused here, and more
            }
            BootClasses.defineFailed(e);
        }
        if (!defined) {
            BootClasses.appendBootstrapJar(inst, agentJar());
        }
    }

    private static File agentJar() throws Exception {
        return new File(RetryAgent.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
