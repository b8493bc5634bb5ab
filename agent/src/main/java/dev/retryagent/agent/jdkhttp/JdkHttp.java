package dev.retryagent.agent.jdkhttp;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The parts of {@code java.net.http} the adapter uses, reached by reflection on their public, exported types (the
 * agent's class files stay Java 8; see {@link JdkHttpClientInstrumentation}), plus two fields of the internal
 * {@code MultiExchange}, opened to this module at start-up. One instance per JVM, made when the first hooked call
 * arrives (there is one {@code java.net.http}: the platform loader's).
 */
final class JdkHttp {
    private static volatile JdkHttp instance;

    final Class<?> bodyHandler;
    private final ClassLoader proxyLoader;
    private final Method send;
    private final Method sendAsync;
    private final Method requestMethod;
    private final Method requestUri;
    private final Method requestHeaders;
    private final Method requestBodyPublisher;
    private final Method requestExpectContinue;
    private final Method requestTimeout;
    private final Method requestVersion;
    private final Method headersMap;
    private final Method infoStatusCode;
    private final Method infoHeaders;
    private final Method newBuilder;
    private final Method builderUri;
    private final Method builderExpectContinue;
    private final Method builderHeader;
    private final Method builderVersion;
    private final Method builderTimeout;
    private final Method builderMethod;
    private final Method builderGet;
    private final Method builderDelete;
    /** {@code HEAD()} exists from Java 18 on; before it a bodiless HEAD is {@code method("HEAD", noBody())}. */
    private final Method builderHead;
    private final Method build;
    private final Method noBody;
    private final Method discarding;
    private final Method applyHandler;
    private final Class<?> multiExchange;
    private final Class<?> clientImpl;
    /** {@code HttpClientImpl.facade()}, or null until looked up or when it cannot be. */
    private volatile Method facade;
    private volatile boolean facadeMissing;
    private volatile Field exchangeHandler;
    private volatile Field retriedOnce;

    private JdkHttp(ClassLoader loader) throws Exception {
        Class<?> client = Class.forName("java.net.http.HttpClient", false, loader);
        Class<?> request = Class.forName("java.net.http.HttpRequest", false, loader);
        Class<?> builder = Class.forName("java.net.http.HttpRequest$Builder", false, loader);
        Class<?> publisher = Class.forName("java.net.http.HttpRequest$BodyPublisher", false, loader);
        Class<?> publishers = Class.forName("java.net.http.HttpRequest$BodyPublishers", false, loader);
        Class<?> headers = Class.forName("java.net.http.HttpHeaders", false, loader);
        Class<?> version = Class.forName("java.net.http.HttpClient$Version", false, loader);
        Class<?> responseInfo = Class.forName("java.net.http.HttpResponse$ResponseInfo", false, loader);
        Class<?> subscribers = Class.forName("java.net.http.HttpResponse$BodySubscribers", false, loader);
        Class<?> pushPromiseHandler = Class.forName("java.net.http.HttpResponse$PushPromiseHandler", false, loader);
        bodyHandler = Class.forName("java.net.http.HttpResponse$BodyHandler", false, loader);
        proxyLoader = JdkHttp.class.getClassLoader();
        send = client.getMethod("send", request, bodyHandler);
        sendAsync = client.getMethod("sendAsync", request, bodyHandler, pushPromiseHandler);
        requestMethod = request.getMethod("method");
        requestUri = request.getMethod("uri");
        requestHeaders = request.getMethod("headers");
        requestBodyPublisher = request.getMethod("bodyPublisher");
        requestExpectContinue = request.getMethod("expectContinue");
        requestTimeout = request.getMethod("timeout");
        requestVersion = request.getMethod("version");
        headersMap = headers.getMethod("map");
        infoStatusCode = responseInfo.getMethod("statusCode");
        infoHeaders = responseInfo.getMethod("headers");
        newBuilder = request.getMethod("newBuilder");
        builderUri = builder.getMethod("uri", URI.class);
        builderExpectContinue = builder.getMethod("expectContinue", boolean.class);
        builderHeader = builder.getMethod("header", String.class, String.class);
        builderVersion = builder.getMethod("version", version);
        builderTimeout = builder.getMethod("timeout", java.time.Duration.class);
        builderMethod = builder.getMethod("method", String.class, publisher);
        builderGet = builder.getMethod("GET");
        builderDelete = builder.getMethod("DELETE");
        Method head;
        try {
            head = builder.getMethod("HEAD");
        } catch (NoSuchMethodException beforeJava18) {
            head = null;
        }
        builderHead = head;
        build = builder.getMethod("build");
        noBody = publishers.getMethod("noBody");
        discarding = subscribers.getMethod("discarding");
        applyHandler = bodyHandler.getMethod("apply", responseInfo);
        multiExchange = Class.forName(JdkHttpClientInstrumentation.MULTI_EXCHANGE, false, loader);
        clientImpl = Class.forName(JdkHttpClientInstrumentation.CLIENT_IMPL, false, loader);
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
            Method m = facade;
            if (m == null) {
                m = clientImpl.getDeclaredMethod("facade");
                m.setAccessible(true);
                facade = m;
            }
            return m.invoke(impl);
        } catch (Exception e) {
            facadeMissing = true; // the calls go on; only a client dropped by its application may close under them
            return null;
        } catch (LinkageError e) {
            facadeMissing = true;
            return null;
        }
    }

    /** The two fields of {@code MultiExchange}, opened to this module at start-up; looked up at first use. */
    private void internals() throws IllegalAccessException {
        if (retriedOnce == null) {
            lookUpInternals(); // without a lock once done: every exchange reads its handler (LastHop)
        }
    }

    private synchronized void lookUpInternals() throws IllegalAccessException {
        if (retriedOnce != null) {
            return;
        }
        try {
            Field handler = multiExchange.getDeclaredField("responseHandler");
            handler.setAccessible(true);
            Field retried;
            try {
                retried = multiExchange.getDeclaredField("retriedOnce");
            } catch (NoSuchFieldException earlierJava17) {
                retried = multiExchange.getDeclaredField("expiredOnce"); // the same flag, before it was renamed
            }
            retried.setAccessible(true);
            exchangeHandler = handler;
            retriedOnce = retried;
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException("MultiExchange is not as the agent knows it", e);
        }
    }

    /** The API of the {@code java.net.http} that {@code site} (a hooked class) belongs to. */
    static JdkHttp of(Class<?> site) {
        JdkHttp api = instance;
        if (api == null) {
            synchronized (JdkHttp.class) {
                api = instance;
                if (api == null) {
                    try {
                        api = new JdkHttp(site.getClassLoader());
                    } catch (Exception e) {
                        throw new IllegalStateException("java.net.http is not as the agent knows it", e);
                    }
                    instance = api;
                }
            }
        }
        return api;
    }

    /** An exception the client or the application's own code threw from a method called here. */
    static final class Thrown extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Thrown(Throwable cause) {
            super(cause);
        }
    }

    private static Object call(Method method, Object target, Object... args) {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw new Thrown(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code client.send(request, handler)}: the response, or what the client threw, in {@link Thrown}. */
    Object send(Object client, Object request, Object handler) {
        return call(send, client, request, handler);
    }

    CompletableFuture<?> sendAsync(Object client, Object request, Object handler) {
        return (CompletableFuture<?>) call(sendAsync, client, request, handler, null);
    }

    String method(Object request) {
        return (String) call(requestMethod, request);
    }

    URI uri(Object request) {
        return (URI) call(requestUri, request);
    }

    @SuppressWarnings("unchecked")
    Map<String, List<String>> headers(Object request) {
        return (Map<String, List<String>>) call(headersMap, call(requestHeaders, request));
    }

    /** The request's body publisher, or null when it has none. */
    Object bodyPublisher(Object request) {
        return ((Optional<?>) call(requestBodyPublisher, request)).orElse(null);
    }

    int statusCode(Object responseInfo) {
        return (Integer) call(infoStatusCode, responseInfo);
    }

    @SuppressWarnings("unchecked")
    Map<String, List<String>> responseHeaders(Object responseInfo) {
        return (Map<String, List<String>>) call(headersMap, call(infoHeaders, responseInfo));
    }

    /** {@code handler.apply(responseInfo)}: the application's body subscriber for the response. */
    Object apply(Object handler, Object responseInfo) {
        return call(applyHandler, handler, responseInfo);
    }

    /** A subscriber that reads a body to its end and drops it, so that the connection can be used again. */
    Object discarding() {
        return call(discarding, null);
    }

    /**
     * A copy of {@code request} with {@code name: value} added (the request does not carry {@code name}): what
     * {@code HttpRequest.newBuilder(request, filter)} (Java 16+) does, spelled out so that Java 11 has it too.
     */
    Object withHeader(Object request, String name, String value) {
        Object b = call(newBuilder, null);
        call(builderUri, b, uri(request));
        call(builderExpectContinue, b, call(requestExpectContinue, request));
        for (Map.Entry<String, List<String>> header : headers(request).entrySet()) {
            for (String v : header.getValue()) {
                call(builderHeader, b, header.getKey(), v);
            }
        }
        call(builderHeader, b, name, value);
        Object version = ((Optional<?>) call(requestVersion, request)).orElse(null);
        if (version != null) {
            call(builderVersion, b, version);
        }
        Object timeout = ((Optional<?>) call(requestTimeout, request)).orElse(null);
        if (timeout != null) {
            call(builderTimeout, b, timeout);
        }
        String method = method(request);
        Object publisher = bodyPublisher(request);
        if (publisher != null) {
            call(builderMethod, b, method, publisher);
        } else if ("GET".equals(method)) {
            call(builderGet, b);
        } else if ("DELETE".equals(method)) {
            call(builderDelete, b);
        } else if ("HEAD".equals(method) && builderHead != null) {
            call(builderHead, b);
        } else {
            call(builderMethod, b, method, call(noBody, null));
        }
        return call(build, b);
    }

    /** A {@code BodyHandler} whose {@code apply} is {@code handler}'s. */
    Object bodyHandler(InvocationHandler handler) {
        return Proxy.newProxyInstance(proxyLoader, new Class<?>[] {bodyHandler}, handler);
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
