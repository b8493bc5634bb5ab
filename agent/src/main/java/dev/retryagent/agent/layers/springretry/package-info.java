/**
 * Spring Retry's {@code RetryTemplate} as a retry layer above the client (docs/reference.md#layers-above-the-client).
 * Not a client: it only tells the engine, on the caller's thread, that the calls made now are attempts of the
 * template's loop ({@code UpperLayer}).
 *
 * <h2>What is hooked, and why there</h2>
 * {@code org.springframework.retry.support.RetryTemplate.doExecute(RetryCallback, RecoveryCallback, RetryState)}
 * (protected; {@code (Lorg/springframework/retry/RetryCallback;Lorg/springframework/retry/RecoveryCallback;}
 * {@code Lorg/springframework/retry/RetryState;)Ljava/lang/Object;}), as a {@code RETRY_LOOP} (declared in
 * {@link dev.retryagent.agent.layers.LayerTable}, with the other layers' hook points): the four {@code execute} overloads end
 * there once per call, and its {@code while (canRetry(...) && !exhausted)} loop calls the callback for every attempt,
 * sleeping through the {@code BackOffPolicy} in between, on the caller's thread. {@code @Retryable} methods
 * ({@code RetryOperationsInterceptor}, {@code StatefulRetryOperationsInterceptor}) go through the same template. With a
 * {@code RetryState} (stateful retry) each {@code doExecute} makes one attempt and the caller (a message redelivery, a
 * transaction) comes back for the next: still Spring Retry's retries, so still a layer.
 *
 * <h2>Retries off</h2>
 * The template's private {@code retryPolicy} (read by reflection): {@code NeverRetryPolicy}, or a policy whose public
 * {@code int getMaxAttempts()} answers 1 ({@code SimpleRetryPolicy}, {@code MaxAttemptsRetryPolicy}, what
 * {@code RetryTemplate.builder().maxAttempts(1)} and {@code @Retryable(maxAttempts = 1)} build; 0 allows no attempt
 * at all). 1.3's builder makes a {@code CompositeRetryPolicy} (a {@code MaxAttemptsRetryPolicy} and an exception
 * classifier policy; parts in its fields {@code policies} and {@code optimistic}): off when a part is off
 * (pessimistic, the default) or when every part is (optimistic). From 2.0 every {@code RetryPolicy} has
 * {@code getMaxAttempts()}, {@code -1} when it does not say (timeout, exception-classifier policies): those count as
 * layers, as does any policy without the method.
 *
 * <h2>Versions checked</h2>
 * The descriptor and the field on the 1.3.4 (Java 8 fleets) and 2.0.13 jars; run end to end on both.
 */
package dev.retryagent.agent.layers.springretry;
