/**
 * Feign's synchronous retry loop as a retry layer above the client (docs/reference.md#layers-above-the-client). Not a
 * client: nothing here makes or changes a request; it only tells the engine, on the caller's thread, that the calls
 * made now are attempts of Feign's own loop ({@code UpperLayer}).
 *
 * <h2>What is hooked, and why there</h2>
 * {@code feign.SynchronousMethodHandler.invoke(Object[])} ({@code ([Ljava/lang/Object;)Ljava/lang/Object;}), as a
 * {@code RETRY_LOOP} (declared in {@link dev.retryagent.agent.layers.LayerTable}, with the other layers' hook points). It is
 * entered once per call of a Feign interface method, and every attempt runs inside it on that thread: up to 13.12 the
 * {@code while (true)} loop ({@code executeAndDecode}, then {@code retryer.continueOrPropagate} on a
 * {@code RetryableException}) is its body; 13.13 moved the loop into the private
 * {@code runWithRetry(Invocation, Options)}, which {@code invoke} reaches through its {@code MethodInterceptor} chain,
 * synchronously. Hooking {@code invoke} covers both without naming the private method. The Feign {@code Client}
 * underneath ({@code Client.Default} over HttpURLConnection, {@code feign.okhttp.OkHttpClient}, the Apache and
 * java.net.http clients) is the agent's as usual; under {@code upperLayers: defer} an outcome Feign retries goes back
 * to it after one request, with the client's hidden resends of a request a server may have read off (the JDK's silent
 * resend, OkHttp's), so such an outcome gets what Feign alone decides; one it does not retry is the agent's.
 * {@code AsynchronousMethodHandler} (AsyncFeign) retries in future callbacks on other threads: not hooked, its
 * attempts are seen as plain calls.
 *
 * <h2>Retries off</h2>
 * The loop's {@code Retryer}, read by reflection: the handler's private field {@code retryer} (checked on 11.10,
 * 12.5, 13.1), or its private {@code methodHandlerConfiguration}'s {@code getRetryer()} (13.5, 13.12, 13.13). It is off
 * when it is {@code Retryer.NEVER_RETRY} (compared by identity with the public static constant of the same class
 * loader; Spring Cloud OpenFeign's default), or Feign's own {@code Retryer.Default} (in 13.12 an empty subclass of
 * {@code DefaultRetryer}, which holds the field) with {@code maxAttempts} 1. Then the handler answers
 * {@code RETRIES_OFF} and the agent retries the calls as any other. Any other retryer is a layer named {@code feign}.
 *
 * <h2>What it retries</h2>
 * Feign retries a {@code RetryableException} and nothing else: {@code executeAndDecode} makes one of every
 * {@code IOException} of its client, and the {@code ErrorDecoder} decides for a response that is not a success
 * ({@code InvocationContext.proceed}, after the response interceptors). Feign's own decoder
 * ({@code ErrorDecoder.Default}, from 13.9.1 an empty subclass of {@code DefaultErrorDecoder}) returns one only for a
 * response whose {@code Retry-After} its {@code RetryAfterDecoder} reads; the retryer ({@code continueOrPropagate})
 * sees nothing else. So with that decoder, and the response going through {@code ResponseInterceptor.Chain.DEFAULT}
 * (no interceptor, no capability wrapping the chain), a response without {@code Retry-After} is known not to be
 * retried: the handler answers I/O errors and responses with {@code Retry-After} (I/O errors as not known with an
 * application's retryer). The decoder and the chain are the private {@code errorDecoder} and {@code executionChain} of
 * the handler's private {@code ResponseHandler responseHandler} (13.0 on; 12.x's handler has a single response
 * interceptor instead: not known, as for any other decoder).
 *
 * <h2>Versions checked</h2>
 * The hooked method's name and descriptor and the retryer's fields above on the jars of 11.10, 12.5, 13.1, 13.5, 13.12
 * and 13.13; the classification's fields in the sources of 13.0, 13.2 to 13.5, 13.12 and 13.13 (and 12.5's, which
 * has none of {@code executionChain}); run end to end (integration tests) on 13.12 with its default client and
 * {@code feign-okhttp} 13.12 (the newest release of both; feign-okhttp 13.13 is not served), and on feign-core 13.13
 * with its default client, each with Feign's own decoder and with one of the application's.
 */
package dev.retryagent.agent.layers.feign;
