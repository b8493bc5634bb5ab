package dev.retryagent.agent.bootloader.runtime.opentelemetry;

import dev.retryagent.engine.CallTrace;
import dev.retryagent.engine.CallTracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.instrumentation.api.semconv.http.HttpClientRequestResendCount;

/**
 * The calls the agent may retry, as the OpenTelemetry Java agent traces them. Compiled against OpenTelemetry's API
 * and instrumentation API and relocated, in the bootstrap jar, to the names that agent gives them on the boot
 * loader's path ({@code io.opentelemetry.javaagent.shaded...}): the context it reads is the one its own
 * instrumentation of the clients reads. Only {@code OpenTelemetryTracer} makes one, once it found that agent.
 *
 * <p>A call's context is the one current where it starts, with OpenTelemetry's count of the call's resends in it
 * ({@code HttpClientRequestResendCount}, which the client instrumentations start from when it is there). Every
 * attempt runs in that context, so an instrumentation that makes a span per attempt puts them all under the call's
 * parent and numbers them: {@code http.request.resend_count} from the second on.
 */
public final class OpenTelemetryCalls implements CallTracer {
    @Override
    public CallTrace callStarting() {
        return new OpenTelemetryCallTrace(HttpClientRequestResendCount.initialize(Context.current()));
    }

    /** The context current on this thread. */
    public static Object current() {
        return Context.current();
    }

    /** Makes {@code context}, one {@link #current} gave, current on this thread until the scope is closed. */
    public static CallTrace.Scope makeCurrent(Object context) {
        return new OpenTelemetryCallTrace.ContextScope(((Context) context).makeCurrent());
    }
}
