/**
 * Resilience4j Retry ({@code io.github.resilience4j:resilience4j-retry}) as a retry layer above the client
 * (docs/reference.md#layers-above-the-client, layer {@code resilience4j}): a call made inside one of its loops is left
 * to it under {@code upperLayers: defer}. No retry of the agent's own here: the package only tells the loop's entry and
 * exit. Its hook points are declared in {@link dev.retryagent.agent.layers.LayerTable}, with the other layers'.
 *
 * <h2>Why there</h2>
 * <ul>
 * <li><b>The loop is the body of the lambda a {@code decorateX} returns.</b> Every synchronous decorator of the
 *       interface {@code io.github.resilience4j.retry.Retry} ({@code decorateSupplier},
 *       {@code decorateCheckedSupplier}, {@code decorateCallable}, {@code decorateRunnable},
 *       {@code decorateCheckedRunnable}, {@code decorateFunction}, {@code decorateCheckedFunction}, 2.3+
 *       {@code decorateConsumer} and {@code decorateCheckedConsumer}, 1.x {@code decorateEitherSupplier} and
 *       {@code decorateTrySupplier}) returns a lambda whose body takes a {@code retry.context()} and loops on the
 *       calling thread ({@code while (true)}: call, {@code onResult} / {@code onError}, which waits and loops or
 *       rethrows, {@code onComplete}). javac compiles each body into a private static synthetic method of
 *       {@code Retry}, {@code lambda$decorateX$N(Retry, ...)}: entered once per decorated call, every attempt inside
 *       it. They are hooked by exact name and descriptor as compiled in the released jars (read with
 *       {@code javap -p -c} from 1.5.0 through 2.4.0: the numbers shift at 2.0 and 2.3; the 1.x vavr lambdas are
 *       serializable and carry javac's hash in their name).</li> <li><b>And the {@code executeX} default methods</b>
 *       ({@code retry.executeSupplier(...)} and the like), which call {@code decorateX(this, ...)}'s lambda: the common
 *       way stays covered even if a release renumbers its lambdas (a nested loop of the same layer is counted, nothing
 *       more).</li> <li><b>Not {@code RetryImpl.context()} and {@code onComplete()}:</b> a context's end has no single
 *       exit (it ends by a rethrow from {@code onError}, or not at all when the application drops it), so the thread's
 *       loop stack could not be kept balanced.</li> <li><b>Not hooked:
 *       {@code decorateCompletionStage}/{@code executeCompletionStage}</b>, whose attempts run on the application's
 *       scheduler, nor the reactive and Kotlin operators: their attempts are not made inside one method on one thread.
 *       A call they make is retried by the agent as any other (the attempts multiply).</li>
 * </ul>
 *
 * <h2>Retries off</h2>
 * The {@code Retry} is the receiver of {@code executeX} and the first argument of each lambda body:
 * {@code retry.getRetryConfig().getMaxAttempts() <= 1} ({@code maxAttempts(1)}) answers
 * {@link dev.retryagent.engine.UpperLayer#RETRIES_OFF}, anything above 1 the layer. The handler is compiled against
 * 1.7.1; {@code getRetryConfig()} and {@code getMaxAttempts()} are the same in 2.x.
 *
 * <h2>Versions checked</h2>
 * The names and descriptors of 1.5.0, 1.6.0, 1.6.1, 1.7.0, 1.7.1, 2.0.0, 2.0.1, 2.0.2, 2.1.0, 2.2.0, 2.3.0, 2.4.0
 * ({@code javap}); run against 1.7.1 and 2.4.0 by the integration tests.
 */
package dev.retryagent.agent.layers.resilience4j;
