/**
 * Failsafe ({@code dev.failsafe:failsafe} 3.x, and {@code net.jodah:failsafe} 2.4) as a retry layer above the
 * client (docs/reference.md#layers-above-the-client, layer {@code failsafe}): a call made inside a synchronous
 * execution whose policies retry is left to it under {@code upperLayers: defer}. Its hook points are declared in
 * {@link dev.retryagent.agent.layers.LayerTable}, with the other layers'.
 *
 * <h2>Why there</h2>
 * <ul>
 *   <li><b>Failsafe 3: {@code SyncExecutionImpl.executeSync()}.</b> Every synchronous entry of a
 *       {@code FailsafeExecutor} ({@code get}, {@code run}, both with or without the execution context, through the
 *       private {@code call}; and {@code newCall(...).execute()}, through {@code CallImpl}) builds one
 *       {@code SyncExecutionImpl} and runs its {@code executeSync()} once: the policies' composed function, whose
 *       {@code RetryPolicyExecutor} loops over the attempts on the calling thread (sleeping between them). 3.0 returns
 *       the {@code ExecutionResult} from it, 3.1+ the result: both descriptors are hooked.</li>
 *   <li><b>Failsafe 2.4: the private {@code FailsafeExecutor.call(Function)}</b>, where {@code get} and {@code run}
 *       end: it creates the {@code Execution} and runs {@code executeSync} on it, all attempts inside.</li>
 *   <li><b>Not hooked: the async entries</b> ({@code getAsync}, {@code runAsync}, {@code getStageAsync},
 *       {@code *AsyncExecution}): their attempts run on the executor's or the scheduler's threads, one task per
 *       attempt. A call they make is retried by the agent as any other (the attempts multiply).</li>
 * </ul>
 *
 * <h2>Retries off</h2>
 * From the executor's policies (3: {@code SyncExecutionImpl}'s private field {@code executor}, then the public
 * {@code getPolicies()}; 2.4: the executor's field {@code policies}, read once by reflection): a {@code RetryPolicy}
 * whose {@code maxRetries} is not 0 (above 0, or -1: unlimited) makes the execution the layer; retry policies that
 * all have {@code maxRetries} 0 ({@code withMaxRetries(0)}, {@code withMaxAttempts(1)}) answer
 * {@link dev.retryagent.engine.UpperLayer#RETRIES_OFF}; no {@code RetryPolicy} at all (a circuit breaker, a
 * timeout, a fallback, a bulkhead, a rate limiter) is no loop (null). Failsafe 3 is read through its API as compiled
 * against 3.0.0 ({@code RetryPolicy.getConfig().getMaxRetries()}), 2.4 by reflection ({@code getMaxRetries()}).
 *
 * <h2>Versions checked</h2>
 * 3.0.0 and 3.3.2 ({@code javap}: names and descriptors), 2.4.4; run against 3.3.2 (OkHttp 4.12) and 2.4.4 by the
 * integration tests.
 */
package dev.retryagent.agent.layers.failsafe;
