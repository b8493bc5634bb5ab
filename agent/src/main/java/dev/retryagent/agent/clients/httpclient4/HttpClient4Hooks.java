package dev.retryagent.agent.clients.httpclient4;

import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.weaving.HookHandler;
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
public final class HttpClient4Hooks extends HookHandler {
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

    public HttpClient4Hooks() {
        serve(REQUEST_EXECUTE, new OnEntry() {
            @Override
            public void run(Object self, Object[] args) {
                HttpClient4Requests.noteConnection((HttpClientConnection) args[1], (HttpContext) args[2]);
            }
        });
        OnEntryMayReplace classic = new OnEntryMayReplace() {
            @Override
            public Object run(Object self, Object[] args) {
                return HttpClient4SyncExchange.execute((ClientExecChain) self, (HttpRoute) args[0],
                        (HttpRequestWrapper) args[1], (HttpClientContext) args[2], (HttpExecutionAware) args[3]);
            }
        };
        serve(PROTOCOL_EXECUTE, classic);
        serve(MINIMAL_EXECUTE, classic);
        OnEntryMayReplace skipRetries = new OnEntryMayReplace() {
            @Override
            public Object run(Object self, Object[] args) {
                return HttpClient4SyncExchange.skipBuiltInRetries((ClientExecChain) self, (HttpRoute) args[0],
                        (HttpRequestWrapper) args[1], (HttpClientContext) args[2], (HttpExecutionAware) args[3]);
            }
        };
        serve(RETRY_EXECUTE, skipRetries);
        serve(SERVICE_UNAVAILABLE_EXECUTE, skipRetries);
        OnEntryMayReplace async = new OnEntryMayReplace() {
            @Override
            public Object run(Object self, Object[] args) {
                return HttpClient4AsyncExchange.execute((CloseableHttpAsyncClient) self,
                        (HttpAsyncRequestProducer) args[0], (HttpAsyncResponseConsumer<?>) args[1],
                        (HttpContext) args[2], (FutureCallback<?>) args[3]);
            }
        };
        serve(ASYNC_EXECUTE, async);
        serve(MINIMAL_ASYNC_EXECUTE, async);
    }
}
