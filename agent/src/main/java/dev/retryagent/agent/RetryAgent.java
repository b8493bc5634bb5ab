package dev.retryagent.agent;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.instrument.Instrumentation;
import java.util.jar.JarFile;

/**
 * {@code Premain-Class} and {@code Agent-Class}. Deliberately tiny and linked to nothing but the JDK: before
 * any class of the engine may load, the nested {@code META-INF/retry-agent/bootstrap.jar} (policy-core,
 * relocated SnakeYAML and {@code dev.retryagent.agent.bootstrap}) is appended to the bootstrap search path, so
 * that the one engine is visible from every class loader that loads an HTTP client. Only then does
 * {@link AgentStartup} run. Nothing thrown here reaches the application: it starts, without retries.
 */
public final class RetryAgent {
    static final String BOOTSTRAP_JAR = "META-INF/retry-agent/bootstrap.jar";

    private static boolean started;

    private RetryAgent() {
    }

    public static void premain(String args, Instrumentation inst) {
        start(args, inst, false);
    }

    public static void agentmain(String args, Instrumentation inst) {
        start(args, inst, true);
    }

    private static synchronized void start(String args, Instrumentation inst, boolean attached) {
        if (started) {
            System.err.println("retry-agent already-started: this JVM runs the agent already; the second load is ignored");
            return;
        }
        started = true;
        try {
            inst.appendToBootstrapClassLoaderSearch(new JarFile(extractBootstrapJar()));
            AgentStartup.start(args, inst, attached);
        } catch (Throwable t) {
            System.err.println("retry-agent start-failed error=" + t.getClass().getName()
                    + " message=" + t.getMessage() + "; the application runs without retries");
        }
    }

    /** Copies the nested bootstrap jar to a private temporary file (deleted when the JVM exits). */
    private static File extractBootstrapJar() throws IOException {
        ClassLoader own = RetryAgent.class.getClassLoader();
        InputStream in = own == null ? ClassLoader.getSystemResourceAsStream(BOOTSTRAP_JAR) : own.getResourceAsStream(BOOTSTRAP_JAR);
        if (in == null) {
            throw new IOException(BOOTSTRAP_JAR + " is missing from the agent jar");
        }
        File file;
        try {
            // Files.createTempFile: readable by this user only, a name nobody can guess in advance.
            file = java.nio.file.Files.createTempFile("retry-agent-bootstrap-", ".jar").toFile();
            file.deleteOnExit();
            OutputStream out = new FileOutputStream(file);
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
