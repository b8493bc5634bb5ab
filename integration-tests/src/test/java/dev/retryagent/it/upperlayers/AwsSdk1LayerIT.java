package dev.retryagent.it.upperlayers;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The AWS SDK v1 (1.12.797, S3) as a retry layer above its own Apache HttpClient 4. The SDK's own attempts per call
 * are read from the {@code max} of the {@code amz-sdk-request} header it stamps.
 */
class AwsSdk1LayerIT {
    @Test
    void theSdkRetriesAloneUnderDeferAndTheAgentWhenItsRetriesAreOff() {
        new LayerRuns("aws-sdk-v1", "aws-sdk-v1-1.12.797", "dev.retryagent.it.sdkapps.AwsSdk1App", List.of("libs"),
                List.of("apache"), 1, AwsSdk2LayerIT.s3Error(), AwsSdk2LayerIT.s3Object())
                .measureAndCheck(LayerRuns::awsMaxAttempts);
    }
}
