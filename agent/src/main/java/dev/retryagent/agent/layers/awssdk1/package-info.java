/**
 * The AWS SDK for Java v1's retry loop as a retry layer above its Apache HttpClient 4
 * (docs/reference.md#layers-above-the-client). Its hook point is declared in {@link dev.retryagent.agent.layers.LayerTable},
 * with the other layers'; no SDK call is changed.
 *
 * <h2>Why there</h2>
 * {@code com.amazonaws.http.AmazonHttpClient$RequestExecutor.executeHelper()} holds the loop ({@code while (true)}:
 * {@code executeOneRequest}, on failure {@code shouldRetry} and {@code pauseBeforeRetry}) and is entered once per API
 * call ({@code execute}, {@code executeWithTimer}, {@code doExecute}); every attempt runs inside it on the caller's
 * thread, through the SDK's own Apache HttpClient 4 (which the agent instruments as any other).
 *
 * <h2>Retries off</h2>
 * The loop asks its outer {@code AmazonHttpClient}'s {@code retryPolicy} (a {@code retry.v2.RetryPolicy}, in practice
 * a {@code RetryPolicyAdapter} around the client configuration's {@code RetryPolicy}); its
 * {@code getMaxErrorRetry()} is the resolved retry count: {@code ClientConfiguration.setMaxErrorRetry(n)} when set,
 * else the policy's own ({@code PredefinedRetryPolicies.NO_RETRY_POLICY}: 0). Read by reflection ({@code this$0},
 * {@code retryPolicy}); 0: {@link dev.retryagent.engine.UpperLayer#RETRIES_OFF}; otherwise, or a policy of the
 * application's own: {@code aws-sdk-v1}.
 *
 * <h2>The SDK's headers</h2>
 * 1.12.797 writes on every attempt, the first included ({@code executeOneRequest}): {@code amz-sdk-retry:
 * retries/lastBackoff/capacity} ({@code 0/0/500} on the first) and {@code amz-sdk-request: attempt=N; max=M}, with
 * {@code M} the client's {@code getMaxErrorRetry() + 1}. So a request of this SDK that no hooked loop covers is taken
 * by its {@code amz-sdk-request} header, as a v2 request, before {@code amz-sdk-retry} is looked at.
 *
 * <h2>Versions checked</h2>
 * 1.12.797 (the integration tests, S3 over the SDK's Apache HttpClient 4).
 */
package dev.retryagent.agent.layers.awssdk1;
