package dev.retryagent.agent.clients.httpclient4;

import dev.retryagent.agent.bootloader.runtime.Failures;
import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.runtime.NotIoFailure;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.Exchange;
import dev.retryagent.engine.Outcome;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.engine.RetryLoop;
import dev.retryagent.policy.ClientNames;
import dev.retryagent.policy.FailureKind;
import java.io.IOException;
import org.apache.http.Header;
import org.apache.http.HttpException;
import org.apache.http.HttpHost;
import org.apache.http.NoHttpResponseException;
import org.apache.http.client.config.RequestConfig;
import org.apache.http.client.methods.CloseableHttpResponse;
import org.apache.http.client.methods.HttpExecutionAware;
import org.apache.http.client.methods.HttpRequestWrapper;
import org.apache.http.client.protocol.HttpClientContext;
import org.apache.http.conn.routing.HttpRoute;
import org.apache.http.impl.execchain.ClientExecChain;
import org.apache.http.impl.execchain.RetryExec;

/**
 * One classic HttpClient 4 call as the retry loop sees it, and the entry points that run it. A call runs in the
 * shared {@link RetryLoop} at the entry of {@code ProtocolExec} (or {@code MinimalClientExec}), on the caller's
 * thread: where the client's own {@code RetryExec} would make its attempts, inside redirects. Each attempt is that
 * element again, with the request wrapper's headers as the call began plus the marker, exactly as {@code RetryExec}
 * resends (the protocol stage adds headers to the wrapper it is given, and refuses a second {@code Content-Length}).
 */
final class HttpClient4SyncExchange implements Exchange<CloseableHttpResponse> {
    private final ClientExecChain element;
    private final HttpRoute route;
    private final HttpRequestWrapper request;
    private final HttpClientContext context;
    private final HttpExecutionAware execAware;
    private final String markerHeader;
    private final Header[] headers;

    private HttpClient4SyncExchange(ClientExecChain element, HttpRoute route, HttpRequestWrapper request,
                                    HttpClientContext context, HttpExecutionAware execAware, String markerHeader) {
        this.element = element;
        this.route = route;
        this.request = request;
        this.context = context;
        this.execAware = execAware;
        this.markerHeader = markerHeader;
        this.headers = request.getAllHeaders();
    }

    /** The last attempt ran with a socket timeout the agent shortened to its limit. */
    private boolean shortened;

    /**
     * Attempt {@code attempt} with the call's {@code RequestConfig} bounded by {@code limitMillis} on its context,
     * where the exec chain reads it, and put back afterwards.
     */
    @Override
    public CloseableHttpResponse send(int attempt, String marker, long limitMillis) throws IOException {
        if (limitMillis <= 0) {
            return send(attempt, marker);
        }
        Object raw;
        RequestConfig own;
        try {
            raw = context.getAttribute(HttpClientContext.REQUEST_CONFIG);
            own = context.getRequestConfig();
            context.setRequestConfig(HttpClient4AttemptLimits.bounded(own, limitMillis));
        } catch (RuntimeException e) {
            RetryLog.internalError(ClientNames.APACHE_HTTPCLIENT4 + ".attempt-timeout", e); // the client's own alone
            return send(attempt, marker);
        }
        try {
            return send(attempt, marker);
        } catch (IOException e) {
            shortened = HttpClient4AttemptLimits.shortensSocket(own, limitMillis);
            throw e;
        } finally {
            context.setAttribute(HttpClientContext.REQUEST_CONFIG, raw);
        }
    }

    @Override
    public boolean cutShort(IOException failure) {
        return Failures.cutShort(failure, shortened);
    }

    @Override
    public CloseableHttpResponse send(int attempt, String marker) throws IOException {
        shortened = false;
        if (attempt > 1) {
            request.setHeaders(headers); // the first goes out with them as they are
        }
        context.removeAttribute(HttpClient4Requests.REUSED);
        if (markerHeader != null && marker != null) {
            request.setHeader(markerHeader, marker);
        }
        try {
            // the same element again: the hook's re-entrancy guard runs its body
            return element.execute(route, request, context, execAware);
        } catch (HttpException e) {
            throw new NotIoFailure(e);
        }
    }

    @Override
    public Outcome outcome(CloseableHttpResponse response) {
        return HttpClient4Requests.outcome(response);
    }

    @Override
    public FailureKind classify(IOException failure) {
        return execAware != null && execAware.isAborted() ? FailureKind.OTHER
                : HttpClient4Requests.classify(failure, HttpClient4Requests.reused(context));
    }

    @Override
    public void discard(CloseableHttpResponse response) {
        HttpClient4Requests.discard(response);
    }

    /**
     * {@code ProtocolExec.execute} or {@code MinimalClientExec.execute}: the whole call, retried, or
     * {@link Hooks#PROCEED} to let the original method run it untouched (the agent is not running, or something about
     * the call is not understood: the client reports its own errors).
     */
    static Object execute(ClientExecChain element, HttpRoute route, HttpRequestWrapper request,
                          HttpClientContext context, HttpExecutionAware execAware) {
        RetryLoop loop = RetryRuntime.loop();
        if (loop == null || element == null || route == null || request == null || context == null
                || route.getTargetHost() == null) {
            return Hooks.PROCEED;
        }
        CallFacts facts;
        HttpClient4SyncExchange exchange;
        try {
            facts = takeFacts(request, route.getTargetHost(), loop.engine());
            exchange = new HttpClient4SyncExchange(element, route, request, context, execAware,
                    facts.policy().markerHeader());
        } catch (RuntimeException e) {
            RetryLog.internalError("apache-httpclient4.classic", e);
            return Hooks.PROCEED;
        }
        try {
            return loop.execute(facts, exchange);
        } catch (NotIoFailure e) {
            throw new Hooks.Propagate(e.original()); // HttpException: the chain's own, as without the agent
        } catch (IOException e) {
            throw new Hooks.Propagate(e); // the client's own failure of the last attempt
        } catch (RuntimeException e) {
            throw new Hooks.Propagate(e); // from the client, or from the application's entity or interceptors
        }
    }

    /**
     * {@code RetryExec.execute} or {@code ServiceUnavailableRetryExec.execute}: under {@code builtInRetries: replace}
     * straight on to the element it wraps; otherwise {@link Hooks#PROCEED}. Asked per call, so a reload decides it
     * for clients already built.
     */
    static Object skipBuiltInRetries(ClientExecChain retryElement, HttpRoute route, HttpRequestWrapper request,
                                     HttpClientContext context, HttpExecutionAware execAware) {
        // An error of the agent's own here reaches Hooks, which lets the client's own retries run (fail open).
        if (retryElement == null || !replacesBuiltInRetries(request, route == null ? null : route.getTargetHost())) {
            return Hooks.PROCEED;
        }
        ClientExecChain next;
        try {
            next = HttpClient4Requests.next(retryElement);
        } catch (IllegalAccessException e) {
            RetryLog.internalError("apache-httpclient4.retry-exec", e);
            return Hooks.PROCEED;
        }
        if (next == null) {
            return Hooks.PROCEED;
        }
        try {
            return next.execute(route, request, context, execAware);
        } catch (NoHttpResponseException e) {
            throw new Hooks.Propagate(retryElement instanceof RetryExec
                    ? HttpClient4Requests.asRetryExecEnds(e, route, execAware) : e);
        } catch (IOException e) {
            throw new Hooks.Propagate(e); // the client's or the application's own, as without the agent
        } catch (HttpException e) {
            throw new Hooks.Propagate(e);
        } catch (RuntimeException e) {
            throw new Hooks.Propagate(e);
        }
    }

    /**
     * Whether the client's own retry elements are skipped for {@code request} to {@code target}
     * ({@link HttpClient4Requests#replacesBuiltInRetries}), the call's facts read here kept for the element it wraps.
     */
    private static boolean replacesBuiltInRetries(HttpRequestWrapper request, HttpHost target) {
        RetryEngine engine = RetryRuntime.engine();
        if (engine == null || target == null || request == null) {
            return HttpClient4Requests.replacesBuiltInRetries(request, target);
        }
        return engine.plan(passOnFacts(request, target, engine)).replacesClientRetries();
    }

    /**
     * The facts a retry element's hook read for the request it hands on, on this thread, until the hook of the
     * element that runs the call takes them. {@code RetryExec} (and {@code ServiceUnavailableRetryExec}) pass the same
     * request wrapper and route on to {@code ProtocolExec} without a change to its headers, so a call's facts are
     * read once, not once per element (unless a reload came in between).
     */
    private static final ThreadLocal<PassedOn> PASSED_ON = new ThreadLocal<PassedOn>() {
        @Override
        protected PassedOn initialValue() {
            return new PassedOn();
        }
    };

    private static final class PassedOn {
        HttpRequestWrapper request;
        HttpHost target;
        CallFacts facts;
    }

    /** The facts of {@code request} to {@code target}: those an element further out read already, or read now. */
    private static CallFacts passOnFacts(HttpRequestWrapper request, HttpHost target, RetryEngine engine) {
        PassedOn passed = PASSED_ON.get();
        if (passed.request != request || passed.target != target || passed.facts.policy() != engine.policy()) {
            passed.facts = HttpClient4Requests.facts(request, target, HttpClient4Requests.isRepeatable(request),
                    engine);
            passed.request = request;
            passed.target = target;
        }
        return passed.facts;
    }

    /**
     * As {@link #passOnFacts}, for the element that runs the call: the facts are taken, so that a later call (a
     * re-execution by the client's own retry element included) reads its own.
     */
    private static CallFacts takeFacts(HttpRequestWrapper request, HttpHost target, RetryEngine engine) {
        PassedOn passed = PASSED_ON.get();
        CallFacts facts = passed.request == request && passed.target == target
                && passed.facts.policy() == engine.policy() ? passed.facts : null;
        passed.request = null;
        passed.target = null;
        passed.facts = null;
        return facts != null ? facts
                : HttpClient4Requests.facts(request, target, HttpClient4Requests.isRepeatable(request), engine);
    }
}
