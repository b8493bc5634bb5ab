package dev.retryagent.agent.awssdk1;

import dev.retryagent.agent.instrument.ClientInstrumentation;
import dev.retryagent.agent.instrument.HookPoint;
import dev.retryagent.engine.UpperLayer;

/**
 * The AWS SDK for Java v1's retry loop, a retry layer above its Apache HttpClient 4 (SPEC 4.14): entry and exit of
 * {@code com.amazonaws.http.AmazonHttpClient$RequestExecutor.executeHelper()}. See {@link dev.retryagent.agent.awssdk1}.
 * Names no SDK type.
 */
public final class AwsSdk1Instrumentation extends ClientInstrumentation {
    static final String REQUEST_EXECUTOR = "com.amazonaws.http.AmazonHttpClient$RequestExecutor";
    static final String EXECUTE_HELPER_DESCRIPTOR = "()Lcom/amazonaws/Response;";

    public AwsSdk1Instrumentation() {
        super(UpperLayer.AWS_SDK_V1, "dev.retryagent.agent.awssdk1.AwsSdk1Hooks",
                HookPoint.retryLoop(AwsSdk1Hooks.EXECUTE_HELPER, REQUEST_EXECUTOR, "executeHelper",
                        EXECUTE_HELPER_DESCRIPTOR));
    }
}
