package dev.retryagent.agent.clients.httpclient5;

import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.engine.AsyncRetryLoop;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.engine.RetryLog;
import java.io.IOException;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.async.AsyncExecChain;
import org.apache.hc.client5.http.async.AsyncExecChainHandler;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;

/**
 * The async exec chain handler the agent adds to every client an {@code HttpAsyncClientBuilder} builds, just
 * before the {@code PROTOCOL} element, where the client's own {@code AsyncHttpRequestRetryExec} sits (and
 * which it replaces under {@code builtInRetries: replace}). Each call runs in the shared
 * {@link AsyncRetryLoop}: retries are scheduled on the agent's scheduler thread, never waited for on an I/O
 * reactor thread or in a callback, and the rest of the chain (towards the application's future and callback)
 * hears of exactly one response or one failure. See {@link HttpClient5AsyncExchange}.
 */
public final class AsyncRetryHandler implements AsyncExecChainHandler {
    static final String NAME = ClassicRetryHandler.NAME;
    static final AsyncRetryHandler INSTANCE = new AsyncRetryHandler();

    /**
     * The scopes of the calls this handler runs: the {@code PROTOCOL} element they proceed to is then not a client
     * built without the handler ({@link #executeAtProtocol}). A set, not a thread-local: later attempts start on
     * the agent's scheduler thread. Weak keys (scopes compare by identity): an entry goes with its call.
     */
    private static final Map<AsyncExecChain.Scope, Boolean> HANDLED =
            Collections.synchronizedMap(new WeakHashMap<AsyncExecChain.Scope, Boolean>());

    private AsyncRetryHandler() {
    }

    /**
     * The loop is done with the call of {@code scope}: no attempt of it starts any more. Its entry goes now rather
     * than when the scope is collected: a map that only loses entries at garbage collection grows between
     * collections by one entry per call and keeps resizing. Before the result reaches the rest of the chain, which
     * may proceed with the same scope again (a redirect), and so put it back.
     */
    static void finished(AsyncExecChain.Scope scope) {
        if (scope != null) {
            HANDLED.remove(scope);
        }
    }

    /**
     * {@code AsyncProtocolExec.execute(...)} of a client whose chain has no retry handler (built before the agent
     * started): true when the handler ran the call here, where it would have sat, each attempt being that
     * {@code AsyncProtocolExec} again; false to let the body run (the handler is in the chain already, this is one
     * of its attempts, or the agent is not running).
     */
    static boolean executeAtProtocol(AsyncExecChainHandler protocol, HttpRequest request, AsyncEntityProducer producer,
                                     AsyncExecChain.Scope scope, AsyncExecChain chain, AsyncExecCallback callback)
            throws HttpException, IOException {
        if (protocol == null || request == null || scope == null || chain == null || callback == null
                || HANDLED.containsKey(scope) || RetryRuntime.asyncLoop() == null) {
            return false;
        }
        INSTANCE.execute(request, producer, scope, new ThroughProtocol(protocol, chain), callback);
        return true;
    }

    /**
     * {@code AsyncHttpRequestRetryExec.execute(...)}: under {@code builtInRetries: replace} straight on to the next
     * element (true: the body must not run), as if the client had been built with {@code disableAutomaticRetries()}.
     */
    static boolean skipBuiltInRetries(HttpRequest request, AsyncEntityProducer producer, AsyncExecChain.Scope scope,
                                      AsyncExecChain chain, AsyncExecCallback callback) throws HttpException, IOException {
        // An error of the agent's own in this check reaches Hooks, which lets the client's own retries run (fail open).
        if (chain == null || !HttpClient5Requests.replacesBuiltInRetries(request, scope == null ? null : scope.route)) {
            return false;
        }
        try {
            chain.proceed(request, producer, scope, callback);
        } catch (RuntimeException e) {
            throw new Hooks.Propagate(e); // the client's or the application's own, as without the agent
        }
        return true;
    }

    /** The rest of the chain from {@code PROTOCOL} on, for a client built without the retry handler. */
    static final class ThroughProtocol implements AsyncExecChain {
        private final AsyncExecChainHandler protocol;
        private final AsyncExecChain next;

        ThroughProtocol(AsyncExecChainHandler protocol, AsyncExecChain next) {
            this.protocol = protocol;
            this.next = next;
        }

        @Override
        public void proceed(HttpRequest request, AsyncEntityProducer producer, Scope scope, AsyncExecCallback callback)
                throws HttpException, IOException {
            protocol.execute(request, producer, scope, next, callback);
        }
    }

    @Override
    public void execute(HttpRequest request, AsyncEntityProducer producer, AsyncExecChain.Scope scope,
                        AsyncExecChain chain, AsyncExecCallback callback) throws HttpException, IOException {
        if (scope != null) {
            HANDLED.put(scope, Boolean.TRUE);
        }
        AsyncRetryLoop loop = RetryRuntime.asyncLoop();
        RetryEngine engine = RetryRuntime.engine();
        CallFacts facts = null;
        HttpClient5AsyncExchange exchange = null;
        if (loop != null && engine != null) {
            try {
                boolean replayable = producer == null || producer.isRepeatable();
                facts = HttpClient5Requests.facts(request, scope.route.getTargetHost(), replayable, engine);
                exchange = new HttpClient5AsyncExchange(request, producer, scope, chain, callback,
                        facts.policy().markerHeader());
            } catch (RuntimeException e) {
                RetryLog.internalError("apache-httpclient5.async", e);
                facts = null;
            }
        }
        if (facts == null) {
            chain.proceed(request, producer, scope, callback);
            return;
        }
        try {
            loop.execute(facts, exchange, exchange.completion());
        } catch (HttpClient5AsyncExchange.NotSent e) {
            // The first attempt could not be sent: the chain's own exception, as without the agent.
            Exception original = e.original();
            if (original instanceof HttpException) {
                throw (HttpException) original;
            }
            throw (IOException) original;
        }
    }

    @Override
    public String toString() {
        return NAME;
    }
}
