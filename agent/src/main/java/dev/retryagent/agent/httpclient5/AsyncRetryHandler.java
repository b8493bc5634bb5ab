package dev.retryagent.agent.httpclient5;

import dev.retryagent.agent.bootstrap.RetryRuntime;
import dev.retryagent.engine.AsyncRetryLoop;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.Policy;
import java.io.IOException;
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
 * hears of exactly one response or one failure. See {@link AsyncAttemptExchange}.
 */
public final class AsyncRetryHandler implements AsyncExecChainHandler {
    static final String NAME = ClassicRetryHandler.NAME;
    static final AsyncRetryHandler INSTANCE = new AsyncRetryHandler();

    private AsyncRetryHandler() {
    }

    @Override
    public void execute(HttpRequest request, AsyncEntityProducer producer, AsyncExecChain.Scope scope,
                        AsyncExecChain chain, AsyncExecCallback callback) throws HttpException, IOException {
        AsyncRetryLoop loop = RetryRuntime.asyncLoop();
        RetryEngine engine = RetryRuntime.engine();
        CallFacts facts = null;
        AsyncAttemptExchange exchange = null;
        if (loop != null && engine != null) {
            try {
                Policy policy = engine.policy();
                boolean replayable = producer == null || producer.isRepeatable();
                facts = HttpClient5Calls.facts(request, scope.route.getTargetHost(), replayable, policy);
                exchange = new AsyncAttemptExchange(request, producer, scope, chain, callback, policy.markerHeader());
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
            loop.execute(facts, exchange, exchange.delivery());
        } catch (AsyncAttemptExchange.NotSent e) {
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
