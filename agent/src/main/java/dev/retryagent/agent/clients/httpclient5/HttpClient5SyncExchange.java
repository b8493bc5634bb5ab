package dev.retryagent.agent.clients.httpclient5;

import dev.retryagent.agent.bootloader.runtime.Failures;
import dev.retryagent.agent.bootloader.runtime.NotIoFailure;
import dev.retryagent.engine.Exchange;
import dev.retryagent.engine.Outcome;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.ClientNames;
import dev.retryagent.policy.FailureKind;
import java.io.IOException;
import org.apache.hc.client5.http.classic.ExecChain;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.MinimalHttpClient;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.concurrent.CancellableDependency;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.io.support.ClassicRequestBuilder;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * One classic HttpClient 5 call as the retry loop sees it. Every attempt sends a fresh copy of the request
 * (the client's protocol stage adds headers to the request it is given, so the request itself stays
 * pristine), with the marker header set; the entity is shared, which is why only repeatable entities are
 * retried. Two ways to send: down the exec chain ({@link Chain}), or, for {@code MinimalHttpClient}, which
 * has no exec chain, through the client's own {@code execute} ({@link Minimal}).
 */
abstract class HttpClient5SyncExchange implements Exchange<ClassicHttpResponse> {
    private final ClassicHttpRequest request;
    private final String markerHeader;

    HttpClient5SyncExchange(ClassicHttpRequest request, String markerHeader) {
        this.request = request;
        this.markerHeader = markerHeader;
    }

    /** Sends one attempt: {@code attempt} is a copy of the request, the marker set. */
    abstract ClassicHttpResponse proceed(ClassicHttpRequest attempt) throws IOException, HttpException;

    /** The context the attempts run in, or null when the client makes one of its own per attempt. */
    abstract HttpContext context();

    /** True once the application aborted the call: no further attempt. */
    abstract boolean isAborted();

    /** The last attempt ran with a response timeout the agent shortened to its limit. */
    private boolean shortened;

    /**
     * Attempt {@code attempt} with the call's {@code RequestConfig} bounded by {@code limitMillis} on its context,
     * where the exec chain reads it, and put back afterwards.
     */
    @Override
    public final ClassicHttpResponse send(int attempt, String marker, long limitMillis) throws IOException {
        HttpContext context = limitMillis > 0 ? context() : null;
        if (context == null) {
            return send(attempt, marker);
        }
        HttpClientContext clientContext;
        RequestConfig own;
        try {
            clientContext = HttpClientContext.adapt(context);
            own = clientContext.getRequestConfig();
            clientContext.setRequestConfig(HttpClient5Requests.bounded(own, limitMillis));
        } catch (RuntimeException e) {
            RetryLog.internalError(ClientNames.APACHE_HTTPCLIENT5 + ".attempt-timeout", e); // the client's own alone
            return send(attempt, marker);
        }
        try {
            return send(attempt, marker);
        } catch (IOException e) {
            shortened = HttpClient5Requests.shortensResponse(own, limitMillis);
            throw e;
        } finally {
            clientContext.setRequestConfig(own);
        }
    }

    @Override
    public final boolean cutShort(IOException failure) {
        return Failures.cutShort(failure, shortened);
    }

    @Override
    public final ClassicHttpResponse send(int attempt, String marker) throws IOException {
        shortened = false;
        ClassicHttpRequest copy = ClassicRequestBuilder.copy(request).build();
        if (markerHeader != null && marker != null) {
            copy.setHeader(markerHeader, marker);
        }
        try {
            return proceed(copy);
        } catch (HttpException e) {
            throw new NotIoFailure(e);
        }
    }

    @Override
    public final Outcome outcome(ClassicHttpResponse response) {
        return HttpClient5Requests.outcome(response);
    }

    @Override
    public final FailureKind classify(IOException failure) {
        return isAborted() ? FailureKind.OTHER : HttpClient5Requests.classify(failure, context());
    }

    @Override
    public final boolean unsent(IOException failure, FailureKind kind) {
        return HttpClient5Requests.unsent(failure, kind);
    }

    @Override
    public final void discard(ClassicHttpResponse response) {
        HttpClient5Requests.discard(response);
    }

    /**
     * An exec chain call: each attempt is a {@code chain.proceed()} within the same scope, as the client's own
     * {@code HttpRequestRetryExec} makes its attempts.
     */
    static final class Chain extends HttpClient5SyncExchange {
        private final ExecChain chain;
        private final ExecChain.Scope scope;

        Chain(ClassicHttpRequest request, String markerHeader, ExecChain chain, ExecChain.Scope scope) {
            super(request, markerHeader);
            this.chain = chain;
            this.scope = scope;
        }

        @Override
        ClassicHttpResponse proceed(ClassicHttpRequest attempt) throws IOException, HttpException {
            return chain.proceed(attempt, scope);
        }

        @Override
        HttpContext context() {
            return scope.clientContext;
        }

        @Override
        boolean isAborted() {
            return scope.execRuntime.isExecutionAborted();
        }
    }

    /**
     * A {@code MinimalHttpClient} call: each attempt is the client's own {@code execute(target, request, context)},
     * which the re-entrancy guard of the hook lets through to the original {@code doExecute}.
     */
    static final class Minimal extends HttpClient5SyncExchange {
        private final MinimalHttpClient client;
        private final HttpHost target;
        private final HttpContext context;
        private final ClassicHttpRequest original;

        Minimal(MinimalHttpClient client, HttpHost target, ClassicHttpRequest request, HttpContext context,
                String markerHeader) {
            super(request, markerHeader);
            this.client = client;
            this.target = target;
            this.original = request;
            this.context = context;
        }

        @Override
        ClassicHttpResponse proceed(ClassicHttpRequest attempt) throws IOException {
            return client.execute(target, attempt, context);
        }

        @Override
        HttpContext context() {
            return context;
        }

        @Override
        boolean isAborted() {
            // HttpUriRequestBase (HttpGet, HttpPost, ...) can be cancelled by the application
            return original instanceof CancellableDependency && ((CancellableDependency) original).isCancelled();
        }
    }
}
