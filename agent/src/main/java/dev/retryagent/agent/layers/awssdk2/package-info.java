/**
 * The AWS SDK for Java v2's synchronous retry loop as a retry layer above the HTTP client
 * (docs/reference.md#layers-above-the-client). Its hook points are declared in {@link
 * dev.retryagent.agent.layers.LayerTable}, with the other layers'; no SDK call is changed, the hook only tells the engine, on
 * the calling thread, that the requests sent inside are the SDK's attempts.
 *
 * <h2>Why there</h2>
 * {@code software.amazon.awssdk.core.internal.http.pipeline.stages.RetryableStage.execute(SdkHttpFullRequest,
 * RequestExecutionContext)} holds the loop ({@code while (true)}: acquire the token, attempt, refresh the token, sleep)
 * and is entered once per API call by {@code AmazonSyncHttpClient}'s pipeline; every attempt (signing, the HTTP
 * client's {@code prepareRequest().call()}) runs inside it on the caller's thread, whichever HTTP client is plugged in
 * ({@code apache-client}, {@code apache5-client}, {@code url-connection-client}). The bridge
 * {@code execute(Object, RequestExecutionContext)} is not hooked: it only calls this one. {@code RetryableStage2}
 * (same method and descriptor) is the stage the 2.26 to 2.29 lines use for a client built with a {@code RetryStrategy};
 * it is hooked too. The async stage ({@code AsyncRetryableStage}) is not: its attempts run on the async client's
 * threads (Netty, not instrumented), and the request's {@code amz-sdk-request} header is the evidence there.
 *
 * <h2>Retries off</h2>
 * What the stage's {@code RetryableStageHelper} reads when the loop starts, read again by reflection from the stage's
 * {@code dependencies.clientConfiguration()}: the legacy {@code SdkClientOption.RETRY_POLICY} when set
 * ({@code numRetries() + 1} attempts: {@code RetryPolicy.none()} is 1), else {@code SdkClientOption.RETRY_STRATEGY}'s
 * {@code maxAttempts()} ({@code AwsRetryStrategy.doNotRetry()}, a strategy built with {@code maxAttempts(1)}, or
 * {@code aws.maxAttempts=1} / {@code AWS_MAX_ATTEMPTS=1}, which the client builder resolves into it). One attempt:
 * {@link dev.retryagent.engine.UpperLayer#RETRIES_OFF}; anything else, or nothing readable: {@code aws-sdk-v2}. The
 * SDK also stamps {@code amz-sdk-request: attempt=N; max=M} on every attempt; with {@code max=1} that header alone
 * makes no layer either.
 *
 * <h2>Versions checked</h2>
 * 2.57.8 (the integration tests, with {@code apache-client}, {@code url-connection-client} and
 * {@code apache5-client}); by their class files: 2.20.162 and 2.25.0 ({@code RetryableStage} only, legacy
 * {@code RetryPolicy} only), 2.26.0 and 2.28.0 (both stages), 2.30.0, 2.36.2 and 2.57.8 ({@code RetryableStage} only,
 * policy or strategy). The handler's reading was also run against 2.28.0's two stages (strategy of 1 and 3 attempts
 * on {@code RetryableStage2}, {@code RetryPolicy.none()} and the default policy on {@code RetryableStage}), outside the
 * tests.
 */
package dev.retryagent.agent.layers.awssdk2;
