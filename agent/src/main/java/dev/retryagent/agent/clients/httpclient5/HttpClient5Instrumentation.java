package dev.retryagent.agent.clients.httpclient5;

import dev.retryagent.agent.bootloader.weaving.ClientInstrumentation;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.policy.ClientNames;

/**
 * What the agent hooks in Apache HttpClient 5.2 through 5.6 (the same names and descriptors in all of them;
 * checked against the released jars by HttpClient5InstrumentationTest and the integration tests):
 *
 * <ul>
 *   <li>entry of {@code org.apache.hc.client5.http.impl.classic.HttpClientBuilder.build()}: every classic client
 *       but the minimal one is an {@code InternalHttpClient} made here ({@code HttpClients.createDefault()},
 *       {@code createSystem()}, {@code custom()...build()}, the fluent API's {@code Executor}), and every one of
 *       its {@code execute} overloads runs its exec chain. The hook adds {@link ClassicRetryHandler} to the chain
 *       (once per builder) just before {@code PROTOCOL}, which is always there: inside {@code REDIRECT} (each
 *       hop is its own call, under the rule for its own host and path), where the client's own
 *       {@code HttpRequestRetryExec} sits. That element stays as the application configured it, outside the agent's
 *       handler; the hook on its {@code execute} below skips it call by call under {@code builtInRetries: replace};</li>
 *   <li>entry of {@code org.apache.hc.client5.http.impl.async.HttpAsyncClientBuilder.build()}: the same for
 *       async clients ({@code HttpAsyncClients.createDefault()}, {@code createSystem()}, {@code custom()}), with
 *       {@link AsyncRetryHandler} and {@code AsyncHttpRequestRetryExec}; every {@code execute} of
 *       {@code CloseableHttpAsyncClient} ({@code SimpleHttpRequest}, producers and consumers) runs the chain;</li>
 *   <li>entry of {@code org.apache.hc.client5.http.impl.classic.MinimalHttpClient.doExecute(HttpHost,
 *       ClassicHttpRequest, HttpContext)}, which may replace its result: {@code HttpClients.createMinimal()} has
 *       no exec chain and no retries of its own, and every {@code execute} overload ends in this method. The
 *       handler runs the call's attempts through the client's public {@code execute(target, request, context)};
 *       the hook's re-entrancy guard lets those nested calls run the original body.</li>
 * </ul>
 *
 * A client built before the agent started (it was attached to a running JVM) has no retry handler in its chain:
 * <ul>
 *   <li>entry of {@code ProtocolExec.execute(request, scope, chain)} (classic, may replace the result) and of
 *       {@code AsyncProtocolExec.execute(...)} (async, may skip the body): every call of such a client passes
 *       through its {@code PROTOCOL} element, so the handler runs there, where it would have sat, and its
 *       attempts proceed into that element again. A call that came through the handler (a client built by the
 *       agent's build hook) is recognised by its scope and left alone;</li>
 *   <li>entry of {@code HttpRequestRetryExec.execute(...)} and {@code AsyncHttpRequestRetryExec.execute(...)}: while
 *       the policy says {@code builtInRetries: replace}, the call goes straight on to the next element, as if the
 *       client had been built with {@code disableAutomaticRetries()}; under {@code keep}, {@code observe} or
 *       {@code off} the element runs as configured. This serves every client, built before the agent or after it,
 *       and follows each reload.</li>
 * </ul>
 *
 * <p>The HTTP/2 default client ({@code H2AsyncClientBuilder}, {@code HttpAsyncClients.createHttp2Default()}) has no
 * build hook, but its exec chain has {@code AsyncProtocolExec} and {@code AsyncHttpRequestRetryExec}: its calls are
 * retried as those of an async client built before the agent. Not hooked: the minimal async clients
 * ({@code HttpAsyncClients.createMinimal()}, {@code createHttp2Minimal()}), which have no exec chain; the agent
 * reports them when they load ({@code bootloader.weaving.UncoveredClients}).
 *
 * <p>This class names no HttpClient type: it is loaded by the agent whether or not the application uses
 * HttpClient.
 * The other classes of its package are the ones that do: the adapter classes, defined in the client's class
 * loader when the agent's own copies cannot see that client ({@code ClassInjector}).
 */
public final class HttpClient5Instrumentation extends ClientInstrumentation {
    static final String CLASSIC_BUILDER = "org.apache.hc.client5.http.impl.classic.HttpClientBuilder";
    static final String ASYNC_BUILDER = "org.apache.hc.client5.http.impl.async.HttpAsyncClientBuilder";
    static final String MINIMAL_CLIENT = "org.apache.hc.client5.http.impl.classic.MinimalHttpClient";

    static final String CLASSIC_BUILD_DESCRIPTOR = "()Lorg/apache/hc/client5/http/impl/classic/CloseableHttpClient;";
    static final String ASYNC_BUILD_DESCRIPTOR = "()Lorg/apache/hc/client5/http/impl/async/CloseableHttpAsyncClient;";
    static final String DO_EXECUTE_DESCRIPTOR = "(Lorg/apache/hc/core5/http/HttpHost;"
            + "Lorg/apache/hc/core5/http/ClassicHttpRequest;Lorg/apache/hc/core5/http/protocol/HttpContext;)"
            + "Lorg/apache/hc/client5/http/impl/classic/CloseableHttpResponse;";

    static final String PROTOCOL_EXEC = "org.apache.hc.client5.http.impl.classic.ProtocolExec";
    static final String RETRY_EXEC = "org.apache.hc.client5.http.impl.classic.HttpRequestRetryExec";
    static final String ASYNC_PROTOCOL_EXEC = "org.apache.hc.client5.http.impl.async.AsyncProtocolExec";
    static final String ASYNC_RETRY_EXEC = "org.apache.hc.client5.http.impl.async.AsyncHttpRequestRetryExec";
    static final String EXEC_DESCRIPTOR = "(Lorg/apache/hc/core5/http/ClassicHttpRequest;"
            + "Lorg/apache/hc/client5/http/classic/ExecChain$Scope;Lorg/apache/hc/client5/http/classic/ExecChain;)"
            + "Lorg/apache/hc/core5/http/ClassicHttpResponse;";
    static final String ASYNC_EXEC_DESCRIPTOR = "(Lorg/apache/hc/core5/http/HttpRequest;"
            + "Lorg/apache/hc/core5/http/nio/AsyncEntityProducer;Lorg/apache/hc/client5/http/async/AsyncExecChain$Scope;"
            + "Lorg/apache/hc/client5/http/async/AsyncExecChain;Lorg/apache/hc/client5/http/async/AsyncExecCallback;)V";

    public HttpClient5Instrumentation() {
        super(ClientNames.APACHE_HTTPCLIENT5, "dev.retryagent.agent.clients.httpclient5.HttpClient5Hooks",
                HookPoint.entry(HttpClient5Hooks.CLASSIC_BUILD, CLASSIC_BUILDER, "build", CLASSIC_BUILD_DESCRIPTOR),
                HookPoint.entry(HttpClient5Hooks.ASYNC_BUILD, ASYNC_BUILDER, "build", ASYNC_BUILD_DESCRIPTOR),
                HookPoint.entryMayReplace(HttpClient5Hooks.MINIMAL_EXECUTE, MINIMAL_CLIENT, "doExecute",
                        DO_EXECUTE_DESCRIPTOR),
                HookPoint.entryMayReplace(HttpClient5Hooks.PROTOCOL_EXECUTE, PROTOCOL_EXEC, "execute",
                        EXEC_DESCRIPTOR),
                HookPoint.entryMayReplace(HttpClient5Hooks.RETRY_EXECUTE, RETRY_EXEC, "execute", EXEC_DESCRIPTOR),
                HookPoint.entryMaySkip(HttpClient5Hooks.ASYNC_PROTOCOL_EXECUTE, ASYNC_PROTOCOL_EXEC, "execute",
                        ASYNC_EXEC_DESCRIPTOR),
                HookPoint.entryMaySkip(HttpClient5Hooks.ASYNC_RETRY_EXECUTE, ASYNC_RETRY_EXEC, "execute",
                        ASYNC_EXEC_DESCRIPTOR));
    }
}
