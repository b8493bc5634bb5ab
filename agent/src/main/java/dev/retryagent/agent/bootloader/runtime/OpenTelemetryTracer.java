package dev.retryagent.agent.bootloader.runtime;

import dev.retryagent.engine.CallTrace;
import dev.retryagent.engine.CallTracer;
import dev.retryagent.engine.RetryLog;
import java.util.logging.Level;

/**
 * The loops' {@link CallTracer}: the OpenTelemetry Java agent's tracing when that agent runs in this JVM, else none.
 * It looks once, at the first call the agent may retry, not at start-up: the two agents' {@code premain}s run in
 * their {@code -javaagent} order, and either may come first. The OpenTelemetry agent puts its API, relocated under
 * {@code io.opentelemetry.javaagent.shaded}, on the boot loader's path; only if the boot loader finds it is
 * {@code OpenTelemetryCalls}, the one class that links to it, ever run. Without that agent no class of
 * OpenTelemetry's is loaded, and each call pays one read of a volatile field.
 */
public final class OpenTelemetryTracer implements CallTracer {
    /** A class of the OpenTelemetry agent's boot path that {@code OpenTelemetryCalls} needs: 2.x agents have it. */
    static final String PROBE = "io.opentelemetry.javaagent.shaded.instrumentation.api.semconv.http."
            + "HttpClientRequestResendCount";

    public static final OpenTelemetryTracer INSTANCE = new OpenTelemetryTracer();

    /** The tracer in use, once looked for. */
    private volatile CallTracer found;

    private OpenTelemetryTracer() {
    }

    @Override
    public CallTrace callStarting() {
        CallTracer tracer = found;
        if (tracer == null) {
            tracer = look();
        }
        try {
            return tracer.callStarting();
        } catch (LinkageError e) {
            // An OpenTelemetry agent whose API differs from the one this was built against: trace nothing.
            found = CallTracer.NONE;
            RetryLog.internalError("opentelemetry", e, "calls are not traced");
            return null;
        }
    }

    /**
     * The trace context current on this thread, for a call that this thread starts and that is handed to the loop on
     * another (a reactive client's event loop, where no context is current): made current there by
     * {@link #makeCurrent}, so that the call is traced where it was made. Null when nothing traces calls.
     */
    public static Object currentContext() {
        CallTracer tracer = INSTANCE.found;
        if (tracer == null) {
            tracer = INSTANCE.look();
        }
        if (tracer == CallTracer.NONE) {
            return null;
        }
        try {
            return dev.retryagent.agent.bootloader.runtime.opentelemetry.OpenTelemetryCalls.current();
        } catch (RuntimeException e) {
            return null;
        } catch (LinkageError e) {
            return null;
        }
    }

    /** Makes {@code context} ({@link #currentContext}) current on this thread until the scope is closed; null: none. */
    public static CallTrace.Scope makeCurrent(Object context) {
        if (context == null) {
            return null;
        }
        try {
            return dev.retryagent.agent.bootloader.runtime.opentelemetry.OpenTelemetryCalls.makeCurrent(context);
        } catch (RuntimeException e) {
            return null; // the call goes untraced rather than not at all
        } catch (LinkageError e) {
            return null;
        }
    }

    private synchronized CallTracer look() {
        if (found == null) {
            found = openTelemetryAgentPresent()
                    ? new dev.retryagent.agent.bootloader.runtime.opentelemetry.OpenTelemetryCalls() : CallTracer.NONE;
            if (found != CallTracer.NONE) {
                RetryLog.agent(Level.INFO, "tracing via=opentelemetry-agent; each attempt of a call the agent"
                        + " retries is traced");
            }
        }
        return found;
    }

    /**
     * Attempt 2 or later of a call is about to be sent on the application's HttpURLConnection {@code connection}
     * ({@code OpenTelemetryConnections}); nothing without the OpenTelemetry agent.
     */
    public static void retryingConnection(java.net.HttpURLConnection connection) {
        CallTracer tracer = INSTANCE.found;
        if (tracer != null && tracer != CallTracer.NONE) {
            dev.retryagent.agent.bootloader.runtime.opentelemetry.OpenTelemetryConnections.retrying(connection);
        }
    }

    private static boolean openTelemetryAgentPresent() {
        try {
            Class.forName(PROBE, false, null);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        } catch (LinkageError e) {
            return false;
        }
    }
}
