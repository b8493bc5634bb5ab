package dev.retryagent.it.upperlayers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.upperlayers.LayerMatrix.App;
import dev.retryagent.it.upperlayers.LayerMatrix.Runs;
import dev.retryagent.it.upperlayers.LayerMatrix.Scenario;
import dev.retryagent.it.upperlayers.LayerMatrix.Setting;
import dev.retryagent.it.upperlayers.LayerMatrix.Way;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The AWS SDK v1 (1.12.797, S3) as a retry layer above its own Apache HttpClient 4. The SDK's own attempts per call
 * are read from the {@code max} of the {@code amz-sdk-request} header it stamps.
 */
class AwsSdk1LayerIT {
    @Test
    void theSdkRetriesAloneUnderDeferAndTheAgentWhenItsRetriesAreOff() {
        Runs runs = LayerMatrix.measureAndCheck(new App("aws-sdk-v1-1.12.797", "sdk-apps",
                "dev.retryagent.it.sdkapps.AwsSdk1App", List.of("libs"), "aws-sdk-v1",
                List.of(new Way("apache", true, LayerMatrix::awsMaxAttempts)), 1).nodes(1, AwsSdk2LayerIT.s3Error(),
                AwsSdk2LayerIT.s3Object()), "aws-sdk-v1");
        // The SDK writes both headers on every attempt, the first included; with its retries off, max=1.
        List<RecordedRequest> alone = runs.get(Setting.ALONE).requests("apache", Scenario.ALWAYS_503, true);
        for (RecordedRequest r : alone) {
            System.out.printf("HEADERS aws-sdk-v1 alone amz-sdk-request=%s amz-sdk-retry=%s%n",
                    r.header("amz-sdk-request"), r.header("amz-sdk-retry"));
            assertNotNull(r.header("amz-sdk-retry"), r.toString());
        }
        for (RecordedRequest r : runs.get(Setting.DEFER).requests("apache", Scenario.ALWAYS_503, false)) {
            assertNotNull(r.header("amz-sdk-retry"), r.toString());
            assertEquals(1, LayerMatrix.awsMaxAttempts(r), r.toString());
        }
    }
}
