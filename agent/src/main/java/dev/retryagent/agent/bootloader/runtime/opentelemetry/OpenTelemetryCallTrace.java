package dev.retryagent.agent.bootloader.runtime.opentelemetry;

import dev.retryagent.engine.CallTrace;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;

/**
 * One call's trace under the OpenTelemetry agent ({@link OpenTelemetryCalls}). Each retry is an event
 * {@value #RETRY_EVENT} on the span of the call's context: the client's own span of the whole call where its
 * instrumentation wraps the call, else the span the call was made under.
 */
final class OpenTelemetryCallTrace implements CallTrace {
    static final String RETRY_EVENT = "retry-agent.retry";
    static final AttributeKey<Long> RESEND_COUNT = AttributeKey.longKey("http.request.resend_count");
    static final AttributeKey<Long> WAIT_MS = AttributeKey.longKey("retry-agent.wait_ms");
    static final AttributeKey<String> CAUSE = AttributeKey.stringKey("retry-agent.cause");

    private final Context context;

    OpenTelemetryCallTrace(Context context) {
        this.context = context;
    }

    @Override
    public Scope attemptStarting(int attempt) {
        try {
            return new ContextScope(context.makeCurrent());
        } catch (RuntimeException | LinkageError e) {
            return null; // the attempt goes out untraced rather than not at all
        }
    }

    @Override
    public void retrying(int nextAttempt, long waitMillis, String cause) {
        try {
            Span span = Span.fromContext(context);
            if (span.isRecording()) {
                span.addEvent(RETRY_EVENT, Attributes.of(RESEND_COUNT, (long) (nextAttempt - 1), WAIT_MS, waitMillis,
                        CAUSE, cause));
            }
        } catch (RuntimeException | LinkageError e) {
            // Tracing is a view of the call: it never changes the call's course.
        }
    }

    /** OpenTelemetry's scope of the attempt. */
    static final class ContextScope implements Scope {
        private final io.opentelemetry.context.Scope scope;

        ContextScope(io.opentelemetry.context.Scope scope) {
            this.scope = scope;
        }

        @Override
        public void close() {
            scope.close();
        }
    }
}
