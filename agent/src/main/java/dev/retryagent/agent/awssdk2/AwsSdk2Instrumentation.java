package dev.retryagent.agent.awssdk2;

import dev.retryagent.agent.instrument.ClientInstrumentation;
import dev.retryagent.agent.instrument.HookPoint;
import dev.retryagent.engine.UpperLayer;

/**
 * The AWS SDK for Java v2's synchronous retry loop, a retry layer above the HTTP client (SPEC 4.14): entry and exit
 * of {@code execute(SdkHttpFullRequest, RequestExecutionContext)} of {@code RetryableStage} (every 2.x) and of
 * {@code RetryableStage2} (2.26 to 2.29 only, the stage of clients built with a {@code RetryStrategy}). See
 * {@link dev.retryagent.agent.awssdk2} for why there and how retries-off is told. Names no SDK type.
 */
public final class AwsSdk2Instrumentation extends ClientInstrumentation {
    static final String STAGES = "software.amazon.awssdk.core.internal.http.pipeline.stages.";
    static final String RETRYABLE_STAGE = STAGES + "RetryableStage";
    static final String RETRYABLE_STAGE2 = STAGES + "RetryableStage2";
    static final String EXECUTE_DESCRIPTOR = "(Lsoftware/amazon/awssdk/http/SdkHttpFullRequest;"
            + "Lsoftware/amazon/awssdk/core/internal/http/RequestExecutionContext;)Lsoftware/amazon/awssdk/core/Response;";

    public AwsSdk2Instrumentation() {
        super(UpperLayer.AWS_SDK_V2, "dev.retryagent.agent.awssdk2.AwsSdk2Hooks",
                HookPoint.retryLoop(AwsSdk2Hooks.RETRYABLE_STAGE, RETRYABLE_STAGE, "execute", EXECUTE_DESCRIPTOR),
                HookPoint.retryLoop(AwsSdk2Hooks.RETRYABLE_STAGE2, RETRYABLE_STAGE2, "execute", EXECUTE_DESCRIPTOR));
    }
}
