package dev.retryagent.agent.clients.httpurlconnection;

import dev.retryagent.agent.bootloader.httpurlconnection.HttpUrlConnectionHooks;
import dev.retryagent.agent.bootloader.weaving.ClientInstrumentation;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.agent.bootloader.weaving.JavaBaseAccess;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.ClientNames;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;

/**
 * What the agent hooks in the JDK's own HttpURLConnection: the entries of {@code getInputStream()},
 * {@code getOutputStream()} and the private {@code writeRequests()} of {@code sun.net.www.protocol.http.HttpURLConnection}
 * (the same names and descriptors on Java 8 through 25, checked against the Java 17 and 25 class files by
 * HttpUrlConnectionInstrumentationTest). Why there is the package description's.
 *
 * <p>The hooked class is loaded by the bootstrap loader at start-up or soon after, often before the agent (then it is
 * retransformed: the hook changes a method body only), so its handler ({@link HttpUrlConnectionHooks}) lives on the
 * bootstrap path. {@link #prepare} gives {@code java.base} what that handler needs, through
 * {@link Instrumentation#redefineModule} (no command-line flag): a read edge to the bootstrap loader's unnamed module,
 * for the woven call to {@code Hooks}; the packages whose private state a retry resets, and {@code sun.net.www.http},
 * whose client's hidden resend it switches off, opened to that module only; and {@code sun.net} and
 * {@code sun.nio.ch}, for the check without a wait of a kept-alive connection's socket
 * ({@code bootloader.httpurlconnection.IdleConnectionCheck}), which falls back to the JDK's own check where they are
 * not open.
 */
public final class HttpUrlConnectionInstrumentation extends ClientInstrumentation {
    static final String HTTP_URL_CONNECTION = "sun.net.www.protocol.http.HttpURLConnection";
    static final String GET_INPUT_STREAM_DESCRIPTOR = "()Ljava/io/InputStream;";
    static final String GET_OUTPUT_STREAM_DESCRIPTOR = "()Ljava/io/OutputStream;";
    static final String WRITE_REQUESTS_DESCRIPTOR = "()V";
    /** What {@code java.base} opens to the bootstrap loader's unnamed module. */
    static final String[] OPENED_PACKAGES = {"sun.net.www.protocol.http", "sun.net.www", "java.net", "sun.net.www.http"};
    /** Opened as well, but not required: without them a kept-alive connection is checked the JDK's way. */
    static final String[] OPTIONAL_OPENED_PACKAGES = {"sun.net", "sun.nio.ch"};

    public HttpUrlConnectionInstrumentation() {
        super(ClientNames.HTTP_URL_CONNECTION,
                "dev.retryagent.agent.bootloader.httpurlconnection.HttpUrlConnectionHooks",
                HookPoint.entryMayReplace(HttpUrlConnectionHooks.GET_INPUT_STREAM, HTTP_URL_CONNECTION,
                        "getInputStream", GET_INPUT_STREAM_DESCRIPTOR),
                HookPoint.entryMayReplace(HttpUrlConnectionHooks.GET_OUTPUT_STREAM, HTTP_URL_CONNECTION,
                        "getOutputStream", GET_OUTPUT_STREAM_DESCRIPTOR),
                HookPoint.entry(HttpUrlConnectionHooks.WRITE_REQUESTS, HTTP_URL_CONNECTION,
                        "writeRequests", WRITE_REQUESTS_DESCRIPTOR));
    }

    @Override
    public boolean prepare(Instrumentation inst) {
        try {
            return openJavaBase(inst, HttpUrlConnectionHooks.class);
        } catch (Throwable t) {
            if (t instanceof VirtualMachineError) {
                throw (VirtualMachineError) t;
            }
            RetryLog.agent(Level.WARNING, "client-disabled client=" + ClientNames.HTTP_URL_CONNECTION
                    + " error=" + t.getClass().getName() + " message=" + t.getMessage()
                    + "; HttpURLConnection calls run without retries");
            return false;
        }
    }

    /**
     * Java 9+: {@code java.base} reads the unnamed module of {@code bootstrapClass}'s loader and opens
     * {@link #OPENED_PACKAGES} to it. True when that holds afterwards (always on Java 8, which has no modules);
     * false, with a warning, when {@code bootstrapClass} is not on the bootstrap path (the woven call could not
     * link to it from {@code java.base}).
     */
    static boolean openJavaBase(Instrumentation inst, Class<?> bootstrapClass) throws Exception {
        try {
            Class.forName("java.lang.Module");
        } catch (ClassNotFoundException java8) {
            return true;
        }
        if (bootstrapClass.getClassLoader() != null) {
            RetryLog.agent(Level.WARNING, "client-disabled client=" + ClientNames.HTTP_URL_CONNECTION
                    + " reason=handler-not-on-bootstrap-path"
                    + " loader=" + bootstrapClass.getClassLoader().getClass().getName()
                    + "; HttpURLConnection calls run without retries");
            return false;
        }
        String[] all = new String[OPENED_PACKAGES.length + OPTIONAL_OPENED_PACKAGES.length];
        System.arraycopy(OPENED_PACKAGES, 0, all, 0, OPENED_PACKAGES.length);
        System.arraycopy(OPTIONAL_OPENED_PACKAGES, 0, all, OPENED_PACKAGES.length, OPTIONAL_OPENED_PACKAGES.length);
        boolean ok = JavaBaseAccess.open(inst, bootstrapClass, all, OPENED_PACKAGES);
        if (!ok) {
            RetryLog.agent(Level.WARNING, "client-disabled client=" + ClientNames.HTTP_URL_CONNECTION
                    + " reason=java.base-not-opened; HttpURLConnection calls run without retries");
        }
        return ok;
    }
}
