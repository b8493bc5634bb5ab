package dev.retryagent.agent.clients.jdkhttp;

import dev.retryagent.agent.bootloader.weaving.PerClassLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiPredicate;

/**
 * The handles of {@link JdkHttpApi}, looked up once in {@link JdkHttpApi#siteLoader}; a mismatch fails this class's
 * initialisation. Constants (static final fields), which the JIT compiles to direct calls, where a
 * {@code Method.invoke} per accessor (a dozen per call and attempt) would take an arguments array, boxing and an
 * access check each.
 */
final class JdkHttpHandles {
    private JdkHttpHandles() {
    }

    static final Class<?> BODY_HANDLER;
    static final MethodHandle SEND_ASYNC;
    static final MethodHandle REQUEST_METHOD;
    static final MethodHandle REQUEST_URI;
    static final MethodHandle REQUEST_HEADERS;
    static final MethodHandle REQUEST_BODY_PUBLISHER;
    static final MethodHandle REQUEST_EXPECT_CONTINUE;
    static final MethodHandle REQUEST_TIMEOUT;
    static final MethodHandle REQUEST_VERSION;
    static final MethodHandle HEADERS_MAP;
    static final MethodHandle HEADERS_FIRST_VALUE;
    static final MethodHandle INFO_STATUS_CODE;
    static final MethodHandle INFO_HEADERS;
    static final MethodHandle NEW_BUILDER;
    /** {@code HttpRequest.newBuilder(HttpRequest, BiPredicate)}, Java 16+; null before. */
    static final MethodHandle NEW_BUILDER_COPY;
    static final MethodHandle BUILDER_URI;
    static final MethodHandle BUILDER_EXPECT_CONTINUE;
    static final MethodHandle BUILDER_HEADER;
    static final MethodHandle BUILDER_VERSION;
    static final MethodHandle BUILDER_TIMEOUT;
    static final MethodHandle BUILDER_METHOD;
    static final MethodHandle BUILDER_GET;
    static final MethodHandle BUILDER_DELETE;
    /** {@code HEAD()} exists from Java 18 on; before it a bodiless HEAD is {@code method("HEAD", noBody())}. */
    static final MethodHandle BUILDER_HEAD;
    static final MethodHandle BUILD;
    static final MethodHandle NO_BODY;
    static final MethodHandle DISCARDING;
    static final MethodHandle APPLY_HANDLER;
    /** The constructor of the proxy class that implements {@code BodyHandler}, taking its invocation handler. */
    static final MethodHandle NEW_BODY_HANDLER;
    static final MethodHandle RESPONSE_REQUEST;
    static final MethodHandle RESPONSE_PREVIOUS;
    /** The constructor of the proxy class that implements {@code HttpResponse} ({@link ApplicationResponse}). */
    static final MethodHandle NEW_RESPONSE;

    static {
        try {
            ClassLoader loader = JdkHttpApi.siteLoader;
            Class<?> client = Class.forName("java.net.http.HttpClient", false, loader);
            Class<?> request = Class.forName("java.net.http.HttpRequest", false, loader);
            Class<?> builder = Class.forName("java.net.http.HttpRequest$Builder", false, loader);
            Class<?> publisher = Class.forName("java.net.http.HttpRequest$BodyPublisher", false, loader);
            Class<?> publishers = Class.forName("java.net.http.HttpRequest$BodyPublishers", false, loader);
            Class<?> headers = Class.forName("java.net.http.HttpHeaders", false, loader);
            Class<?> version = Class.forName("java.net.http.HttpClient$Version", false, loader);
            Class<?> response = Class.forName("java.net.http.HttpResponse", false, loader);
            Class<?> responseInfo = Class.forName("java.net.http.HttpResponse$ResponseInfo", false, loader);
            Class<?> subscriber = Class.forName("java.net.http.HttpResponse$BodySubscriber", false, loader);
            Class<?> subscribers = Class.forName("java.net.http.HttpResponse$BodySubscribers", false, loader);
            Class<?> pushPromiseHandler = Class.forName("java.net.http.HttpResponse$PushPromiseHandler", false,
                    loader);
            Class<?> bodyHandler = Class.forName("java.net.http.HttpResponse$BodyHandler", false, loader);
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            BODY_HANDLER = bodyHandler;
            SEND_ASYNC = virtual(lookup, client, "sendAsync",
                    MethodType.methodType(CompletableFuture.class, request, bodyHandler, pushPromiseHandler));
            REQUEST_METHOD = virtual(lookup, request, "method", MethodType.methodType(String.class));
            REQUEST_URI = virtual(lookup, request, "uri", MethodType.methodType(URI.class));
            REQUEST_HEADERS = virtual(lookup, request, "headers", MethodType.methodType(headers));
            REQUEST_BODY_PUBLISHER = virtual(lookup, request, "bodyPublisher",
                    MethodType.methodType(Optional.class));
            REQUEST_EXPECT_CONTINUE = virtual(lookup, request, "expectContinue",
                    MethodType.methodType(boolean.class));
            REQUEST_TIMEOUT = virtual(lookup, request, "timeout", MethodType.methodType(Optional.class));
            REQUEST_VERSION = virtual(lookup, request, "version", MethodType.methodType(Optional.class));
            HEADERS_MAP = virtual(lookup, headers, "map", MethodType.methodType(Map.class));
            HEADERS_FIRST_VALUE = virtual(lookup, headers, "firstValue",
                    MethodType.methodType(Optional.class, String.class));
            INFO_STATUS_CODE = virtual(lookup, responseInfo, "statusCode", MethodType.methodType(int.class));
            INFO_HEADERS = virtual(lookup, responseInfo, "headers", MethodType.methodType(headers));
            NEW_BUILDER = generic(lookup.findStatic(request, "newBuilder", MethodType.methodType(builder)));
            MethodHandle copy;
            try {
                copy = generic(lookup.findStatic(request, "newBuilder",
                        MethodType.methodType(builder, request, BiPredicate.class)));
            } catch (NoSuchMethodException beforeJava16) {
                copy = null;
            }
            NEW_BUILDER_COPY = copy;
            BUILDER_URI = virtual(lookup, builder, "uri", MethodType.methodType(builder, URI.class));
            BUILDER_EXPECT_CONTINUE = virtual(lookup, builder, "expectContinue",
                    MethodType.methodType(builder, boolean.class));
            BUILDER_HEADER = virtual(lookup, builder, "header",
                    MethodType.methodType(builder, String.class, String.class));
            BUILDER_VERSION = virtual(lookup, builder, "version", MethodType.methodType(builder, version));
            BUILDER_TIMEOUT = virtual(lookup, builder, "timeout",
                    MethodType.methodType(builder, java.time.Duration.class));
            BUILDER_METHOD = virtual(lookup, builder, "method",
                    MethodType.methodType(builder, String.class, publisher));
            BUILDER_GET = virtual(lookup, builder, "GET", MethodType.methodType(builder));
            BUILDER_DELETE = virtual(lookup, builder, "DELETE", MethodType.methodType(builder));
            MethodHandle head;
            try {
                head = virtual(lookup, builder, "HEAD", MethodType.methodType(builder));
            } catch (NoSuchMethodException beforeJava18) {
                head = null;
            }
            BUILDER_HEAD = head;
            BUILD = virtual(lookup, builder, "build", MethodType.methodType(request));
            NO_BODY = generic(lookup.findStatic(publishers, "noBody", MethodType.methodType(publisher)));
            DISCARDING = generic(lookup.findStatic(subscribers, "discarding", MethodType.methodType(subscriber)));
            APPLY_HANDLER = virtual(lookup, bodyHandler, "apply", MethodType.methodType(subscriber, responseInfo));
            @SuppressWarnings("deprecation") // newProxyInstance looks the same class up on every call
            Class<?> proxy = Proxy.getProxyClass(JdkHttpApi.class.getClassLoader(), bodyHandler);
            Constructor<?> constructor = proxy.getConstructor(InvocationHandler.class);
            NEW_BODY_HANDLER = MethodHandles.lookup().unreflectConstructor(constructor)
                    .asType(MethodType.methodType(Object.class, InvocationHandler.class));
            RESPONSE_REQUEST = virtual(lookup, response, "request", MethodType.methodType(request));
            RESPONSE_PREVIOUS = virtual(lookup, response, "previousResponse", MethodType.methodType(Optional.class));
            @SuppressWarnings("deprecation")
            Class<?> responseProxy = Proxy.getProxyClass(JdkHttpApi.class.getClassLoader(), response);
            NEW_RESPONSE = MethodHandles.lookup().unreflectConstructor(
                    responseProxy.getConstructor(InvocationHandler.class))
                    .asType(MethodType.methodType(Object.class, InvocationHandler.class));
        } catch (Exception e) {
            throw new IllegalStateException("java.net.http is not as the agent knows it", e);
        }
    }

    /**
     * {@code owner.name} of {@code type}, with every {@code java.net.http} type as {@code Object}, so that the
     * adapter, which names none of them, can call it with {@code invokeExact}.
     */
    private static MethodHandle virtual(MethodHandles.Lookup lookup, Class<?> owner, String name, MethodType type)
            throws NoSuchMethodException, IllegalAccessException {
        return generic(lookup.findVirtual(owner, name, type));
    }

    private static MethodHandle generic(MethodHandle handle) {
        MethodType type = handle.type();
        Class<?>[] parameters = type.parameterArray();
        for (int i = 0; i < parameters.length; i++) {
            parameters[i] = erased(parameters[i]);
        }
        return handle.asType(MethodType.methodType(erased(type.returnType()), parameters));
    }

    private static Class<?> erased(Class<?> type) {
        return type.isPrimitive() || type == String.class || type == URI.class || type == Optional.class
                || type == Map.class || type == CompletableFuture.class || type == BiPredicate.class
                ? type : Object.class;
    }

    /** {@code HttpClientImpl.facade()}, made accessible. */
    static final PerClassLookup<Method> FACADE = new PerClassLookup<Method>() {
        @Override
        protected Method computeValue(Class<?> clientImpl) {
            try {
                Method method = clientImpl.getDeclaredMethod("facade");
                method.setAccessible(true);
                return method;
            } catch (NoSuchMethodException e) {
                throw new IllegalStateException("HttpClientImpl is not as the agent knows it", e);
            }
        }
    };

    /** {@code MultiExchange.responseHandler} and its flag of the one resend, made accessible. */
    static final PerClassLookup<Field[]> INTERNALS = new PerClassLookup<Field[]>() {
        @Override
        protected Field[] computeValue(Class<?> multiExchange) {
            try {
                Field handler = multiExchange.getDeclaredField("responseHandler");
                Field retried;
                try {
                    retried = multiExchange.getDeclaredField("retriedOnce");
                } catch (NoSuchFieldException earlierJava17) {
                    retried = multiExchange.getDeclaredField("expiredOnce"); // the same flag, before it was renamed
                }
                handler.setAccessible(true);
                retried.setAccessible(true);
                return new Field[] {handler, retried};
            } catch (NoSuchFieldException e) {
                throw new IllegalStateException("MultiExchange is not as the agent knows it", e);
            }
        }
    };
}
