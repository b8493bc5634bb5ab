package dev.retryagent.agent.clients.httpclient4;

import dev.retryagent.agent.bootloader.weaving.ClientInstrumentation;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.policy.ClientNames;

/**
 * What the agent hooks in Apache HttpClient 4.5 (classic) and HttpAsyncClient 4.1 (the same names and descriptors
 * from 4.5.6 and 4.1.3 through 4.5.14 and 4.1.5; checked against the jars by HttpClient4InstrumentationTest and the
 * integration tests). No hook is in a builder or a constructor, so a client built before the agent was attached is
 * served like any other.
 *
 * <ul>
 *   <li>entry (may replace the result) of {@code org.apache.http.impl.execchain.ProtocolExec.execute(route, request,
 *       context, execAware)}: every client an {@code HttpClientBuilder} builds ({@code HttpClients.createDefault()},
 *       {@code createSystem()}, {@code custom()...build()}) is an {@code InternalHttpClient} whose every
 *       {@code execute} overload ends in {@code doExecute} and its exec chain, and {@code ProtocolExec} is in every
 *       such chain, inside {@code RedirectExec}, {@code ServiceUnavailableRetryExec} and {@code RetryExec}. The call
 *       runs in the retry loop there; each attempt re-enters that {@code ProtocolExec}, which the hook's re-entrancy
 *       guard lets through;</li>
 *   <li>the same at {@code org.apache.http.impl.execchain.MinimalClientExec.execute(...)}: the whole "chain" of
 *       {@code HttpClients.createMinimal()} ({@code MinimalHttpClient}), which has no retries of its own;</li>
 *   <li>entry (may replace the result) of {@code RetryExec.execute(...)} and
 *       {@code ServiceUnavailableRetryExec.execute(...)}: while the call's rule says {@code builtInRetries: replace}
 *       (mode {@code enforce}), straight on to the element they wrap, as if the client had been built with
 *       {@code disableAutomaticRetries()} and no {@code ServiceUnavailableRetryStrategy}; under {@code keep},
 *       {@code observe} or {@code off} they run as configured. Decided call by call, so a reload reaches every
 *       client already built;</li>
 *   <li>entry of {@code org.apache.http.protocol.HttpRequestExecutor.execute(request, connection, context)} (HttpCore,
 *       where the classic exec elements send a request on a leased connection): notes in the context whether the
 *       connection had carried a request before, so that a protocol error on it is told apart as a stale
 *       connection ({@link HttpClient4Requests#classify(java.io.IOException, boolean)}); the connection is gone from
 *       the context's reach once the attempt failed;</li>
 *   <li>entry (may replace the result) of {@code execute(HttpAsyncRequestProducer, HttpAsyncResponseConsumer,
 *       HttpContext, FutureCallback)} of {@code org.apache.http.impl.nio.client.InternalHttpAsyncClient}
 *       ({@code HttpAsyncClients.createDefault()}, {@code createSystem()}, {@code custom()...build()}) and
 *       {@code MinimalHttpAsyncClient} ({@code createMinimal()}): every {@code execute} overload of
 *       {@code CloseableHttpAsyncClient} ends there. The handler returns a future of its own and runs the call in
 *       the async retry loop; each attempt is that method again, with the agent's own producer, consumer and
 *       callback, which the handler recognises and lets through. The async client has no retries of its own.</li>
 * </ul>
 *
 * <p>This class names no HttpClient type: it is loaded by the agent whether or not the application uses
 * HttpClient 4. The other classes of its package are the adapter, defined in the client's class loader when the
 * agent's own copies cannot see that client ({@code ClassInjector}).
 */
public final class HttpClient4Instrumentation extends ClientInstrumentation {
    static final String PROTOCOL_EXEC = "org.apache.http.impl.execchain.ProtocolExec";
    static final String MINIMAL_EXEC = "org.apache.http.impl.execchain.MinimalClientExec";
    static final String RETRY_EXEC = "org.apache.http.impl.execchain.RetryExec";
    static final String SERVICE_UNAVAILABLE_EXEC = "org.apache.http.impl.execchain.ServiceUnavailableRetryExec";
    static final String ASYNC_CLIENT = "org.apache.http.impl.nio.client.InternalHttpAsyncClient";
    static final String MINIMAL_ASYNC_CLIENT = "org.apache.http.impl.nio.client.MinimalHttpAsyncClient";
    static final String REQUEST_EXECUTOR = "org.apache.http.protocol.HttpRequestExecutor";

    static final String EXEC_DESCRIPTOR = "(Lorg/apache/http/conn/routing/HttpRoute;"
            + "Lorg/apache/http/client/methods/HttpRequestWrapper;Lorg/apache/http/client/protocol/HttpClientContext;"
            + "Lorg/apache/http/client/methods/HttpExecutionAware;)Lorg/apache/http/client/methods/CloseableHttpResponse;";
    static final String REQUEST_EXECUTE_DESCRIPTOR = "(Lorg/apache/http/HttpRequest;Lorg/apache/http/HttpClientConnection;"
            + "Lorg/apache/http/protocol/HttpContext;)Lorg/apache/http/HttpResponse;";
    static final String ASYNC_EXECUTE_DESCRIPTOR = "(Lorg/apache/http/nio/protocol/HttpAsyncRequestProducer;"
            + "Lorg/apache/http/nio/protocol/HttpAsyncResponseConsumer;Lorg/apache/http/protocol/HttpContext;"
            + "Lorg/apache/http/concurrent/FutureCallback;)Ljava/util/concurrent/Future;";

    public HttpClient4Instrumentation() {
        super(ClientNames.APACHE_HTTPCLIENT4, "dev.retryagent.agent.clients.httpclient4.HttpClient4Hooks",
                HookPoint.entryMayReplace(HttpClient4Hooks.PROTOCOL_EXECUTE, PROTOCOL_EXEC, "execute", EXEC_DESCRIPTOR),
                HookPoint.entryMayReplace(HttpClient4Hooks.MINIMAL_EXECUTE, MINIMAL_EXEC, "execute", EXEC_DESCRIPTOR),
                HookPoint.entryMayReplace(HttpClient4Hooks.RETRY_EXECUTE, RETRY_EXEC, "execute", EXEC_DESCRIPTOR),
                HookPoint.entryMayReplace(HttpClient4Hooks.SERVICE_UNAVAILABLE_EXECUTE, SERVICE_UNAVAILABLE_EXEC,
                        "execute", EXEC_DESCRIPTOR),
                HookPoint.entry(HttpClient4Hooks.REQUEST_EXECUTE, REQUEST_EXECUTOR, "execute",
                        REQUEST_EXECUTE_DESCRIPTOR),
                HookPoint.entryMayReplace(HttpClient4Hooks.ASYNC_EXECUTE, ASYNC_CLIENT, "execute",
                        ASYNC_EXECUTE_DESCRIPTOR),
                HookPoint.entryMayReplace(HttpClient4Hooks.MINIMAL_ASYNC_EXECUTE, MINIMAL_ASYNC_CLIENT, "execute",
                        ASYNC_EXECUTE_DESCRIPTOR));
    }
}
