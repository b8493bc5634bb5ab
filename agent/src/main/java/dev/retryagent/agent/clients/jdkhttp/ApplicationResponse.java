package dev.retryagent.agent.clients.jdkhttp;

import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.ClientNames;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The {@code HttpResponse} the application gets when the attempt sent a copy of its request (with the marker header,
 * or with a timeout the agent shortened): the client's response in all but the request it says it answers. Alone, the
 * client answers {@code request()} with its own copy of the application's request, equal to it
 * ({@code HttpRequest.equals}: method, URI and headers), or, after a redirect, with the request of the last hop; the
 * copy the agent sent is equal to neither (it has a header more). So {@code request()} is the application's request
 * itself where the response answers the request sent (same method and URI: an authentication resend too), and else
 * the hop's request without the header the agent added and with the application's timeout; {@code previousResponse()}
 * is such a view of the client's. The view is made by {@link JdkHttpApi#response} (a proxy: the adapter names no
 * {@code java.net.http} type).
 */
final class ApplicationResponse implements InvocationHandler {
    private static final Object UNSET = new Object();

    private final JdkHttpApi api;
    private final Object response;
    private final Object application;
    private final Object sent;
    /** The header the agent added to the request sent, or null. */
    private final String added;
    private volatile Object request = UNSET;
    private volatile Optional<?> previous;

    ApplicationResponse(JdkHttpApi api, Object response, Object application, Object sent, String added) {
        this.api = api;
        this.response = response;
        this.application = application;
        this.sent = sent;
        this.added = added;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        boolean noArgs = args == null || args.length == 0;
        if (method.getDeclaringClass() == Object.class) {
            if ("equals".equals(method.getName())) {
                return proxy == args[0]; // the client's response has no equality of its own either
            }
            if ("hashCode".equals(method.getName())) {
                return System.identityHashCode(proxy);
            }
            return response.toString(); // the method and URI of the same request
        }
        if (noArgs && "request".equals(method.getName())) {
            return request();
        }
        if (noArgs && "previousResponse".equals(method.getName())) {
            return previous();
        }
        try {
            return method.invoke(response, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private Object request() {
        Object r = request;
        if (r == UNSET) {
            r = answered();
            request = r;
        }
        return r;
    }

    private Optional<?> previous() {
        Optional<?> p = previous;
        if (p == null) {
            Object before = api.previousResponse(response);
            p = before == null ? Optional.empty()
                    : Optional.of(api.response(new ApplicationResponse(api, before, application, sent, added)));
            previous = p;
        }
        return p;
    }

    /** The request this response answers as the client alone would give it. */
    private Object answered() {
        Object hop = api.request(response);
        if (hop == null) {
            return null;
        }
        try {
            URI uri = api.uri(hop);
            if (uri != null && uri.equals(api.uri(sent)) && api.method(hop).equals(api.method(sent))) {
                return application;
            }
            Duration own = api.timeout(application);
            List<String> marked = added == null ? null : api.headers(hop).get(added);
            boolean carries = marked != null && !marked.isEmpty();
            Duration timeout = api.timeout(hop);
            if (!carries && (own == null ? timeout == null : own.equals(timeout))) {
                return hop;
            }
            return api.withoutHeader(hop, carries ? added : null, own);
        } catch (RuntimeException e) {
            // Fail open: the application gets the request the client says it sent.
            RetryLog.internalError(ClientNames.JDK_HTTPCLIENT + ".response", e);
            return hop;
        }
    }
}
