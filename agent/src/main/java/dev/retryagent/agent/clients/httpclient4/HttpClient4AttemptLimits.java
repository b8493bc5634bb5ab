package dev.retryagent.agent.clients.httpclient4;

import dev.retryagent.agent.bootloader.weaving.PerClassLookup;
import java.lang.reflect.Field;
import org.apache.http.client.config.RequestConfig;

/**
 * An attempt's time limit from the policy as HttpClient 4 takes it: the request's own {@code RequestConfig}, its
 * connect and socket timeouts bounded.
 */
final class HttpClient4AttemptLimits {
    /** {@code defaultConfig} of an async client's class, made accessible; null where there is none. */
    private static final PerClassLookup<Field> DEFAULT_CONFIG = new PerClassLookup<Field>() {
        @Override
        protected Field computeValue(Class<?> type) {
            return accessibleField(type, "defaultConfig");
        }
    };

    private HttpClient4AttemptLimits() {
    }

    /**
     * {@code own} with its connect and socket timeouts each at most {@code limitMillis}, the attempt's limit from the
     * policy; {@code own} itself when both are shorter. A timeout of 0 (none) or -1 (the system's) counts as longer.
     */
    static RequestConfig bounded(RequestConfig own, long limitMillis) {
        int limit = (int) Math.max(1, Math.min(Integer.MAX_VALUE, limitMillis));
        boolean connect = exceeds(own.getConnectTimeout(), limit);
        boolean socket = exceeds(own.getSocketTimeout(), limit);
        if (!connect && !socket) {
            return own;
        }
        RequestConfig.Builder bounded = RequestConfig.copy(own);
        if (connect) {
            bounded.setConnectTimeout(limit);
        }
        if (socket) {
            bounded.setSocketTimeout(limit);
        }
        return bounded.build();
    }

    /** Whether {@link #bounded} shortens the socket timeout, what a dependency that does not answer runs into. */
    static boolean shortensSocket(RequestConfig own, long limitMillis) {
        return limitMillis > 0 && exceeds(own.getSocketTimeout(), limitMillis);
    }

    private static boolean exceeds(int own, long limitMillis) {
        return own <= 0 || own > limitMillis;
    }

    /**
     * The {@code RequestConfig} an async client applies to a context that has none: {@code defaultConfig} of
     * HttpAsyncClient 4.1's {@code InternalHttpAsyncClient}; {@code RequestConfig.DEFAULT} for a client without one
     * (the minimal client); null when the client has one that cannot be read.
     */
    static RequestConfig defaultConfigOf(Object asyncClient) {
        try {
            Field field = DEFAULT_CONFIG.of(asyncClient.getClass());
            if (field == null) {
                return RequestConfig.DEFAULT;
            }
            Object config = field.get(asyncClient);
            return config instanceof RequestConfig ? (RequestConfig) config : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
