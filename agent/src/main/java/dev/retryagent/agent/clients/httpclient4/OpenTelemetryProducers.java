package dev.retryagent.agent.clients.httpclient4;

import dev.retryagent.agent.bootloader.weaving.PerClassLookup;
import java.lang.reflect.Field;
import org.apache.http.nio.protocol.HttpAsyncRequestProducer;

/**
 * The OpenTelemetry Java agent wraps the producer of every {@code execute} of an async client in a producer of its
 * own, which starts the client span of the call the first time the client asks it for the request. When its advice
 * runs before this agent's (its {@code -javaagent} came second), the producer the retry loop is handed is that
 * wrapper: used for the call, it would make one span for the whole call beside the span of each attempt, which that
 * agent's advice makes again when an attempt re-enters {@code execute}. The loop takes the application's own
 * producer from inside it instead, so the trace has exactly one client span per request. The wrapper's callback,
 * which the caller's answer still goes through, ends no span it did not start.
 */
final class OpenTelemetryProducers {
    /** OpenTelemetry Java agent 2.x's wrapper, and its field holding the application's producer. */
    static final String WRAPPER = "io.opentelemetry.javaagent.instrumentation.apachehttpasyncclient."
            + "ApacheHttpAsyncClientInstrumentation$DelegatingRequestProducer";
    static final String DELEGATE_FIELD = "delegate";

    /** The wrapper's {@value #DELEGATE_FIELD}, made accessible. */
    private static final PerClassLookup<Field> DELEGATE = new PerClassLookup<Field>() {
        @Override
        protected Field computeValue(Class<?> wrapper) {
            Field f = accessibleField(wrapper, DELEGATE_FIELD);
            if (f == null) {
                throw new IllegalStateException(wrapper.getName() + " has no " + DELEGATE_FIELD);
            }
            return f;
        }
    };

    private OpenTelemetryProducers() {
    }

    /** The application's producer inside {@code producer}, or {@code producer} itself when it wraps none. */
    static HttpAsyncRequestProducer applicationProducer(HttpAsyncRequestProducer producer) {
        if (producer == null || !WRAPPER.equals(producer.getClass().getName())) {
            return producer;
        }
        try {
            Object inner = DELEGATE.of(producer.getClass()).get(producer);
            return inner instanceof HttpAsyncRequestProducer ? (HttpAsyncRequestProducer) inner : producer;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return producer; // another version of that agent: its span of the whole call stays
        }
    }
}
