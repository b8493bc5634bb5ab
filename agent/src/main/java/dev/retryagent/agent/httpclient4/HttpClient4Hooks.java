package dev.retryagent.agent.httpclient4;

import dev.retryagent.agent.bootstrap.Hooks;
import org.apache.http.HttpClientConnection;
import org.apache.http.client.methods.HttpExecutionAware;
import org.apache.http.client.methods.HttpRequestWrapper;
import org.apache.http.client.protocol.HttpClientContext;
import org.apache.http.concurrent.FutureCallback;
import org.apache.http.conn.routing.HttpRoute;
import org.apache.http.impl.execchain.ClientExecChain;
import org.apache.http.impl.nio.client.CloseableHttpAsyncClient;
import org.apache.http.nio.protocol.HttpAsyncRequestProducer;
import org.apache.http.nio.protocol.HttpAsyncResponseConsumer;
import org.apache.http.protocol.HttpContext;

/**
 * The handler of HttpClient 4's hook points (see {@link HttpClient4Instrumentation}), loaded in HttpClient's class
 * loader. Fails open: its own errors are logged once and the hooked method runs untouched; exceptions of HttpClient
 * or of the application's code reach the application unchanged ({@link Hooks.Propagate}).
 */
public final class HttpClient4Hooks implements Hooks.Handler {
    public static final String PROTOCOL_EXECUTE = "apache-httpclient4.protocol-execute";
    public static final String MINIMAL_EXECUTE = "apache-httpclient4.minimal-execute";
    public static final String RETRY_EXECUTE = "apache-httpclient4.retry-execute";
    public static final String SERVICE_UNAVAILABLE_EXECUTE = "apache-httpclient4.service-unavailable-execute";
    public static final String REQUEST_EXECUTE = "apache-httpclient4.request-execute";
    public static final String ASYNC_EXECUTE = "apache-httpclient4.async-execute";
    public static final String MINIMAL_ASYNC_EXECUTE = "apache-httpclient4.minimal-async-execute";

    static {
        Hooks.register(HttpClient4Hooks.class, new HttpClient4Hooks());
    }

    @Override
    public boolean onEnter(String hook, Object self, Object[] args) {
        if (REQUEST_EXECUTE.equals(hook)) {
            HttpClient4Calls.noteConnection((HttpClientConnection) args[1], (HttpContext) args[2]);
        }
        return false;
    }

    @Override
    public void onExit(String hook, Object self, Object[] args) {
    }

    @Override
    public Object onEnterMayReplace(String hook, Object self, Object[] args) {
        if (PROTOCOL_EXECUTE.equals(hook) || MINIMAL_EXECUTE.equals(hook)) {
            return HttpClient4Classic.execute((ClientExecChain) self, (HttpRoute) args[0],
                    (HttpRequestWrapper) args[1], (HttpClientContext) args[2], (HttpExecutionAware) args[3]);
        }
        if (RETRY_EXECUTE.equals(hook) || SERVICE_UNAVAILABLE_EXECUTE.equals(hook)) {
            return HttpClient4Classic.skipBuiltInRetries((ClientExecChain) self, (HttpRoute) args[0],
                    (HttpRequestWrapper) args[1], (HttpClientContext) args[2], (HttpExecutionAware) args[3]);
        }
        if (ASYNC_EXECUTE.equals(hook) || MINIMAL_ASYNC_EXECUTE.equals(hook)) {
            return HttpClient4Async.execute((CloseableHttpAsyncClient) self, (HttpAsyncRequestProducer) args[0],
                    (HttpAsyncResponseConsumer<?>) args[1], (HttpContext) args[2], (FutureCallback<?>) args[3]);
        }
        return Hooks.PROCEED;
    }


}
