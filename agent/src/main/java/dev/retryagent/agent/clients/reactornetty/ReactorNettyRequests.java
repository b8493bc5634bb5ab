package dev.retryagent.agent.clients.reactornetty;

import dev.retryagent.agent.bootloader.runtime.CarriedFailure;
import dev.retryagent.agent.bootloader.runtime.Failures;
import dev.retryagent.agent.bootloader.runtime.InjectedFaults;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.HeaderLookup;
import dev.retryagent.engine.LayerRetries;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.engine.UpperLayer;
import dev.retryagent.policy.ClientNames;
import dev.retryagent.policy.FailureKind;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.timeout.ReadTimeoutException;
import io.netty.util.ReferenceCounted;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import reactor.core.Scannable;
import reactor.netty.channel.AbortedException;
import reactor.netty.http.client.HttpClientConfig;
import reactor.netty.http.client.HttpClientRequest;
import reactor.netty.http.client.PrematureCloseException;

/**
 * Reactor Netty requests, responses and failures in the engine's terms. Loaded in Reactor Netty's class loader (see
 * {@link ReactorNettyInstrumentation}).
 */
final class ReactorNettyRequests {
    /** What the agent knows of a retry operator above a call: that it retries, not which outcomes (its filter's). */
    static final LayerRetries REACTOR_RETRY = LayerRetries.unknown("reactor-retry");

    /**
     * The subscribers of Reactor's {@code retryWhen(..)} and {@code retry(..)}, on {@code Mono} and {@code Flux} alike
     * (and so of the operators built on them: Spring's reactive {@code @Retryable}, resilience4j's {@code RetryOperator}).
     */
    private static final Set<String> RETRY_SUBSCRIBERS = Collections.unmodifiableSet(new HashSet<String>(Arrays.asList(
            "reactor.core.publisher.FluxRetryWhen$RetryWhenMainSubscriber",
            "reactor.core.publisher.FluxRetry$RetrySubscriber",
            "reactor.core.publisher.FluxRetryPredicate$RetryPredicateSubscriber")));

    /**
     * Sources that produce the same items on every subscription, by their class in {@code reactor.core.publisher}: a
     * body whose chain of operators starts at one of these is sent again byte for byte by a resubscription.
     */
    private static final Set<String> COLD_SOURCES = Collections.unmodifiableSet(new HashSet<String>(Arrays.asList(
            "MonoJust", "FluxJust", "MonoEmpty", "FluxEmpty", "MonoCallable", "MonoSupplier", "MonoDefer", "FluxDefer",
            "MonoDeferContextual", "FluxDeferContextual", "MonoDeferWithContext", "FluxDeferWithContext", "FluxRange",
            "FluxArray", "FluxIterable", "MonoError", "FluxError")));
    private static final String PUBLISHERS = "reactor.core.publisher.";
    /** More operators than a body has: a chain this long is not followed to its source. */
    private static final int MAX_CHAIN = 64;

    /** {@code HttpClientOperations.responseTimeout}: the request's own, which the policy's limit may only shorten. */
    private static final Field RESPONSE_TIMEOUT = responseTimeoutField();

    private ReactorNettyRequests() {
    }

    /** The facts of a request to {@code url} with {@code headers}, read under the engine's policy; null when it stopped. */
    static CallFacts facts(String method, String url, final HttpHeaders headers, boolean bodyReplayable,
                           LayerRetries upperLayer) {
        InjectedFaults.at(ClientNames.REACTOR_NETTY + ".facts");
        RetryEngine engine = RetryRuntime.engine();
        Url where = Url.parse(url);
        if (engine == null || where == null) {
            return null;
        }
        CallFacts.Builder builder = CallFacts.builder(ClientNames.REACTOR_NETTY, method, where.scheme, where.host,
                where.port, where.path).bodyReplayable(bodyReplayable);
        HeaderLookup lookup = new HeaderLookup() {
            @Override
            public boolean has(String name) {
                return headers.contains(name); // Netty compares names case-insensitively
            }

            @Override
            public String value(String name) {
                return headers.get(name);
            }
        };
        if (upperLayer == null) {
            return builder.build(engine, lookup);
        }
        UpperLayer.enter(upperLayer);
        try {
            return builder.build(engine, lookup);
        } finally {
            UpperLayer.exit();
        }
    }

    /**
     * The facts the client's configuration gives (its method, url and headers), for a request whose head was never
     * written: nothing of its body was read either.
     */
    static CallFacts configuredFacts(HttpClientConfig config, LayerRetries upperLayer) {
        return facts(config.method().name(), configuredUrl(config), config.headers(), true, upperLayer);
    }

    /** The url a request of {@code config} goes to: its uri, resolved against its base url or its remote address. */
    static String configuredUrl(HttpClientConfig config) {
        String uri = config.uri();
        if (uri == null) {
            uri = "/";
        }
        if (uri.contains("://")) {
            return uri;
        }
        String base = config.baseUrl();
        if (base != null) {
            return base.endsWith("/") && uri.startsWith("/") ? base + uri.substring(1) : base + uri;
        }
        String scheme = config.isSecure() ? "https" : "http";
        Supplier<? extends SocketAddress> remote = config.remoteAddress();
        SocketAddress address = remote == null ? null : remote.get();
        if (address instanceof InetSocketAddress) {
            InetSocketAddress inet = (InetSocketAddress) address;
            return scheme + "://" + inet.getHostString() + ":" + inet.getPort() + (uri.startsWith("/") ? "" : "/") + uri;
        }
        return scheme + "://localhost" + (uri.startsWith("/") ? "" : "/") + uri;
    }

    /** How an attempt failed (docs/reference.md#classification), a Netty exception carried included. */
    static FailureKind classify(IOException failure) {
        InjectedFaults.at(ClientNames.REACTOR_NETTY + ".classify");
        Throwable error = failure instanceof CarriedFailure ? failure.getCause() : failure;
        if (error instanceof ReadTimeoutException) {
            return FailureKind.TIMEOUT; // responseTimeout: no response within it
        }
        if (error instanceof PrematureCloseException) {
            return FailureKind.RESET; // the connection closed before the response was complete
        }
        if (error instanceof AbortedException) {
            return AbortedException.isConnectionReset(error) ? FailureKind.RESET : FailureKind.OTHER;
        }
        if (!(error instanceof IOException)) {
            return FailureKind.OTHER;
        }
        FailureKind kind = Failures.byJdkType((IOException) error);
        if (kind != null) {
            return kind;
        }
        // Netty's native transports (epoll, kqueue) report a reset as Errors.NativeIoException; NIO on Java 8 as a
        // plain IOException "Connection reset by peer".
        String message = error.getMessage();
        return error.getClass().getName().startsWith("io.netty.channel.unix.Errors$")
                || (message != null && message.contains("Connection reset")) ? FailureKind.RESET : FailureKind.OTHER;
    }

    /** Whether {@code failure} is Reactor Netty's {@code responseTimeout} firing. */
    static boolean isResponseTimeout(IOException failure) {
        return failure instanceof CarriedFailure && failure.getCause() instanceof ReadTimeoutException;
    }

    /**
     * Bounds the response of {@code ops} to {@code limitMillis} through its own {@code responseTimeout}, unless the
     * application gave it a shorter one; true when the limit is the policy's.
     */
    static boolean bound(HttpClientRequest ops, long limitMillis) {
        if (RESPONSE_TIMEOUT == null) {
            return false;
        }
        try {
            Duration own = (Duration) RESPONSE_TIMEOUT.get(ops);
            if (own != null && own.toMillis() <= limitMillis) {
                return false;
            }
            ops.responseTimeout(Duration.ofMillis(limitMillis));
            return true;
        } catch (IllegalAccessException e) {
            RetryLog.internalError(ClientNames.REACTOR_NETTY + ".attempt-timeout", e); // the client's own alone
            return false;
        }
    }

    private static Field responseTimeoutField() {
        try {
            Field f = Class.forName(ReactorNettyInstrumentation.CLIENT_OPERATIONS, false,
                    HttpClientRequest.class.getClassLoader()).getDeclaredField("responseTimeout");
            f.setAccessible(true);
            return f;
        } catch (Exception e) {
            RetryLog.internalError(ClientNames.REACTOR_NETTY + ".attempt-timeout", e,
                    "attempts are bounded by the client's own timeouts alone");
            return null;
        }
    }

    /**
     * Whether a resubscription of {@code body} sends the same bytes again: its chain of operators starts at a source
     * that gives the same items to every subscriber, and those items are no buffers (a buffer is released once written).
     * Anything else (a sink, a processor, a publisher of another library) counts as one-shot.
     */
    static boolean replayable(Object body) {
        Object source = body;
        for (int i = 0; i < MAX_CHAIN && source instanceof Scannable; i++) {
            Object parent = ((Scannable) source).scanUnsafe(Scannable.Attr.PARENT);
            if (parent == null) {
                break;
            }
            source = parent;
        }
        String name = source == null ? "" : source.getClass().getName();
        if (!name.startsWith(PUBLISHERS) || !COLD_SOURCES.contains(name.substring(PUBLISHERS.length()))) {
            return false;
        }
        if (source instanceof Callable && (name.endsWith("MonoJust") || name.endsWith("FluxJust"))) {
            try {
                return !(((Callable<?>) source).call() instanceof ReferenceCounted);
            } catch (Exception e) {
                return false;
            }
        }
        return true;
    }

    /**
     * The retry operator between {@code subscriber} and the application, following the subscribers downstream: a
     * {@code retryWhen(..)} or {@code retry(..)} resubscribes the whole chain below it, this call included, so that call
     * is made inside a retry layer above the client. Null when there is none.
     */
    static LayerRetries retryOperatorAbove(Object subscriber) {
        Object s = subscriber;
        for (int i = 0; i < MAX_CHAIN && s instanceof Scannable; i++) {
            if (RETRY_SUBSCRIBERS.contains(s.getClass().getName())) {
                return REACTOR_RETRY;
            }
            s = ((Scannable) s).scanUnsafe(Scannable.Attr.ACTUAL);
        }
        return null;
    }

    /** The scheme, host, port and path of a url (never its query). */
    static final class Url {
        final String scheme;
        final String host;
        final int port;
        final String path;

        private Url(String scheme, String host, int port, String path) {
            this.scheme = scheme;
            this.host = host;
            this.port = port;
            this.path = path;
        }

        /** {@code url} taken apart, or null when it has no scheme and host. */
        static Url parse(String url) {
            if (url == null) {
                return null;
            }
            int schemeEnd = url.indexOf("://");
            if (schemeEnd <= 0) {
                return null;
            }
            String scheme = url.substring(0, schemeEnd).toLowerCase(java.util.Locale.ROOT);
            int authorityStart = schemeEnd + 3;
            int authorityEnd = authorityStart;
            while (authorityEnd < url.length() && "/?#".indexOf(url.charAt(authorityEnd)) < 0) {
                authorityEnd++;
            }
            int userInfoEnd = url.lastIndexOf('@', authorityEnd - 1);
            String authority = url.substring(Math.max(userInfoEnd + 1, authorityStart), authorityEnd);
            int colon = authority.lastIndexOf(':');
            String host = authority;
            int port = -1;
            if (colon > authority.lastIndexOf(']')) {
                host = authority.substring(0, colon);
                try {
                    port = Integer.parseInt(authority.substring(colon + 1));
                } catch (NumberFormatException e) {
                    return null;
                }
            }
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            if (port < 0) {
                port = scheme.equals("https") || scheme.equals("wss") ? 443 : 80;
            }
            int pathEnd = authorityEnd;
            while (pathEnd < url.length() && url.charAt(pathEnd) != '?' && url.charAt(pathEnd) != '#') {
                pathEnd++;
            }
            String path = pathEnd > authorityEnd ? url.substring(authorityEnd, pathEnd) : "/";
            return host.isEmpty() ? null : new Url(scheme, host, port, path);
        }
    }
}
