package dev.retryagent.agent.clients.jdkhttp;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.net.URI;
import java.security.AccessController;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiPredicate;

/**
 * The parts of {@code java.net.http} the adapter uses, reached through method handles on their public, exported
 * types (the agent's class files stay Java 8; see {@link JdkHttpInstrumentation}), plus two fields of the
 * internal {@code MultiExchange}, opened to this module at start-up. One instance per JVM, made when the first hooked
 * call arrives (there is one {@code java.net.http}: the platform loader's).
 * The handles are constants: {@link JdkHttpHandles}.
 */
final class JdkHttpApi {
    private static volatile JdkHttpApi instance;
    /** The loader {@link JdkHttpHandles} finds {@code java.net.http} in: the first hooked class's, set before it. */
    static ClassLoader siteLoader;

    private final Class<?> multiExchange;
    private final Class<?> clientImpl;
    /** {@code HttpClientImpl.facade()}, or null until looked up or when it cannot be. */
    private volatile MethodHandle facade;
    private volatile boolean facadeMissing;
    /** The private {@code HttpClientImpl.sendAsync(request, handler, pushPromiseHandler, executor)}, once looked up. */
    private volatile MethodHandle sendInlineHandle;
    private volatile Field exchangeHandler;
    private volatile Field retriedOnce;

    private JdkHttpApi(ClassLoader loader) throws Exception {
        multiExchange = Class.forName(JdkHttpInstrumentation.MULTI_EXCHANGE, false, loader);
        clientImpl = Class.forName(JdkHttpInstrumentation.CLIENT_IMPL, false, loader);
    }

    /**
     * The {@code HttpClient} the application holds for {@code impl}, or null when it cannot be had. The client shuts
     * itself down once that object is unreachable and nothing is in flight: an async call whose application kept only
     * the future would lose its client during a wait between attempts, when no exchange is pending.
     */
    Object facade(Object impl) {
        if (facadeMissing) {
            return null;
        }
        try {
            MethodHandle m = facade;
            if (m == null) {
                m = MethodHandles.lookup().unreflect(JdkHttpHandles.FACADE.of(clientImpl))
                        .asType(MethodType.methodType(Object.class, Object.class));
                facade = m;
            }
            return (Object) m.invokeExact(impl);
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            facadeMissing = true; // the calls go on; only a client dropped by its application may close under them
            return null;
        }
    }

    /** The two fields of {@code MultiExchange}, opened to this module at start-up; looked up at first use. */
    private void internals() {
        if (retriedOnce == null) {
            lookUpInternals(); // without a lock once done: every exchange reads its handler (LastHop)
        }
    }

    private synchronized void lookUpInternals() {
        if (retriedOnce != null) {
            return;
        }
        Field[] found = JdkHttpHandles.INTERNALS.of(multiExchange);
        exchangeHandler = found[0];
        retriedOnce = found[1];
    }

    /** The API of the {@code java.net.http} that {@code site} (a hooked class) belongs to. */
    static JdkHttpApi of(Class<?> site) {
        JdkHttpApi api = instance;
        if (api == null) {
            synchronized (JdkHttpApi.class) {
                api = instance;
                if (api == null) {
                    api = create(site);
                    instance = api;
                }
            }
        }
        return api;
    }

    /**
     * Looks {@code java.net.http} up in {@code site}'s loader. Privileged: on the application's thread, whose grant
     * under a security manager need not let the agent have the platform class loader or look into its classes.
     */
    private static JdkHttpApi create(final Class<?> site) {
        try {
            return AccessController.doPrivileged(new PrivilegedExceptionAction<JdkHttpApi>() {
                @Override
                public JdkHttpApi run() throws Exception {
                    siteLoader = site.getClassLoader();
                    if (JdkHttpHandles.BODY_HANDLER == null) { // initialises JdkHttpHandles: its failure is the agent's
                        throw new IllegalStateException("java.net.http has no BodyHandler");
                    }
                    return new JdkHttpApi(siteLoader);
                }
            });
        } catch (PrivilegedActionException e) {
            throw new IllegalStateException("java.net.http is not as the agent knows it", e.getException());
        } catch (RuntimeException e) {
            throw new IllegalStateException("java.net.http is not as the agent knows it", e);
        } catch (LinkageError e) {
            throw new IllegalStateException("java.net.http is not as the agent knows it", e);
        }
    }

    /** An exception the client or the application's own code threw from a method called here. */
    static final class Thrown extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Thrown(Throwable cause) {
            super(cause);
        }
    }

    /**
     * The future {@code HttpClientImpl.send} waits for, made as it makes it: its private {@code sendAsync} with no
     * push promise handler and no executor (the exchange runs on the calling thread until it has to wait). What it
     * throws at once, in {@link Thrown}. {@link #lookUpSendInline} first.
     */
    CompletableFuture<?> sendInline(Object client, Object request, Object handler) {
        try {
            return (CompletableFuture<?>) sendInlineHandle.invokeExact(client, request, handler, (Object) null,
                    (Object) null);
        } catch (Throwable t) {
            throw new Thrown(t);
        }
    }

    /**
     * Looks up the method {@link #sendInline} calls (in the package opened to this module at start-up); an
     * {@code IllegalStateException} when it cannot be had. Privileged: on the application's thread (see
     * {@link #create}).
     */
    void lookUpSendInline() {
        if (sendInlineHandle != null) {
            return;
        }
        try {
            sendInlineHandle = AccessController.doPrivileged(new PrivilegedExceptionAction<MethodHandle>() {
                @Override
                public MethodHandle run() throws Exception {
                    ClassLoader loader = clientImpl.getClassLoader();
                    Method method = clientImpl.getDeclaredMethod("sendAsync",
                            Class.forName("java.net.http.HttpRequest", false, loader),
                            Class.forName("java.net.http.HttpResponse$BodyHandler", false, loader),
                            Class.forName("java.net.http.HttpResponse$PushPromiseHandler", false, loader),
                            java.util.concurrent.Executor.class);
                    method.setAccessible(true);
                    return MethodHandles.lookup().unreflect(method).asType(MethodType.methodType(CompletableFuture.class,
                            Object.class, Object.class, Object.class, Object.class, Object.class));
                }
            });
        } catch (PrivilegedActionException e) {
            throw new IllegalStateException("HttpClientImpl is not as the agent knows it", e.getException());
        } catch (RuntimeException e) {
            throw new IllegalStateException("HttpClientImpl is not as the agent knows it", e);
        } catch (LinkageError e) {
            throw new IllegalStateException("HttpClientImpl is not as the agent knows it", e);
        }
    }

    CompletableFuture<?> sendAsync(Object client, Object request, Object handler) {
        try {
            return (CompletableFuture<?>) JdkHttpHandles.SEND_ASYNC.invokeExact(client, request, handler,
                    (Object) null);
        } catch (Throwable t) {
            throw new Thrown(t);
        }
    }

    String method(Object request) {
        try {
            return (String) JdkHttpHandles.REQUEST_METHOD.invokeExact(request);
        } catch (Throwable t) {
            throw new Thrown(t);
        }
    }

    URI uri(Object request) {
        try {
            return (URI) JdkHttpHandles.REQUEST_URI.invokeExact(request);
        } catch (Throwable t) {
            throw new Thrown(t);
        }
    }

    @SuppressWarnings("unchecked")
    Map<String, List<String>> headers(Object request) {
        try {
            return (Map<String, List<String>>) (Map<?, ?>) JdkHttpHandles.HEADERS_MAP.invokeExact(
                    (Object) JdkHttpHandles.REQUEST_HEADERS.invokeExact(request));
        } catch (Throwable t) {
            throw new Thrown(t);
        }
    }

    /** The request's body publisher, or null when it has none. */
    Object bodyPublisher(Object request) {
        try {
            return ((Optional<?>) JdkHttpHandles.REQUEST_BODY_PUBLISHER.invokeExact(request)).orElse(null);
        } catch (Throwable t) {
            throw new Thrown(t);
        }
    }

    int statusCode(Object responseInfo) {
        try {
            return (int) JdkHttpHandles.INFO_STATUS_CODE.invokeExact(responseInfo);
        } catch (Throwable t) {
            throw new Thrown(t);
        }
    }

    /** The first value of the response's {@code name} header (names compare case-insensitively), or null. */
    String responseHeader(Object responseInfo, String name) {
        try {
            Object headers = (Object) JdkHttpHandles.INFO_HEADERS.invokeExact(responseInfo);
            return (String) ((Optional<?>) JdkHttpHandles.HEADERS_FIRST_VALUE.invokeExact(headers, name)).orElse(null);
        } catch (Throwable t) {
            throw new Thrown(t);
        }
    }

    /** {@code handler.apply(responseInfo)}: the application's body subscriber for the response. */
    Object apply(Object handler, Object responseInfo) {
        try {
            return (Object) JdkHttpHandles.APPLY_HANDLER.invokeExact(handler, responseInfo);
        } catch (Throwable t) {
            throw new Thrown(t);
        }
    }

    /** A subscriber that reads a body to its end and drops it, so that the connection can be used again. */
    Object discarding() {
        try {
            return (Object) JdkHttpHandles.DISCARDING.invokeExact();
        } catch (Throwable t) {
            throw new Thrown(t);
        }
    }

    /** Every header of the request: the filter of {@code newBuilder(request, filter)}. */
    private static final BiPredicate<String, String> ALL_HEADERS = new BiPredicate<String, String>() {
        @Override
        public boolean test(String name, String value) {
            return true;
        }
    };

    /**
     * A copy of {@code request} with {@code name: value} added (the request does not carry {@code name}). Java 16+:
     * {@code HttpRequest.newBuilder(request, filter)}, three calls; before, and for a bodiless HEAD (whose copy
     * takes {@code HEAD()} from Java 18 on, which {@code newBuilder(request, filter)} may not use), the same copy
     * spelled out.
     */
    Object withHeader(Object request, String name, String value) {
        return copy(request, name, value, null);
    }

    /**
     * A copy of {@code request} with {@code name: value} added when {@code name} is not null, and its timeout
     * {@code timeout} when that is not null (else the request's own). As {@link #withHeader} makes it.
     */
    Object copy(Object request, String name, String value, Duration timeout) {
        if (JdkHttpHandles.NEW_BUILDER_COPY != null && !"HEAD".equals(method(request))) {
            try {
                Object b = (Object) JdkHttpHandles.NEW_BUILDER_COPY.invokeExact(request, ALL_HEADERS);
                if (name != null) {
                    b = (Object) JdkHttpHandles.BUILDER_HEADER.invokeExact(b, name, value);
                }
                if (timeout != null) {
                    b = (Object) JdkHttpHandles.BUILDER_TIMEOUT.invokeExact(b, (Object) timeout);
                }
                return (Object) JdkHttpHandles.BUILD.invokeExact(b);
            } catch (Throwable t) {
                throw new Thrown(t);
            }
        }
        return copyWithHeader(request, name, value, timeout);
    }

    /** {@link #withHeader} through the request's accessors and a new builder: Java 11+. */
    Object copyWithHeader(Object request, String name, String value) {
        return copyWithHeader(request, name, value, null);
    }

    /** {@link #copy} through the request's accessors and a new builder: Java 11+. */
    Object copyWithHeader(Object request, String name, String value, Duration timeout) {
        return spelledOut(request, null, name, value, timeout, true);
    }

    /**
     * A copy of {@code request} without its {@code name} header (names compare case-insensitively), with the timeout
     * {@code timeout}, or none when that is null.
     */
    Object withoutHeader(Object request, String name, Duration timeout) {
        return spelledOut(request, name, null, null, timeout, false);
    }

    /**
     * A copy of {@code request} made through its accessors and a new builder, without its {@code drop} header when
     * that is not null, with {@code name: value} added when {@code name} is not null, and with the timeout
     * {@code timeout}: when that is null, the request's own if {@code ownTimeout}, else none.
     */
    private Object spelledOut(Object request, String drop, String name, String value, Duration timeout,
                boolean ownTimeout) {
        try {
            Object b = (Object) JdkHttpHandles.NEW_BUILDER.invokeExact();
            b = (Object) JdkHttpHandles.BUILDER_URI.invokeExact(b, uri(request));
            b = (Object) JdkHttpHandles.BUILDER_EXPECT_CONTINUE.invokeExact(b,
                    (boolean) JdkHttpHandles.REQUEST_EXPECT_CONTINUE.invokeExact(request));
            for (Map.Entry<String, List<String>> header : headers(request).entrySet()) {
                if (drop != null && drop.equalsIgnoreCase(header.getKey())) {
                    continue;
                }
                for (String v : header.getValue()) {
                    b = (Object) JdkHttpHandles.BUILDER_HEADER.invokeExact(b, header.getKey(), v);
                }
            }
            if (name != null) {
                b = (Object) JdkHttpHandles.BUILDER_HEADER.invokeExact(b, name, value);
            }
            Object version = ((Optional<?>) JdkHttpHandles.REQUEST_VERSION.invokeExact(request)).orElse(null);
            if (version != null) {
                b = (Object) JdkHttpHandles.BUILDER_VERSION.invokeExact(b, version);
            }
            Object own = timeout != null || !ownTimeout ? timeout
                    : ((Optional<?>) JdkHttpHandles.REQUEST_TIMEOUT.invokeExact(request)).orElse(null);
            if (own != null) {
                b = (Object) JdkHttpHandles.BUILDER_TIMEOUT.invokeExact(b, own);
            }
            String method = method(request);
            Object publisher = bodyPublisher(request);
            if (publisher != null) {
                b = (Object) JdkHttpHandles.BUILDER_METHOD.invokeExact(b, method, publisher);
            } else if ("GET".equals(method)) {
                b = (Object) JdkHttpHandles.BUILDER_GET.invokeExact(b);
            } else if ("DELETE".equals(method)) {
                b = (Object) JdkHttpHandles.BUILDER_DELETE.invokeExact(b);
            } else if ("HEAD".equals(method) && JdkHttpHandles.BUILDER_HEAD != null) {
                b = (Object) JdkHttpHandles.BUILDER_HEAD.invokeExact(b);
            } else {
                b = (Object) JdkHttpHandles.BUILDER_METHOD.invokeExact(b, method,
                        (Object) JdkHttpHandles.NO_BODY.invokeExact());
            }
            return (Object) JdkHttpHandles.BUILD.invokeExact(b);
        } catch (Thrown e) {
            throw e;
        } catch (Throwable t) {
            throw new Thrown(t);
        }
    }

    /**
     * The timeout an attempt of {@code request} is to have under the limit {@code limitMillis}: the limit when the
     * request's own timeout is longer or absent; null when its own is as short (it stays as it is).
     */
    Duration boundedTimeout(Object request, long limitMillis) {
        Duration own = timeout(request);
        Duration limit = Duration.ofMillis(limitMillis);
        return own != null && own.compareTo(limit) <= 0 ? null : limit;
    }

    /** {@code request}'s own timeout, or null when it has none. */
    Duration timeout(Object request) {
        Object own;
        try {
            own = ((Optional<?>) JdkHttpHandles.REQUEST_TIMEOUT.invokeExact(request)).orElse(null);
        } catch (Throwable t) {
            throw new Thrown(t);
        }
        return own instanceof Duration ? (Duration) own : null;
    }

    /** {@code response.request()}. */
    Object request(Object response) {
        try {
            return (Object) JdkHttpHandles.RESPONSE_REQUEST.invokeExact(response);
        } catch (Throwable t) {
            throw new Thrown(t);
        }
    }

    /** {@code response.previousResponse()}, or null when there is none. */
    Object previousResponse(Object response) {
        try {
            return ((Optional<?>) JdkHttpHandles.RESPONSE_PREVIOUS.invokeExact(response)).orElse(null);
        } catch (Throwable t) {
            throw new Thrown(t);
        }
    }

    /** An {@code HttpResponse} whose methods are {@code handler}'s. */
    Object response(InvocationHandler handler) {
        try {
            return (Object) JdkHttpHandles.NEW_RESPONSE.invokeExact(handler);
        } catch (Throwable t) {
            throw new IllegalStateException(t); // the proxy's constructor only stores its handler
        }
    }

    /** A {@code BodyHandler} whose {@code apply} is {@code handler}'s. */
    Object bodyHandler(InvocationHandler handler) {
        try {
            return (Object) JdkHttpHandles.NEW_BODY_HANDLER.invokeExact(handler);
        } catch (Throwable t) {
            throw new IllegalStateException(t); // the proxy's constructor only stores its handler
        }
    }

    /** The {@code BodyHandler} a {@code MultiExchange} applies to its final response. */
    Object exchangeHandler(Object multiExchange) throws IllegalAccessException {
        internals();
        return exchangeHandler.get(multiExchange);
    }

    /**
     * Tells a {@code MultiExchange} that it has resent its request once already: its next resend decision fails
     * with the failure's cause, as the client does when it has.
     */
    void markRetriedOnce(Object multiExchange) throws IllegalAccessException {
        internals();
        retriedOnce.setBoolean(multiExchange, true);
    }
}
