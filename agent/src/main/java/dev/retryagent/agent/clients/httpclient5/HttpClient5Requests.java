package dev.retryagent.agent.clients.httpclient5;

import dev.retryagent.agent.bootloader.runtime.Closeables;
import dev.retryagent.agent.bootloader.runtime.Failures;
import dev.retryagent.agent.bootloader.runtime.InjectedFaults;
import dev.retryagent.agent.bootloader.runtime.NotIoFailure;
import dev.retryagent.agent.bootloader.runtime.RequestPaths;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.HeaderLookup;
import dev.retryagent.engine.Outcome;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.policy.ClientNames;
import dev.retryagent.policy.FailureKind;
import java.io.IOException;
import java.util.Locale;
import org.apache.hc.client5.http.HttpRoute;
import org.apache.hc.client5.http.classic.ExecChain;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.EndpointDetails;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.MessageConstraintException;
import org.apache.hc.core5.http.NoHttpResponseException;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.http.protocol.HttpCoreContext;
import org.apache.hc.core5.util.Timeout;

/**
 * HttpClient 5 requests, responses and failures in the engine's terms. Shared by the classic and the async
 * adapters; loaded in HttpClient's class loader (see {@link HttpClient5Instrumentation}).
 */
final class HttpClient5Requests {
    private HttpClient5Requests() {
    }

    /**
     * What the engine needs to know about {@code request}, sent to {@code target}, read under {@code engine}'s policy.
     *
     * @param bodyReplayable the request has no body, or an entity or entity producer that is repeatable
     */
    static CallFacts facts(final HttpRequest request, HttpHost target, boolean bodyReplayable, RetryEngine engine) {
        InjectedFaults.at(ClientNames.APACHE_HTTPCLIENT5 + ".facts");
        String scheme = target.getSchemeName() != null ? target.getSchemeName().toLowerCase(Locale.ROOT) : "http";
        int port = target.getPort() >= 0 ? target.getPort() : "https".equals(scheme) ? 443 : 80;
        return CallFacts.builder(ClientNames.APACHE_HTTPCLIENT5, request.getMethod(), scheme, target.getHostName(),
                        port, RequestPaths.withoutQuery(request.getPath()))
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

    /**
     * Whether the client's own retry element is skipped for {@code request} to {@code route}'s target: under
     * {@code builtInRetries: replace}, for a call whose rule the agent enforces ({@link
     * dev.retryagent.engine.CallPlan#replacesClientRetries}). Without a route (not seen in HttpClient's own chains), the
     * policy as a whole decides.
     */
    static boolean replacesBuiltInRetries(HttpRequest request, HttpRoute route) {
        RetryEngine engine = RetryRuntime.engine();
        if (engine == null) {
            return false;
        }
        if (route == null || route.getTargetHost() == null) {
            return RetryRuntime.replacesBuiltInRetries();
        }
        return engine.plan(facts(request, route.getTargetHost(), true, engine)).replacesClientRetries();
    }

    static Outcome outcome(HttpResponse response) {
        InjectedFaults.at(ClientNames.APACHE_HTTPCLIENT5 + ".outcome");
        Header retryAfter = response.getFirstHeader("Retry-After");
        return Outcome.status(response.getCode(), retryAfter == null ? null : retryAfter.getValue());
    }

    /**
     * How an attempt that failed with {@code failure} failed (docs/reference.md#classification), {@code context} the
     * call's context: a protocol error on a connection the pool handed out again is a stale connection ({@link
     * Failures#staleConnection}).
     */
    /**
     * {@code own} with its connect and response timeouts each at most {@code limitMillis}, the attempt's limit from
     * the policy; {@code own} itself when both are shorter. A timeout the request does not set (null) or disables
     * counts as longer: the client would wait as long as the connection's own socket timeout.
     */
    @SuppressWarnings("deprecation") // the connect timeout of RequestConfig, still read per request through 5.6
    static RequestConfig bounded(RequestConfig own, long limitMillis) {
        if (own == null) {
            own = RequestConfig.DEFAULT; // what the client reads when the call set none
        }
        boolean connect = exceeds(own.getConnectTimeout(), limitMillis);
        boolean response = exceeds(own.getResponseTimeout(), limitMillis);
        if (!connect && !response) {
            return own;
        }
        RequestConfig.Builder bounded = RequestConfig.copy(own);
        if (connect) {
            bounded.setConnectTimeout(Timeout.ofMilliseconds(limitMillis));
        }
        if (response) {
            bounded.setResponseTimeout(Timeout.ofMilliseconds(limitMillis));
        }
        return bounded.build();
    }

    /** Whether {@link #bounded} shortens the response timeout, what a dependency that does not answer runs into. */
    static boolean shortensResponse(RequestConfig own, long limitMillis) {
        return limitMillis > 0 && (own == null || exceeds(own.getResponseTimeout(), limitMillis));
    }

    private static boolean exceeds(Timeout own, long limitMillis) {
        return own == null || own.isDisabled() || own.toMilliseconds() > limitMillis;
    }

    static FailureKind classify(IOException failure, HttpContext context) {
        FailureKind kind = classify(failure);
        if (kind != FailureKind.OTHER) {
            return kind;
        }
        return Failures.staleConnection(kind, isProtocolError(failure), reusedBeforeHead(context));
    }

    /** A response that could not be parsed: HttpCore's protocol exceptions and its message constraints. */
    static boolean isProtocolError(IOException failure) {
        if (failure instanceof NotIoFailure) {
            return ((NotIoFailure) failure).original() instanceof HttpException; // ProtocolException, ParseException
        }
        return failure instanceof MessageConstraintException;
    }

    /**
     * Whether the connection the failed attempt ran on had carried an earlier request, and this attempt's response
     * head had not arrived: the connection's own counters, which HttpCore puts into the context (as
     * {@code EndpointDetails}) before it writes a request on the connection, classic and async alike. Every exchange
     * on a connection passes there first, so a protocol error always finds the details of its own connection.
     */
    static boolean reusedBeforeHead(HttpContext context) {
        if (context == null) {
            return false;
        }
        Object details = context instanceof HttpCoreContext ? ((HttpCoreContext) context).getEndpointDetails()
                : context.getAttribute(HttpCoreContext.CONNECTION_ENDPOINT);
        if (!(details instanceof EndpointDetails)) {
            return false;
        }
        long requests = ((EndpointDetails) details).getRequestCount();
        long responses = ((EndpointDetails) details).getResponseCount();
        return requests >= 2 && responses < requests;
    }

    /**
     * Whether {@code failure}, of {@code kind}, came before any byte of the request went out: a connect failure, or a
     * leased connection found closed before the request was written on it ({@code RequestNotExecutedException}).
     */
    static boolean unsent(IOException failure, FailureKind kind) {
        return kind == FailureKind.CONNECT
                || failure.getClass().getName().equals("org.apache.hc.core5.http.RequestNotExecutedException");
    }

    /** How an attempt that failed with {@code failure} failed, by the exception alone
     * (docs/reference.md#classification). */
    static FailureKind classify(IOException failure) {
        InjectedFaults.at(ClientNames.APACHE_HTTPCLIENT5 + ".classify");
        if (failure instanceof NotIoFailure) {
            return FailureKind.OTHER; // a protocol error or the application's own exception
        }
        String type = failure.getClass().getName();
        if (type.equals("org.apache.hc.client5.http.ConnectTimeoutException")) {
            return FailureKind.CONNECT; // a SocketTimeoutException whatever its message says
        }
        // HttpHostConnectException (refused) is a ConnectException
        FailureKind byType = Failures.byJdkType(failure);
        if (byType != null) {
            return byType;
        }
        if (type.equals("org.apache.hc.core5.http.NoHttpResponseException")
                || type.equals("org.apache.hc.core5.http.ConnectionClosedException")
                || type.equals("org.apache.hc.core5.http.RequestNotExecutedException")) {
            // closed before a complete response; the last: a leased connection found closed before the request went
            // out on it (the async client's stale pooled connection). The client's own strategy never resends it (it
            // is a ConnectionClosedException), so a GET the client alone loses there is recovered by the policy.
            return FailureKind.RESET;
        }
        if (failure instanceof MessageConstraintException) {
            // A response head past the client's limits: ten lines of garbage where the status line belongs ("Maximum
            // empty line limit exceeded"), too long a line, too many headers. The client's own retry strategy resends
            // an idempotent request after it, on a fresh connection as on a reused one (it is an IOException it does
            // not exclude), so under builtInRetries: replace the agent must too, or the call is lost.
            return FailureKind.RESET;
        }
        return FailureKind.OTHER;
    }

    /**
     * The failure a call the client's retry element ({@code HttpRequestRetryExec}) gave up on ends with: that element
     * names the target in a {@code NoHttpResponseException} ("HOST:PORT failed to respond") unless the call was
     * aborted or its entity cannot be sent again, so a caller sees the same when the agent skips the element.
     */
    static IOException asTheRetryElementEnds(NoHttpResponseException failure, ClassicHttpRequest request,
                                             ExecChain.Scope scope) {
        HttpEntity entity = request.getEntity();
        if (scope == null || scope.route == null || scope.execRuntime.isExecutionAborted()
                || (entity != null && !entity.isRepeatable())) {
            return failure;
        }
        NoHttpResponseException named = new NoHttpResponseException(
                scope.route.getTargetHost().toHostString() + " failed to respond");
        named.setStackTrace(failure.getStackTrace());
        return named;
    }

    /**
     * Releases a response the caller will never see: its body is read to the end, which hands a reusable
     * connection back to the pool, then the response is closed (which discards a connection that could not be
     * drained, rather than leaking it).
     */
    static void discard(ClassicHttpResponse response) {
        try {
            InjectedFaults.at(ClientNames.APACHE_HTTPCLIENT5 + ".discard");
            EntityUtils.consume(response.getEntity());
        } catch (IOException e) {
            // close() below discards the connection
        } finally {
            // Also after an unchecked exception of the entity: a response left open keeps its pooled connection
            // leased, and a pool that runs dry makes every later call wait for a lease.
            Closeables.closeQuietly(response);
        }
    }
}
