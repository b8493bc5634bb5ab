package dev.retryagent.it.upperlayers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.retryagent.it.harness.RecordedRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The AWS SDK v1 (1.12.797, S3) as a retry layer above its own Apache HttpClient 4. The SDK's own attempts per call
 * are read from the {@code max} of the {@code amz-sdk-request} header it stamps.
 */
class AwsSdk1LayerIT {
    @Test
    void theSdkRetriesAloneUnderDeferAndTheAgentWhenItsRetriesAreOff() {
        SdkLayerRuns.Runs runs = new SdkLayerRuns("aws-sdk-v1", "aws-sdk-v1-1.12.797", "dev.retryagent.it.sdkapps.AwsSdk1App", List.of("libs"),
                List.of("apache"), 1, AwsSdk2LayerIT.s3Error(), AwsSdk2LayerIT.s3Object())
                .measureAndCheck(SdkLayerRuns::awsMaxAttempts);
        // The SDK writes both headers on every attempt, the first included; with its retries off, max=1.
        List<RecordedRequest> alone = runs.alone().requests.get("apache/always503");
        for (RecordedRequest r : alone) {
            System.out.printf("HEADERS aws-sdk-v1 alone amz-sdk-request=%s amz-sdk-retry=%s%n",
                    r.header("amz-sdk-request"), r.header("amz-sdk-retry"));
            assertNotNull(r.header("amz-sdk-retry"), r.toString());
        }
        for (RecordedRequest r : runs.off().requests.get("apache/always503")) {
            assertNotNull(r.header("amz-sdk-retry"), r.toString());
            assertEquals(1, SdkLayerRuns.awsMaxAttempts(r), r.toString());
        }
    }
}
