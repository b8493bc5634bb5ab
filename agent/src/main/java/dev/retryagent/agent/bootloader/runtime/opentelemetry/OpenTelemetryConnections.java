package dev.retryagent.agent.bootloader.runtime.opentelemetry;

import io.opentelemetry.instrumentation.api.util.VirtualField;
import java.lang.reflect.Field;
import java.net.HttpURLConnection;

/**
 * The OpenTelemetry Java agent's tracing of an HttpURLConnection keeps one state per connection object: the span of
 * its request, started at the first {@code connect}, {@code getOutputStream} or {@code getInputStream} and ended
 * once, after which later calls on the same object make no span. The agent's attempts are all made on the
 * application's connection object, so when that agent's advice runs inside the retry agent's (its
 * {@code -javaagent} came first) only the first attempt would get a span, ended with the first attempt's status.
 * Before each later attempt, a state whose span has ended is forgotten: the attempt starts a span of its own, in
 * the call's context, numbered by the resend count. A state whose span is still open (that agent's advice runs
 * around the retry agent's, its span covers the whole call) is left as it is.
 *
 * <p>Reads that agent's internals by name (2.x: {@code HttpUrlConnectionSingletons.HTTP_URL_STATE} and
 * {@code HttpUrlState.finished}); where they are not found nothing is forgotten, and the connection's attempts are
 * traced as that agent alone traces them.
 */
public final class OpenTelemetryConnections {
    static final String SINGLETONS = "io.opentelemetry.javaagent.instrumentation.httpurlconnection."
            + "HttpUrlConnectionSingletons";
    static final String STATE_FIELD = "HTTP_URL_STATE";
    static final String FINISHED_FIELD = "finished";

    /** The states by connection, once looked up; {@link #ABSENT} when they could not be. */
    private static volatile Object states;
    private static final Object ABSENT = new Object();

    private OpenTelemetryConnections() {
    }

    /** Attempt 2 or later of a call is about to be sent on {@code connection}. */
    @SuppressWarnings("unchecked")
    public static void retrying(HttpURLConnection connection) {
        Object found = states;
        if (found == null) {
            found = lookUp();
        }
        if (found == ABSENT) {
            return;
        }
        try {
            VirtualField<HttpURLConnection, Object> byConnection = (VirtualField<HttpURLConnection, Object>) found;
            Object state = byConnection.get(connection);
            if (state != null && state.getClass().getField(FINISHED_FIELD).getBoolean(state)) {
                byConnection.set(connection, null);
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            states = ABSENT; // an agent whose internals differ: its own tracing of the connection stands
        }
    }

    private static Object lookUp() {
        Object found;
        try {
            Class<?> singletons = Class.forName(SINGLETONS, false, null);
            Field field = singletons.getField(STATE_FIELD);
            Object value = field.get(null);
            found = value instanceof VirtualField ? value : ABSENT;
        } catch (ClassNotFoundException e) {
            return ABSENT; // not yet defined (no connection traced yet): looked up again at the next retry
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            found = ABSENT;
        }
        states = found;
        return found;
    }
}
