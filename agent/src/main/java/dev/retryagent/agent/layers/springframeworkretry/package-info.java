/**
 * Spring Framework 7's {@code org.springframework.core.retry.RetryTemplate} (in {@code spring-core}; Java 17+) as a
 * retry layer above the client (docs/reference.md#layers-above-the-client), named {@code spring-framework-retry} so
 * that it is told apart from the separate Spring Retry project ({@code spring-retry}, package {@code
 * dev.retryagent.agent.layers.springretry}). Not a client: it only tells the engine, on the caller's thread, that the calls
 * made now are attempts of the template's loop ({@code UpperLayer}).
 *
 * <h2>What is hooked, and why there</h2>
 * {@code RetryTemplate.execute(Retryable)} ({@code (Lorg/springframework/core/retry/Retryable;)Ljava/lang/Object;}),
 * as a {@code RETRY_LOOP} (declared in {@link dev.retryagent.agent.layers.LayerTable}, with the other layers' hook points):
 * it makes the first attempt, then loops {@code while (retryPolicy.shouldRetry(last))}, sleeping for the policy's
 * {@code BackOffExecution.nextBackOff()} and stopping at {@code STOP}, all on the caller's thread;
 * {@code invoke(Supplier)} and {@code invoke(Runnable)} call it.
 *
 * <h2>Retries off</h2>
 * The number of retries is the policy's {@code BackOff}'s: {@code RetryPolicy.withMaxRetries(n)} makes a
 * {@code FixedBackOff(delay, n)}, {@code RetryPolicy.builder().maxRetries(n)} an {@code ExponentialBackOff} with
 * {@code maxAttempts} n (retries after the first attempt; "attempts" in the back-off's own words). Read through the
 * public {@code getRetryPolicy()} and {@code RetryPolicy.getBackOff()}: a {@code FixedBackOff} or
 * {@code ExponentialBackOff} with {@code getMaxAttempts()} 0, or an {@code ExponentialBackOff} with
 * {@code getMaxElapsedTime()} 0, never retries: {@code RETRIES_OFF}. Any other back-off, or a policy whose
 * {@code shouldRetry} refuses everything, cannot be told from outside: a layer.
 *
 * <h2>Versions checked</h2>
 * 7.0.10 (source and jar), run end to end with java.net.http's {@code HttpClient} underneath.
 */
package dev.retryagent.agent.layers.springframeworkretry;
