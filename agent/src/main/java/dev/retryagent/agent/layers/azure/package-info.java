/**
 * The Azure SDK's core ({@code com.azure:azure-core}) {@code RetryPolicy} as a retry layer above the client
 * (docs/reference.md#layers-above-the-client, layer {@code azure-sdk}): a call made inside its synchronous retries is
 * left to it under {@code upperLayers: defer}. Its hook point is declared in
 * {@link dev.retryagent.agent.layers.LayerTable}, with the other layers'.
 *
 * <h2>Why there</h2>
 * <ul>
 *   <li><b>{@code RetryPolicy.processSync(HttpPipelineCallContext, HttpPipelineNextSyncPolicy)}</b>, the policy's
 *       step of {@code HttpPipeline.sendSync} (every synchronous service client since azure-core 1.3x): it calls
 *       the private {@code attemptSync}, which sends through the rest of the pipeline down to the
 *       {@code HttpClient}'s {@code sendSync} and, on a retryable outcome, sleeps and calls itself again: every
 *       attempt runs inside {@code processSync}, on the calling thread. With the OkHttp client
 *       ({@code azure-core-http-okhttp}: OkHttp's {@code execute}) and the JDK one
 *       ({@code azure-core-http-jdk-httpclient}: {@code java.net.http}'s {@code send}) that is an instrumented
 *       client call on the same thread; the default Netty client is not instrumented.</li>
 *   <li><b>Not hooked: {@code process(...)}</b>, the reactive path ({@code HttpPipeline.send}, the async clients):
 *       it only assembles a {@code Mono}; the attempts run when it is subscribed and, with the OkHttp client, are
 *       {@code enqueue}d and completed on OkHttp's dispatcher threads, never inside {@code process} on one thread.
 *       Azure writes no attempt header either (the attempt number is only in the pipeline's {@code Context},
 *       {@code requestRetryCount}). Such a call is retried by the agent as any other: the attempts multiply (measured
 *       by the integration test).</li>
 * </ul>
 *
 * <p>What the policy retries ({@code RetryStrategy}'s defaults, 1.61.0): the statuses 408, 429 and 5xx but 501 and
 * 505; any {@code Exception} of the attempt; whatever the method (a POST too, so under {@code defer} a dropped POST
 * is sent as often as the policy tries it).
 *
 * <h2>Retries off</h2>
 * The policy's private field {@code retryStrategy} (read once by reflection; built from {@code RetryOptions}, or the
 * {@code ExponentialBackoff} / {@code FixedDelay} / own strategy given): {@code getMaxRetries()} 0 answers
 * {@link dev.retryagent.engine.UpperLayer#RETRIES_OFF}, above 0 the layer. Compiled against azure-core 1.45.0.
 *
 * <h2>Versions checked</h2>
 * 1.45.0, 1.57.0 and 1.61.0 ({@code javap}: {@code processSync}'s descriptor, the {@code retryStrategy} field; 1.30.0
 * has no {@code processSync}); run against 1.61.0 with {@code azure-core-http-okhttp} 1.13.7 and
 * {@code azure-core-http-jdk-httpclient} 1.1.7 by the integration tests.
 */
package dev.retryagent.agent.layers.azure;
