package dev.retryagent.agent.clients.httpclient5;

import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.runtime.NotIoFailure;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.engine.RetryLoop;
import java.io.IOException;
import org.apache.hc.client5.http.classic.ExecChain;
import org.apache.hc.client5.http.classic.ExecChainHandler;
import org.apache.hc.client5.http.config.Configurable;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.MinimalHttpClient;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.NoHttpResponseException;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * The exec chain handler the agent adds to every classic client an {@code HttpClientBuilder} builds, just
 * before the {@code PROTOCOL} element: where the client's own {@code HttpRequestRetryExec} sits, which it
 * replaces under {@code builtInRetries: replace}. A call is retried right here by the shared {@link RetryLoop},
 * on the caller's thread; every attempt is a {@code chain.proceed()}, and a discarded response is read to its
 * end and closed, so its connection goes back to the pool before the wait.
 *
 * <p>Also serves {@code MinimalHttpClient}, which has no exec chain ({@link #executeMinimal}).
 */
public final class ClassicRetryHandler implements ExecChainHandler {
    /** The name of the element in the client's exec chain. */
    static final String NAME = "retry-agent";
    static final ClassicRetryHandler INSTANCE = new ClassicRetryHandler();

    /**
     * The scope of the call this handler is running on this thread: the {@code PROTOCOL} element it proceeds to
     * is then not a client built without the handler ({@link #executeAtProtocol}). Attempts of a classic call run
     * on the caller's thread.
     */
    private static final ThreadLocal<ExecChain.Scope> HANDLING = new ThreadLocal<ExecChain.Scope>();

    private ClassicRetryHandler() {
    }

    @Override
    public ClassicHttpResponse execute(ClassicHttpRequest request, ExecChain.Scope scope, ExecChain chain)
            throws IOException, HttpException {
        ExecChain.Scope outer = HANDLING.get();
        HANDLING.set(scope);
        try {
            return retried(request, scope, chain);
        } finally {
            // Set back, null included, rather than removed: a removed entry is made anew by the next call's set.
            HANDLING.set(outer);
        }
    }

    /**
     * {@code ProtocolExec.execute(request, scope, chain)} of a client whose chain has no retry handler (built before
     * the agent started): the handler runs here, where it would have sat, and each attempt is that
     * {@code ProtocolExec} again, which the hook's re-entrancy guard lets through. {@link Hooks#PROCEED} when the
     * handler is in the chain already, or the agent is not running.
     */
    static Object executeAtProtocol(ExecChainHandler protocol, ClassicHttpRequest request, ExecChain.Scope scope,
                                    ExecChain chain) throws IOException, HttpException {
        if (protocol == null || request == null || scope == null || chain == null || HANDLING.get() == scope
                || RetryRuntime.loop() == null) {
            return Hooks.PROCEED;
        }
        return INSTANCE.execute(request, scope, new ThroughProtocol(protocol, chain));
    }

    /**
     * {@code HttpRequestRetryExec.execute(request, scope, chain)}: under {@code builtInRetries: replace} straight on
     * to the next element, as if the client had been built with {@code disableAutomaticRetries()}; otherwise
     * {@link Hooks#PROCEED}. Asked per call, so a reload decides it for clients already built.
     */
    static Object skipBuiltInRetries(ClassicHttpRequest request, ExecChain.Scope scope, ExecChain chain)
            throws IOException, HttpException {
        // An error of the agent's own in this check reaches Hooks, which lets the client's own retries run (fail open).
        if (chain == null || !HttpClient5Requests.replacesBuiltInRetries(request, scope == null ? null : scope.route)) {
            return Hooks.PROCEED;
        }
        try {
            return chain.proceed(request, scope);
        } catch (NoHttpResponseException e) {
            throw HttpClient5Requests.asTheRetryElementEnds(e, request, scope);
        } catch (RuntimeException e) {
            throw new Hooks.Propagate(e); // the client's or the application's own, as without the agent
        }
    }

    /** The rest of the chain from {@code PROTOCOL} on, for a client built without the retry handler. */
    static final class ThroughProtocol implements ExecChain {
        private final ExecChainHandler protocol;
        private final ExecChain next;

        ThroughProtocol(ExecChainHandler protocol, ExecChain next) {
            this.protocol = protocol;
            this.next = next;
        }

        @Override
        public ClassicHttpResponse proceed(ClassicHttpRequest request, Scope scope) throws IOException, HttpException {
            return protocol.execute(request, scope, next);
        }
    }

    private ClassicHttpResponse retried(ClassicHttpRequest request, ExecChain.Scope scope, ExecChain chain)
            throws IOException, HttpException {
        RetryLoop loop = RetryRuntime.loop();
        CallFacts facts = null;
        String markerHeader = null;
        if (loop != null) {
            try {
                facts = HttpClient5Requests.facts(request, scope.route.getTargetHost(), isRepeatable(request),
                        loop.engine());
                markerHeader = facts.policy().markerHeader();
            } catch (RuntimeException e) {
                RetryLog.internalError("apache-httpclient5.classic", e);
                facts = null;
            }
        }
        if (facts == null) {
            return chain.proceed(request, scope);
        }
        try {
            return loop.execute(facts, new HttpClient5SyncExchange.Chain(request, markerHeader, chain, scope));
        } catch (NotIoFailure e) {
            throw (HttpException) e.original(); // the only checked exception the chain throws besides IOException
        }
    }

    /**
     * {@code MinimalHttpClient.doExecute(target, request, context)}: the whole call, retried, or
     * {@link Hooks#PROCEED} to let the original method run it untouched (the agent is not running, or something
     * about the call is not understood: the client reports its own errors).
     */
    static Object executeMinimal(MinimalHttpClient client, HttpHost target, ClassicHttpRequest request,
                                 HttpContext context) throws IOException {
        RetryLoop loop = RetryRuntime.loop();
        if (loop == null || client == null || target == null || request == null) {
            return Hooks.PROCEED;
        }
        CallFacts facts;
        HttpClient5SyncExchange exchange;
        try {
            facts = HttpClient5Requests.facts(request, target, isRepeatable(request), loop.engine());
            exchange = new HttpClient5SyncExchange.Minimal(client, target, request,
                    contextCarryingConfig(request, context), facts.policy().markerHeader());
        } catch (RuntimeException e) {
            RetryLog.internalError("apache-httpclient5.minimal", e);
            return Hooks.PROCEED;
        }
        return loop.execute(facts, exchange);
    }

    /**
     * The attempts are copies of the request, which do not carry its {@code RequestConfig} (timeouts): the
     * context does, as {@code doExecute} itself would have put it there. Never null.
     */
    private static HttpContext contextCarryingConfig(ClassicHttpRequest request, HttpContext context) {
        RequestConfig config = request instanceof Configurable ? ((Configurable) request).getConfig() : null;
        if (config == null) {
            // without one of its own, the client would make a context per attempt: one for the call lets the
            // agent see the connection an attempt failed on (HttpClient5Requests.reusedBeforeHead)
            return context == null ? HttpClientContext.create() : context;
        }
        HttpClientContext clientContext = context == null ? HttpClientContext.create() : HttpClientContext.adapt(context);
        clientContext.setRequestConfig(config);
        return clientContext;
    }

    /** No entity, or one that can be written again byte for byte (docs/reference.md#replayable-bodies). */
    static boolean isRepeatable(ClassicHttpRequest request) {
        HttpEntity entity = request.getEntity();
        return entity == null || entity.isRepeatable();
    }

    @Override
    public String toString() {
        return NAME;
    }
}
