package dev.retryagent.agent;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.instrument.Instrumentation;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * {@code Premain-Class} and {@code Agent-Class}. Deliberately tiny and linked to nothing but the JDK: before
 * any class of the engine may load, the classes of the nested {@code META-INF/retry-agent/bootstrap.jar}
 * (policy-core, relocated SnakeYAML and {@code dev.retryagent.agent.bootstrap}) are made the boot loader's
 * ({@link BootClasses}), so that the one engine is visible from every class loader that loads an HTTP client. Only
 * then does {@link AgentStartup} run. Nothing thrown here reaches the application: it starts, without retries.
 */
public final class RetryAgent {
    static final String BOOTSTRAP_JAR = "META-INF/retry-agent/bootstrap.jar";
    /**
     * Set once the agent starts in a JVM, to {@code premain} or {@code attach}: a JVM-wide mark that a second
     * load sees whatever class loader its {@code RetryAgent} comes from, and that {@code attach} (and
     * {@code jcmd PID VM.system_properties}) reads from outside.
     */
    static final String STARTED_PROPERTY = "retry-agent.started";
    /** A class of the bootstrap jar: once the boot loader finds it, the agent has started here. */
    private static final String BOOTSTRAP_MARKER = "dev.retryagent.agent.bootstrap.Hooks";

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

    private static synchronized void start(String args, Instrumentation inst, boolean attached) {
        if (started || System.getProperty(STARTED_PROPERTY) != null || bootstrapClassesLoaded()) {
            System.err.println("retry-agent already-started: this JVM runs the agent already; the second load is ignored");
            return;
        }
        started = true;
        if (Boolean.getBoolean(TIMES_PROPERTY)) {
            times = new StringBuilder("retry-agent startup-times");
            firstCpu = threadCpuNanos();
            lastCpu = firstCpu;
            firstMark = System.nanoTime();
            lastMark = firstMark;
        }
        System.setProperty(STARTED_PROPERTY, attached ? "attach" : "premain");
        try {
            loadBootstrapClasses(inst);
            AgentStartup.start(args, inst, attached);
        } catch (Throwable t) {
            System.err.println("retry-agent start-failed error=" + t.getClass().getName()
                    + " message=" + t.getMessage() + "; the application runs without retries");
        }
        if (times != null) {
            mark("rest");
            System.err.println(times.append(" total=").append((lastMark - firstMark) / 1000).append('/')
                    .append((lastCpu - firstCpu) / 1000));
            times = null;
        }
    }

    /**
     * Ends the phase {@code name} of {@link #TIMES_PROPERTY}'s line: its wall and its thread's CPU time, in
     * microseconds ({@code wall/cpu}). Nothing unless the property is set.
     */
    static void mark(String name) {
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
            defined = BootClasses.defineCore(inst, agentJar());
        } catch (Exception e) {
            BootClasses.release();
            bootDefineFailed(e);
        }
        if (!defined) {
            appendBootstrapJar(inst);
        }
    }

    static void bootDefineFailed(Exception e) {
        System.err.println("retry-agent boot-define-failed error=" + e.getClass().getName()
                + " message=" + e.getMessage() + "; the bootstrap jar is appended to the boot class path instead");
    }

    /**
     * Appends (a temporary copy of) the nested bootstrap jar to the boot loader's search path. Classes defined in the
     * boot loader already stay: the boot loader looks on its path only for those it does not have.
     */
    static void appendBootstrapJar(Instrumentation inst) throws Exception {
        // Read from the agent jar directly: the class loader's resource lookup would first search every
        // module of the runtime image (milliseconds of start-up), and the JDK shares the open jar's index.
        File agentJar = agentJar();
        ZipFile zip = new ZipFile(agentJar);
        File copy;
        try {
            ZipEntry entry = zip.getEntry(BOOTSTRAP_JAR);
            if (entry == null) {
                throw new IOException(BOOTSTRAP_JAR + " is missing from " + agentJar);
            }
            copy = copyToTemporaryFile(zip.getInputStream(entry));
        } finally {
            zip.close();
        }
        inst.appendToBootstrapClassLoaderSearch(new JarFile(copy));
    }

    private static File agentJar() throws Exception {
        return new File(RetryAgent.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /** Copies the nested bootstrap jar to a temporary file (deleted when the JVM exits). */

    private static File copyToTemporaryFile(InputStream in) throws IOException {
        File file;
        try {
            file = null;
            // Not File/Files.createTempFile: their random names cost a SecureRandom, ~10 ms of start-up.
            // createNewFile is atomic (O_EXCL): it never takes a file that exists, so a name known in advance is
            // safe, and in a sticky temp directory nobody else can swap the file afterwards. (java.io rather than
            // java.nio: nothing more to load.)
            String base = "retry-agent-bootstrap-" + Long.toHexString(System.nanoTime());
            File dir = new File(System.getProperty("java.io.tmpdir"));
            for (int i = 0; file == null; i++) {
                File candidate = new File(dir, base + "-" + i + ".jar");
                if (candidate.createNewFile()) {
                    file = candidate;
                } else if (i >= 100) {
                    throw new IOException("cannot create a temporary file in " + dir);
                }
            }
            OutputStream out = new FileOutputStream(file);
            file.deleteOnExit();
            try {
                byte[] buffer = new byte[16384];
                int n;
                while ((n = in.read(buffer)) > 0) {
                    out.write(buffer, 0, n);
                }
            } finally {
                out.close();
            }
        } finally {
            in.close();
        }
        return file;
    }
}
