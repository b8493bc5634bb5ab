/**
 * Apache HttpClient 4.5 (classic) and HttpAsyncClient 4.1: calls retried by the shared engine. An adapter, not a
 * second retry loop: classic calls run in policy-core's {@code RetryLoop}, async calls in its {@code AsyncRetryLoop};
 * this package only says how to make an attempt, read its outcome, classify a failure and release a response.
 * What is hooked: {@link dev.retryagent.agent.clients.httpclient4.HttpClient4Instrumentation}.
 *
 * <h2>Why there</h2>
 * <ul>
 *   <li><b>{@code ProtocolExec}, not the {@code execute} overloads.</b> Every {@code execute} of
 *       {@code CloseableHttpClient} (with or without {@code ResponseHandler}, context or target host) ends in
 *       {@code doExecute}; {@code InternalHttpClient.doExecute} hands the call to its exec chain, built by
 *       {@code HttpClientBuilder.build()} from the inside out: {@code MainClientExec}, {@code ProtocolExec},
 *       {@code RetryExec} (unless {@code disableAutomaticRetries()}), {@code ServiceUnavailableRetryExec} (only with
 *       a {@code ServiceUnavailableRetryStrategy}), {@code RedirectExec} (unless redirects are disabled),
 *       {@code BackoffStrategyExec} (only with a backoff manager). {@code ProtocolExec} is always there, and the loop
 *       at its entry sits where {@code RetryExec} makes its attempts: each redirect hop is its own call (the rule for
 *       its own host and path), authentication and connection management run per attempt. {@code MinimalHttpClient}
 *       has no chain, only a {@code MinimalClientExec} with the same {@code execute} signature: the same handler
 *       serves it. No builder is touched, so a client built before the agent was attached is retried too.</li>
 *   <li><b>Attempts re-enter the element.</b> The loop calls the same {@code ProtocolExec.execute} again; the hook's
 *       re-entrancy guard (per hook, instance and thread) runs its body. Before each attempt the request wrapper gets
 *       back the headers it had when the call began, plus the marker: the protocol stage adds headers to the wrapper
 *       and refuses a second {@code Content-Length}, which is why {@code RetryExec} itself restores them the same way.
 *       The application's request object is never changed (the wrapper has headers of its own).</li>
 *   <li><b>The client's own retries under {@code replace}.</b> {@code RetryExec}
 *       ({@code DefaultHttpRequestRetryHandler}: 3 resends after an I/O error of an idempotent request, or of any
 *       request not fully sent; or whatever handler the application set) and {@code ServiceUnavailableRetryExec}
 *       are skipped call by call: the hook at their entry calls the element they wrap (their private field
 *       {@code requestExecutor}, read once per class by reflection) while the call's rule says {@code replace}
 *       in mode {@code enforce}. Under {@code keep}, {@code observe} or {@code off}, and after a reload to one of
 *       them, they run as configured, outside the agent's loop: each of their re-executions is a fresh call to the
 *       agent.</li>
 *   <li><b>Async: the client's {@code execute(producer, consumer, context, callback)}.</b> Every {@code execute} of
 *       {@code CloseableHttpAsyncClient} ends there, in {@code InternalHttpAsyncClient} ({@code createDefault()},
 *       {@code createSystem()}, {@code custom()...build()}) and {@code MinimalHttpAsyncClient}
 *       ({@code createMinimal()}). The async client has no retries of its own (it re-executes only for
 *       authentication and redirects, inside one exchange, before the consumer sees a response).</li>
 * </ul>
 *
 * <h2>Attempts, responses, connections</h2>
 * <ul>
 *   <li>Classic: a retried response is read to its end ({@code EntityUtils.consume}) and closed before the wait,
 *       which hands its connection back to the pool.</li>
 *   <li>Async: the application gets the agent's future at once. Each attempt is the client's own {@code execute}
 *       with the agent's consumer and callback (which the hook lets through) and a producer that generates a copy of
 *       the application's request with the marker set, same request line, headers and entity; the call's context,
 *       one for all attempts, carries the request's {@code RequestConfig}. The loop hears of an attempt when its
 *       response head arrives: delivered (the application's consumer gets the head, the body and the end, and the
 *       future the consumer's result) or retried (the body is read and dropped, and the client releases the
 *       connection before it completes the attempt). A retry is scheduled on the agent's scheduler thread and
 *       starts once the attempt before it has completed, never on an I/O dispatcher thread's time. Cancelling the
 *       future cancels the attempt in flight, and no further attempt starts. The producer is rewound with
 *       {@code resetRequest()} between attempts.</li>
 *   <li>Non-repeatable bodies ({@code HttpEntity.isRepeatable()}, {@code HttpAsyncRequestProducer.isRepeatable()})
 *       are never retried and go out unmarked; a request that already carries the marker is executed once.</li>
 *   <li>Failures: {@code ConnectException} (so {@code HttpHostConnectException}), {@code NoRouteToHostException},
 *       {@code ConnectTimeoutException}: connect; {@code SocketTimeoutException}: timeout; {@code SocketException},
 *       {@code NoHttpResponseException}, {@code ConnectionClosedException}, {@code TruncatedChunkException},
 *       {@code EOFException}: reset; a pool lease timeout ({@code ConnectionPoolTimeoutException}), an aborted
 *       request, TLS and protocol errors, unknown hosts: never retried.</li>
 * </ul>
 *
 * <h2>Not covered</h2>
 * A call made through the same classic client inside one of its own attempts on the same thread (from a request
 * interceptor) runs once, unmarked, since the re-entrancy guard cannot tell it from the attempt; another client's
 * call there is nested as usual. The pipelining {@code execute} of a list of requests
 * ({@code CloseableHttpPipeliningClient}) is not hooked (its single-request {@code execute} is). The 4.0-4.2 API
 * deprecated since 4.3 ({@code new DefaultHttpClient()}, {@code AbstractHttpClient} and its
 * {@code DefaultRequestDirector}, {@code DefaultHttpAsyncClient}) is not hooked: its calls run as without the agent.
 * A classic request aborted ({@code HttpRequestBase.abort()}) during a wait is not retried again, but the wait runs
 * out first. An async request is cancelled through its future: the attempts send copies of the request, so
 * {@code abort()} on the application's request object does not reach them.
 */
package dev.retryagent.agent.clients.httpclient4;
