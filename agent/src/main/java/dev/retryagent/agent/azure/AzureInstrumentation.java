package dev.retryagent.agent.azure;

import dev.retryagent.agent.instrument.ClientInstrumentation;
import dev.retryagent.agent.instrument.HookPoint;

/**
 * What the agent hooks in the Azure SDK's core ({@code com.azure:azure-core}): the synchronous path of
 * {@code com.azure.core.http.policy.RetryPolicy}, a {@link HookPoint#retryLoop} (see the package documentation for
 * why there and what the asynchronous path does). Names no Azure type.
 */
public final class AzureInstrumentation extends ClientInstrumentation {
    static final String RETRY_POLICY = "com.azure.core.http.policy.RetryPolicy";
    static final String PROCESS_SYNC = "(Lcom/azure/core/http/HttpPipelineCallContext;"
            + "Lcom/azure/core/http/HttpPipelineNextSyncPolicy;)Lcom/azure/core/http/HttpResponse;";

    public AzureInstrumentation() {
        super(AzureHooks.LAYER, "dev.retryagent.agent.azure.AzureHooks",
                HookPoint.retryLoop(AzureHooks.PROCESS_SYNC, RETRY_POLICY, "processSync", PROCESS_SYNC));
    }
}
