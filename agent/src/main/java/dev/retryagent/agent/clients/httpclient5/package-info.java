/**
 * Apache HttpClient 5 (5.2 through 5.6): classic, async and fluent calls retried by the shared engine. An
 * adapter, not a second retry loop: classic calls run in policy-core's {@code RetryLoop}, async calls in its
 * {@code AsyncRetryLoop}; this package only says how to make an attempt, read its outcome, classify a failure and
 * release a response.
 *
 * <h2>What is hooked, and why there</h2>
 *
 * <table>
 * <caption>Hook points (see {@link dev.retryagent.agent.clients.httpclient5.HttpClient5Instrumentation})</caption>
 * <tr><th>class and method</th><th>kind</th><th>what the handler does</th></tr>
 * <tr><td>{@code org.apache.hc.client5.http.impl.classic.HttpClientBuilder.build()}</td><td>entry</td>
 *     <td>{@code addExecInterceptorBefore("PROTOCOL", "retry-agent", ClassicRetryHandler)}, once per builder;
 *     the builder's own retry configuration is left as the application set it</td></tr>
 * <tr><td>{@code org.apache.hc.client5.http.impl.async.HttpAsyncClientBuilder.build()}</td><td>entry</td>
 *     <td>the same with {@code AsyncRetryHandler}</td></tr>
 * <tr><td>{@code org.apache.hc.client5.http.impl.classic.MinimalHttpClient.doExecute(HttpHost,
 *     ClassicHttpRequest, HttpContext)}</td><td>entry, may replace the result</td>
 *     <td>runs the whole call in the {@code RetryLoop}; each attempt is the client's own public
 *     {@code execute(target, request, context)}, which the hook's re-entrancy guard lets through</td></tr>
 * </table>
 *
 * Four more hooks serve the clients built before the agent was attached to a running JVM, and the client's own
 * retry element under {@code replace}: the entry of {@code ProtocolExec.execute} and {@code AsyncProtocolExec.execute}
 * (the handler runs there for a chain built without it) and of {@code HttpRequestRetryExec.execute} and
 * {@code AsyncHttpRequestRetryExec.execute} (skipped call by call); see
 * {@link dev.retryagent.agent.clients.httpclient5.HttpClient5Instrumentation}.
 *
 * <ul>
 *   <li><b>The exec chain, not the {@code execute} methods.</b> Every classic {@code execute} overload (with and
 *       without response handler, context or target host, and {@code executeOpen}) ends in
 *       {@code doExecute}, and {@code InternalHttpClient.doExecute} runs the exec chain; every async
 *       {@code execute} ({@code SimpleHttpRequest}, producers and consumers) runs the async chain. The chain is
 *       HttpClient's own extension point for exactly this: its {@code HttpRequestRetryExec} and
 *       {@code AsyncHttpRequestRetryExec} live there and call {@code chain.proceed()} once per attempt within one
 *       scope (one exec runtime, one cancellable). So the agent's handler is an ordinary chain element, like
 *       OkHttp's application interceptor; nothing of HttpClient's internals is touched.</li>
 *   <li><b>{@code build()} entry, not a constructor.</b> {@code InternalHttpClient} and
 *       {@code InternalHttpAsyncClient} are package-private and take a finished chain. Every client made by
 *       {@code HttpClients.createDefault()}, {@code createSystem()}, {@code custom()...build()}, the fluent
 *       API's {@code Executor} (and {@code CachingHttpClientBuilder}, a subclass) goes through {@code build()},
 *       where the builder's exec interceptor list and its {@code automaticRetriesDisabled} flag are read. A
 *       builder keeps its interceptors between builds, so a weak identity set remembers the builders already
 *       given the handler.</li>
 *   <li><b>Before {@code PROTOCOL}.</b> {@code PROTOCOL}, {@code CONNECT} and {@code MAIN_TRANSPORT} are in
 *       every chain; {@code RETRY} and {@code REDIRECT} are not (an application can disable them, and
 *       {@code addBefore}/{@code addAfter} a missing element silently drops the handler). Right before
 *       {@code PROTOCOL} is where {@code RETRY} sits (5.2: {@code REDIRECT, COMPRESS, RETRY, PROTOCOL}; 5.6:
 *       {@code REDIRECT, RETRY, COMPRESS, PROTOCOL}), so: each redirect hop is its own call, decided by the rule
 *       for its own host and path; authentication challenges ({@code PROTOCOL}) and connection management run
 *       per attempt; under {@code keep} the client's own retry element wraps the agent's layer exactly as the
 *       application configured it (each of its re-executions is a fresh call to the agent, marker 1 where the agent may
 *       retry it).
 *       {@code PROTOCOL} adds headers to the request it is given, so every attempt sends a fresh copy of the
 *       request with the marker set, as {@code HttpRequestRetryExec} itself does.</li>
 *   <li><b>The client's own retry element under {@code replace}.</b> It is built as the application configured it
 *       and skipped call by call while the policy says {@code replace} (the entry hook on
 *       {@code HttpRequestRetryExec.execute}), whatever strategy the application set ({@code setRetryStrategy}); an
 *       application that disabled retries itself is retried by the policy all the same. Decided per call, not at
 *       build, so that a reload to {@code off}, {@code observe} or {@code keep} gives a client built earlier its own
 *       retries back at once: the kill switch leaves the traffic as without the agent.</li>
 *   <li><b>{@code MinimalHttpClient.doExecute}.</b> {@code HttpClients.createMinimal()} has no exec chain (and no
 *       retries of its own): its {@code doExecute} is where every overload ends. The hook kind
 *       {@code ENTRY_MAY_REPLACE} ({@code HookPoint}, {@code HookWeaver}, {@code Hooks.enterMayReplace}) returns
 *       the handler's result instead of running the body; a nested call of the same hook on the same client and
 *       thread (the attempts) runs the body, while another client's call made inside an attempt reaches the loop as
 *       a nested call (executed once). The attempts are copies of the request, so the request's
 *       {@code RequestConfig} is carried by the context, as {@code doExecute} would have put it there.</li>
 * </ul>
 *
 * <h2>Attempts, responses, connections</h2>
 *
 * <ul>
 *   <li>Classic: a retried response is read to its end ({@code EntityUtils.consume}) and closed before the wait,
 *       which hands its connection back to the pool (a response closed unread would discard it).</li>
 *   <li>Async: the loop hears of an attempt when its response head arrives, because the chain then needs a
 *       consumer for the body: the application's (the head is delivered) or a {@code DiscardingEntityConsumer}
 *       (a retry follows). The retry is scheduled on the agent's scheduler thread, never waited for on an I/O
 *       reactor thread or in a callback; it starts once the discarded body has been read and its connection
 *       released ({@code execRuntime.releaseEndpoint()}), from that completion if the wait was shorter, as
 *       {@code AsyncRedirectExec} does. The entity producer is rewound with {@code releaseResources()}. The rest
 *       of the chain, and so the future and the application's callback, hears of exactly one response or one
 *       failure; a cancelled future stops the retries.</li>
 *   <li>Non-repeatable bodies ({@code HttpEntity.isRepeatable()}, {@code AsyncEntityProducer.isRepeatable()})
 *       are never retried; a request that already carries the marker header is executed once, and so is a call
 *       made inside an attempt of another agent-run call on the same thread (a classic call, or an async call
 *       started there: {@code AttemptScope}), marked with that attempt's number.</li>
 *   <li>Failures: {@code ConnectException} (so {@code HttpHostConnectException}), {@code NoRouteToHostException},
 *       {@code ConnectTimeoutException}: connect; {@code SocketTimeoutException}: timeout (connect when it says
 *       so); {@code SocketException}, {@code NoHttpResponseException}, {@code ConnectionClosedException},
 *       {@code RequestNotExecutedException},
 *       {@code EOFException}, {@code MessageConstraintException} (the client's own strategy resends after it), a
 *       protocol error on a connection that had carried an earlier request before this one's response head (a stale
 *       connection, told by the {@code EndpointDetails} counters in the context): reset; an aborted or cancelled
 *       call, a pool lease timeout, TLS and other protocol errors, unknown hosts: never retried.</li>
 * </ul>
 *
 * <h2>Not covered</h2>
 * {@code HttpAsyncClients.createMinimal()} ({@code MinimalHttpAsyncClient}) and the HTTP/2-only clients
 * ({@code H2AsyncClientBuilder}, {@code createHttp2Minimal()}). A classic
 * call cancelled ({@code HttpUriRequestBase.cancel()}) during a wait is not retried again, but the wait itself runs
 * out first.
 */
package dev.retryagent.agent.clients.httpclient5;
