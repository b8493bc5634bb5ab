/**
 * OkHttp 4.12 and 5.x: sync ({@code Call.execute}) and async ({@code Call.enqueue}) calls retried by the shared
 * engine. An adapter, not a second retry loop: sync calls run in policy-core's {@code RetryLoop}, async calls in its
 * {@code AsyncRetryLoop}; this package only says how to make an attempt, read its outcome, classify a failure and
 * release a response. Start with {@link dev.retryagent.agent.clients.okhttp.OkHttpInstrumentation} (what is hooked, and
 * why there), then {@link dev.retryagent.agent.clients.okhttp.OkHttpHooks} (the handler).
 *
 * <h2>Where the request is re-issued</h2>
 * <ul>
 *   <li><b>An application interceptor, first in every client.</b> OkHttp lets an application interceptor call
 *       {@code chain.proceed()} more than once: that is OkHttp's own way to re-issue a request, with its
 *       connection management, redirects and authentication run per attempt. Every client is built through
 *       {@code OkHttpClient(Builder)}, so an entry hook there puts
 *       {@link dev.retryagent.agent.clients.okhttp.RetryInterceptor} first, once however the builder was made or copied.
 *       A sync call is retried right in the interceptor, on the caller's thread
 *       ({@link dev.retryagent.agent.clients.okhttp.OkHttpSyncExchange}). Redirects are followed below it, inside an attempt: a
 *       response is decided under the rule of the address its request went to ({@code response.request()}).</li>
 *   <li><b>Async calls off the dispatcher.</b> Waiting inside the interceptor would hold a dispatcher thread for
 *       the whole backoff; so {@code RealCall.enqueue} is taken over
 *       ({@link dev.retryagent.agent.clients.okhttp.OkHttpAsyncExchange}): attempt 1 is the application's call, every later
 *       one a {@code clone()} enqueued by the scheduler thread when its wait is over. Each attempt is registered
 *       with its marker ({@code OkHttpAsyncExchange.AttemptMarker}) so that the interceptor runs it exactly once.
 *       Cancelling the application's call cancels the attempt in flight (exit hook on
 *       {@code RealCall.cancel()}).</li>
 *   <li><b>Clients built before the agent</b> (attached to a running JVM) cannot get an interceptor: their calls are
 *       made by a copy, {@code newBuilder().build()} once per client (entry hook on {@code newCall}).</li>
 * </ul>
 *
 * <h2>One retry layer (docs/reference.md#one-retry-layer)</h2>
 * Under {@code builtInRetries: replace} (mode {@code enforce}) OkHttp makes no request again that a server may have
 * read: its resend after a failure is answered "no" per call ({@code RetryAndFollowUpInterceptor.recover}), and its
 * follow-ups of {@code 503 Retry-After: 0} and of a 408 the agent retries are answered "none"
 * ({@code followUpRequest}), so that they reach the policy. What OkHttp recovers before its request leaves (another
 * address, another proxy, another TLS configuration, a refused HTTP/2 stream) stays OkHttp's. Replayable bodies are
 * those neither one-shot nor duplex; web-socket upgrades are left alone.
 */
package dev.retryagent.agent.clients.okhttp;
