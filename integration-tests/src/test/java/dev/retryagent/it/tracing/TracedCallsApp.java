package dev.retryagent.it.tracing;

import dev.retryagent.it.apps.Report;
import dev.retryagent.it.clients.KitReply;
import dev.retryagent.it.clients.KitRequest;
import dev.retryagent.it.clients.Kits;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * An application traced by the OpenTelemetry agent, with no agent code: one GET per argument {@code ID=CLIENT=URL}
 * (CLIENT as {@link Kits} names them, {@code -async} for the client's asynchronous API), each inside a span of the
 * application's own named {@code call ID}, as a service makes its calls inside the span of the request it serves.
 * Prints {@code RESULT id=.. status=.. trace=.. parent=..} (the trace and span ids of that span) or
 * {@code RESULT id=.. failure=CLASS ...}, then {@code DONE}; the OpenTelemetry agent exports the spans as it exits.
 */
public final class TracedCallsApp {
    public static void main(String[] argv) throws Exception {
        Tracer tracer = GlobalOpenTelemetry.getTracer("traced-calls-app");
        try (Kits kits = new Kits()) {
            for (String arg : argv) {
                String[] parts = arg.split("=", 3);
                String id = parts[0];
                Span parent = tracer.spanBuilder("call " + id).startSpan();
                String trace = parent.getSpanContext().getTraceId();
                String parentId = parent.getSpanContext().getSpanId();
                try (Scope ignored = parent.makeCurrent()) {
                    KitReply reply = kits.call(parts[1], KitRequest.get(parts[2]), 1, TimeUnit.MINUTES);
                    Report.line("RESULT", "id", id, "status", reply.status(), "trace", trace, "parent", parentId);
                } catch (Exception e) {
                    Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
                    Report.line("RESULT", "id", id, "failure", cause.getClass().getName(), "trace", trace,
                            "parent", parentId);
                } finally {
                    parent.end();
                }
            }
        }
        Report.line("DONE");
        System.exit(0);
    }
}
