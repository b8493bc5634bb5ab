package dev.retryagent.agent.clients.httpclient4;

import dev.retryagent.agent.bootloader.runtime.Closeables;
import dev.retryagent.agent.bootloader.runtime.Failures;
import dev.retryagent.agent.bootloader.runtime.InjectedFaults;
import dev.retryagent.agent.bootloader.runtime.NotIoFailure;
import dev.retryagent.agent.bootloader.runtime.RequestPaths;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.agent.bootloader.weaving.PerClassLookup;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.HeaderLookup;
import dev.retryagent.engine.Outcome;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.policy.ClientNames;
import dev.retryagent.policy.FailureKind;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.URI;
import java.util.Locale;
import org.apache.http.Header;
import org.apache.http.HttpConnection;
import org.apache.http.HttpConnectionMetrics;
import org.apache.http.HttpEntity;
import org.apache.http.HttpEntityEnclosingRequest;
import org.apache.http.HttpHost;
import org.apache.http.HttpRequest;
import org.apache.http.HttpResponse;
import org.apache.http.NoHttpResponseException;
import org.apache.http.ProtocolException;
import org.apache.http.client.methods.CloseableHttpResponse;
import org.apache.http.client.methods.HttpEntityEnclosingRequestBase;
import org.apache.http.client.methods.HttpExecutionAware;
import org.apache.http.client.methods.HttpRequestBase;
import org.apache.http.client.methods.HttpRequestWrapper;
import org.apache.http.client.methods.HttpUriRequest;
import org.apache.http.conn.routing.HttpRoute;
import org.apache.http.impl.execchain.ClientExecChain;
import org.apache.http.message.BasicHttpEntityEnclosingRequest;
import org.apache.http.message.BasicHttpRequest;
import org.apache.http.protocol.HttpContext;
import org.apache.http.protocol.HttpCoreContext;
import org.apache.http.util.EntityUtils;

/**
 * HttpClient 4 requests, responses and failures in the engine's terms. Shared by the classic and the async adapters;
 * loaded in HttpClient's class loader (see {@link HttpClient4Instrumentation}).
 */
final class HttpClient4Requests {
    /** The field of {@code RetryExec} and {@code ServiceUnavailableRetryExec} that holds the element they wrap. */
    static final String NEXT_FIELD = "requestExecutor";
    /** That field of a retry element's class, made accessible; null where there is none. */
    private static final PerClassLookup<Field> NEXT = new PerClassLookup<Field>() {
        @Override
        protected Field computeValue(Class<?> type) {
            for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                try {
                    Field f = c.getDeclaredField(NEXT_FIELD);
                    if (ClientExecChain.class.isAssignableFrom(f.getType())) {
                        f.setAccessible(true);
                        return f;
                    }
                } catch (NoSuchFieldException e) {
                    // a subclass: look further up
                }
            }
            return null;
        }
    };

    private HttpClient4Requests() {
    }

    /**
     * What the engine needs to know about {@code request}, sent to {@code target}, read under {@code engine}'s policy.
     *
     * @param bodyReplayable the request has no body, or an entity or request producer that is repeatable
     */
    static CallFacts facts(final HttpRequest request, HttpHost target, boolean bodyReplayable, RetryEngine engine) {
        InjectedFaults.at(ClientNames.APACHE_HTTPCLIENT4 + ".facts");
        String scheme = target.getSchemeName() != null ? target.getSchemeName().toLowerCase(Locale.ROOT) : "http";
        int port = target.getPort() >= 0 ? target.getPort() : "https".equals(scheme) ? 443 : 80;
        String method = requestLineFromUri(request) ? ((HttpUriRequest) request).getMethod()
                : request.getRequestLine().getMethod();
        return CallFacts.builder(ClientNames.APACHE_HTTPCLIENT4, method, scheme, target.getHostName(), port,
                        pathOfRequest(request))
                .bodyReplayable(bodyReplayable)
                .build(engine, new HeaderLookup() {
                    @Override
                    public boolean has(String name) {
                        return request.containsHeader(name); // HttpCore compares names case-insensitively
                    }

                    @Override
                    public String value(String name) {
                        Header header = request.getFirstHeader(name);
                        return header == null ? null : header.getValue();
                    }
                });
    }

    /** {@code call}, or its facts at {@code target} for {@code sent} when the client followed a redirect there. */
    static CallFacts redirectedTo(CallFacts call, HttpHost target, HttpRequest sent) {
        String scheme = target.getSchemeName() != null ? target.getSchemeName().toLowerCase(Locale.ROOT) : "http";
        int port = target.getPort() >= 0 ? target.getPort() : "https".equals(scheme) ? 443 : 80;
        return call.redirectedTo(scheme, target.getHostName(), port, pathOfRequest(sent));
    }

    /** No entity, or one that can be written again byte for byte (docs/reference.md#replayable-bodies). */
    static boolean isRepeatable(HttpRequest request) {
        if (!(request instanceof HttpEntityEnclosingRequest)) {
            return true;
        }
        HttpEntity entity = ((HttpEntityEnclosingRequest) request).getEntity();
        return entity == null || entity.isRepeatable();
    }

    /**
     * Whether a request of this class builds its request line from {@link HttpUriRequest#getMethod()} and
     * {@link HttpUriRequest#getURI()} ({@code URI.toASCIIString()}), as {@link HttpRequestBase} and
     * {@link HttpRequestWrapper} do: the facts then read method and path from those, without the request line that
     * a wrapper would build only to drop it again when {@code ProtocolExec} rewrites its URI, and without parsing
     * the URI a second time.
     */
    private static final ClassValue<Boolean> REQUEST_LINE_FROM_URI = new ClassValue<Boolean>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            if (!HttpUriRequest.class.isAssignableFrom(type)) {
                return Boolean.FALSE;
            }
            try {
                Class<?> declaring = type.getMethod("getRequestLine").getDeclaringClass();
                return declaring == HttpRequestBase.class || declaring == HttpRequestWrapper.class;
            } catch (NoSuchMethodException e) {
                return Boolean.FALSE;
            }
        }
    };

    /** Whether {@code request}'s request line is made of its method, URI and version ({@link #REQUEST_LINE_FROM_URI}).
     * */
    static boolean requestLineFromUri(HttpRequest request) {
        return REQUEST_LINE_FROM_URI.get(request.getClass());
    }

    /** {@link #pathOf(String)} of {@code request}'s request-line target. */
    static String pathOfRequest(HttpRequest request) {
        return requestLineFromUri(request) ? pathOfUri((HttpUriRequest) request)
                : pathOf(request.getRequestLine().getUri());
    }

    /**
     * The path of {@code request}'s request-line target, which is its URI's ASCII form: {@link #pathOf(String)} of
     * it, read from the URI itself when that is the same (an ASCII URI, absolute or without authority).
     */
    static String pathOfUri(HttpUriRequest request) {
        URI uri = request.getURI();
        if (uri != null && (uri.getScheme() != null || uri.getRawAuthority() == null) && isAscii(uri.toString())) {
            String path = uri.getRawPath();
            if (path != null && path.startsWith("/")) {
                return path; // never holds a query or fragment
            }
        }
        return pathOf(request.getRequestLine().getUri());
    }

    private static boolean isAscii(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    /**
     * The path of a request-line target (origin form {@code /a/b?q}, or absolute {@code http://h/a/b?q}), without
     * query or fragment (docs/reference.md#what-it-reports: logs never carry a query).
     */
    static String pathOf(String target) {
        if (target == null || target.isEmpty()) {
            return "/";
        }
        String path = target;
        if (!target.startsWith("/")) {
            try {
                path = URI.create(target).getRawPath();
            } catch (IllegalArgumentException e) {
                return "/";
            }
            if (path == null || !path.startsWith("/")) {
                return "/"; // no path, or the asterisk form of OPTIONS
            }
        }
        return RequestPaths.withoutQuery(path);
    }

    /** A copy of {@code request} (same request line, headers and entity) with the marker set. */
    static HttpRequest copy(HttpRequest request, String markerHeader, String marker) {
        HttpRequest copy;
        URI uri = requestLineFromUri(request) ? ((HttpUriRequest) request).getURI() : null;
        if (uri != null) {
            // The request line of the original, made the same way: the client takes the URI from the copy as it
            // would from the original, instead of parsing the request line's again.
            HttpUriRequest original = (HttpUriRequest) request;
            HttpRequestBase uriCopy = request instanceof HttpEntityEnclosingRequest
                    ? new UriCopyWithBody(original.getMethod(), ((HttpEntityEnclosingRequest) request).getEntity())
                    : new UriCopy(original.getMethod());
            uriCopy.setURI(uri);
            uriCopy.setProtocolVersion(original.getProtocolVersion());
            copy = uriCopy;
        } else if (request instanceof HttpEntityEnclosingRequest) {
            BasicHttpEntityEnclosingRequest withBody = new BasicHttpEntityEnclosingRequest(request.getRequestLine());
            withBody.setEntity(((HttpEntityEnclosingRequest) request).getEntity());
            copy = withBody;
        } else {
            copy = new BasicHttpRequest(request.getRequestLine());
        }
        copy.setHeaders(request.getAllHeaders());
        if (markerHeader != null && marker != null) {
            copy.setHeader(markerHeader, marker);
        }
        return copy;
    }

    /** {@link #copy} of a request without body. */
    static final class UriCopy extends HttpRequestBase {
        private final String method;

        UriCopy(String method) {
            this.method = method;
        }

        @Override
        public String getMethod() {
            return method;
        }
    }

    /** {@link #copy} of a request with a body. */
    static final class UriCopyWithBody extends HttpEntityEnclosingRequestBase {
        private final String method;

        UriCopyWithBody(String method, HttpEntity entity) {
            this.method = method;
            setEntity(entity);
        }

        @Override
        public String getMethod() {
            return method;
        }
    }

    /**
     * Whether the client's own retry elements are skipped for {@code request} to {@code target}: under
     * {@code builtInRetries: replace}, for a call whose rule the agent enforces
     * ({@link dev.retryagent.engine.CallPlan#replacesClientRetries}). Without a target, the policy as a whole decides.
     */
    static boolean replacesBuiltInRetries(HttpRequest request, HttpHost target) {
        RetryEngine engine = RetryRuntime.engine();
        if (engine == null) {
            return false;
        }
        if (target == null || request == null) {
            return RetryRuntime.replacesBuiltInRetries();
        }
        return engine.plan(facts(request, target, true, engine)).replacesClientRetries();
    }

    /**
     * The element {@code retryElement} ({@code RetryExec}, {@code ServiceUnavailableRetryExec}) wraps, from its
     * private field: the 4.5 API has no accessor. Null when the field is not there (the caller then lets the element
     * run: fail open).
     */
    static ClientExecChain next(ClientExecChain retryElement) throws IllegalAccessException {
        Field field = NEXT.of(retryElement.getClass());
        if (field == null) {
            return null;
        }
        Object next = field.get(retryElement);
        return next instanceof ClientExecChain ? (ClientExecChain) next : null;
    }

    static Outcome outcome(HttpResponse response) {
        InjectedFaults.at(ClientNames.APACHE_HTTPCLIENT4 + ".outcome");
        Header retryAfter = response.getFirstHeader("Retry-After");
        return Outcome.status(response.getStatusLine().getStatusCode(), retryAfter == null ? null : retryAfter.getValue());
    }

    /**
     * The context attribute saying whether the connection the last request was sent on had carried a request before:
     * {@link Boolean}, set by {@link #noteConnection}.
     */
    static final String REUSED = "dev.retryagent.connection-reused";

    /**
     * {@code HttpRequestExecutor.execute(request, connection, context)} is about to send a request: notes whether the
     * connection carried one before. A connection whose metrics cannot be read counts as fresh.
     */
    static void noteConnection(HttpConnection connection, HttpContext context) {
        if (connection == null || context == null) {
            return;
        }
        boolean reused;
        try {
            HttpConnectionMetrics metrics = connection.getMetrics();
            reused = metrics != null && metrics.getRequestCount() > 0;
        } catch (RuntimeException e) {
            reused = false; // a pooled connection already let go of
        }
        context.setAttribute(REUSED, Boolean.valueOf(reused));
    }

    /** Whether {@link #noteConnection} saw a reused connection for the last request sent in {@code context}. */
    static boolean reused(HttpContext context) {
        return context != null && Boolean.TRUE.equals(context.getAttribute(REUSED));
    }

    /** Whether the connection in {@code context} has sent more than one request, the one just sent included. */
    static boolean connectionReused(HttpContext context) {
        try {
            Object connection = context == null ? null : context.getAttribute(HttpCoreContext.HTTP_CONNECTION);
            if (!(connection instanceof HttpConnection)) {
                return false;
            }
            HttpConnectionMetrics metrics = ((HttpConnection) connection).getMetrics();
            return metrics != null && metrics.getRequestCount() > 1;
        } catch (RuntimeException e) {
            return false; // a pooled connection already let go of: counts as fresh
        }
    }

    /**
     * How an attempt that failed with {@code failure} failed (docs/reference.md#classification), {@code reused} whether
     * it was sent on a connection that had carried a request before: a protocol error there is a stale connection
     * ({@link Failures#staleConnection}).
     */
    static FailureKind classify(IOException failure, boolean reused) {
        FailureKind kind = classify(failure);
        if (kind != FailureKind.OTHER) {
            return kind;
        }
        return Failures.staleConnection(kind, isProtocolError(failure), reused);
    }

    /** A response that could not be parsed: HttpCore's protocol exceptions ({@code ParseException} wrapped in one). */
    static boolean isProtocolError(IOException failure) {
        return failure instanceof NotIoFailure && ((NotIoFailure) failure).original() instanceof ProtocolException;
    }

    /** How an attempt that failed with {@code failure} failed, by the exception alone
     * (docs/reference.md#classification). */
    static FailureKind classify(IOException failure) {
        InjectedFaults.at(ClientNames.APACHE_HTTPCLIENT4 + ".classify");
        if (failure instanceof NotIoFailure) {
            return FailureKind.OTHER; // a protocol error or the application's own exception
        }
        String type = failure.getClass().getName();
        if (type.equals("org.apache.http.conn.ConnectionPoolTimeoutException")) {
            return FailureKind.OTHER; // no connection leased in time: not the server's doing
        }
        if (type.equals("org.apache.http.conn.ConnectTimeoutException")) {
            return FailureKind.CONNECT; // an InterruptedIOException, whatever its message says
        }
        // HttpHostConnectException (refused) is a ConnectException
        FailureKind byType = Failures.byJdkType(failure);
        if (byType != null) {
            return byType;
        }
        if (type.equals("org.apache.http.NoHttpResponseException")
                || type.equals("org.apache.http.ConnectionClosedException")
                || type.equals("org.apache.http.TruncatedChunkException")) {
            return FailureKind.RESET; // closed before a complete response
        }
        return FailureKind.OTHER;
    }

    /**
     * The failure a call {@code RetryExec} gave up on ends with: it names the target in a
     * {@code NoHttpResponseException} ("HOST:PORT failed to respond") unless the call was aborted, so a caller sees
     * the same when the agent skips it.
     */
    static IOException asRetryExecEnds(NoHttpResponseException failure, HttpRoute route, HttpExecutionAware execAware) {
        if (route == null || (execAware != null && execAware.isAborted())) {
            return failure;
        }
        NoHttpResponseException named = new NoHttpResponseException(
                route.getTargetHost().toHostString() + " failed to respond");
        named.setStackTrace(failure.getStackTrace());
        return named;
    }

    /**
     * Releases a response the caller will never see: its body is read to the end, which hands a reusable
     * connection back to the pool, then the response is closed (which discards a connection that could not be
     * drained, rather than leaking it).
     */
    static void discard(CloseableHttpResponse response) {
        try {
            InjectedFaults.at(ClientNames.APACHE_HTTPCLIENT4 + ".discard");
            EntityUtils.consume(response.getEntity());
        } catch (IOException e) {
            // close() below discards the connection
        } finally {
            Closeables.closeQuietly(response);
        }
    }
}
