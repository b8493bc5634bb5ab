package dev.retryagent.agent.jdkhttp;

import dev.retryagent.agent.bootstrap.Failures;
import dev.retryagent.agent.bootstrap.InjectedFaults;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.HeaderLookup;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.policy.ClientNames;
import dev.retryagent.policy.FailureKind;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code java.net.http} requests and failures in the engine's terms, read through {@link JdkHttpApi} (the adapter
 * names no {@code java.net.http} type).
 */
final class JdkHttpRequests {
    /** The body publishers that send the same bytes each time they are subscribed to. */
    private static final String[] REPLAYABLE_PUBLISHERS = {
            "jdk.internal.net.http.RequestPublishers$ByteArrayPublisher",
            "jdk.internal.net.http.RequestPublishers$StringPublisher",
            "jdk.internal.net.http.RequestPublishers$EmptyPublisher",
            "jdk.internal.net.http.RequestPublishers$FilePublisher"};

    private JdkHttpRequests() {
    }

    /** The call's facts, or null for a request the agent cannot place (no host). */
    static CallFacts facts(final JdkHttpApi api, Object request, RetryEngine engine) {
        InjectedFaults.at(ClientNames.JDK_HTTPCLIENT + ".facts");
        URI uri = api.uri(request);
        String host = uri == null ? null : uri.getHost();
        if (host == null) {
            return null;
        }
        String scheme = uri.getScheme() == null ? "http" : uri.getScheme().toLowerCase(Locale.ROOT);
        int port = uri.getPort() >= 0 ? uri.getPort() : "https".equals(scheme) ? 443 : 80;
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        final Map<String, List<String>> headers = api.headers(request); // case-insensitive, as the client keeps them
        return CallFacts.builder(ClientNames.JDK_HTTPCLIENT, api.method(request), scheme, host, port, path)
                .bodyReplayable(replayable(api.bodyPublisher(request)))
                .build(engine, new HeaderLookup() {
                    @Override
                    public boolean has(String name) {
                        List<String> values = headers.get(name);
                        return values != null && !values.isEmpty();
                    }

                    @Override
                    public String value(String name) {
                        List<String> values = headers.get(name);
                        return values == null || values.isEmpty() ? null : values.get(0);
                    }
                });
    }

    /** No body, or one of the JDK's publishers that send the same bytes at every subscription. */
    static boolean replayable(Object publisher) {
        if (publisher == null) {
            return true;
        }
        String name = publisher.getClass().getName();
        for (String replayable : REPLAYABLE_PUBLISHERS) {
            if (replayable.equals(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The JDK types first ({@code ConnectException}, {@code EOFException}, ...); then the client's own: its request
     * and connect timeouts ({@code HttpConnectTimeoutException} is a connect failure, any other
     * {@code HttpTimeoutException} a timeout), and the plain {@code IOException}s it makes of a connection closed
     * under it ("connection closed locally", "EOF reached while reading", a wrapped reset). A {@code send} rewraps
     * the failure in an exception of the same kind, with the original as its cause.
     */
    static FailureKind classifyFailure(IOException failure) {
        FailureKind kind = Failures.byJdkType(failure);
        if (kind != null && kind != FailureKind.OTHER) {
            return kind;
        }
        if (isA(failure, "java.net.http.HttpTimeoutException")) {
            return isA(failure, "java.net.http.HttpConnectTimeoutException") ? FailureKind.CONNECT : FailureKind.TIMEOUT;
        }
        if (kind != null) {
            return kind;
        }
        Throwable cause = failure.getCause();
        if (cause instanceof IOException && cause != failure) {
            FailureKind inner = classifyFailure((IOException) cause);
            if (inner != FailureKind.OTHER) {
                return inner;
            }
        }
        String message = failure.getMessage();
        if (message != null) {
            String m = message.toLowerCase(Locale.ROOT);
            if (m.contains("connection closed") || m.contains("eof reached") || m.contains("connection reset")
                    || m.contains("closed locally") || m.contains("broken pipe")) {
                return FailureKind.RESET;
            }
        }
        return FailureKind.OTHER;
    }

    /** Whether {@code t}'s class is {@code className} or a subclass of it (the adapter names no java.net.http type). */
    static boolean isA(Throwable t, String className) {
        for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
            if (c.getName().equals(className)) {
                return true;
            }
        }
        return false;
    }
}
