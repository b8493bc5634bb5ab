package dev.retryagent.it.upperlayers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.retryagent.it.harness.Step;
import dev.retryagent.it.upperlayers.LayerRuns.App;
import dev.retryagent.it.upperlayers.LayerRuns.Setting;
import dev.retryagent.it.upperlayers.LayerRuns.Way;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The AWS SDK v2 (2.57.8, S3, sync) as a retry layer above its HTTP clients: Apache HttpClient 4
 * ({@code apache-client}), HttpURLConnection ({@code url-connection-client}) and Apache HttpClient 5
 * ({@code apache5-client}). The SDK's own attempts per call are read from the {@code max} of the
 * {@code amz-sdk-request} header it stamps.
 */
class AwsSdk2LayerIT {
    static final String S3_ERROR = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code>"
            + "<Message>Please reduce your request rate.</Message><RequestId>1</RequestId></Error>";

    static Step s3Error() {
        return Step.status(503).header("Content-Type", "application/xml").body(S3_ERROR);
    }

    static Step s3Object() {
        return Step.status(200).header("Content-Type", "application/octet-stream").body("hello");
    }

    @Test
    void theSdkRetriesAloneUnderDeferAndTheAgentWhenItsRetriesAreOff() {
        LayerRuns.measureAndCheck(new App("aws-sdk-v2-2.57.8", "sdk-apps", "dev.retryagent.it.sdkapps.AwsSdk2App",
                List.of("libs"), "aws-sdk-v2", List.of(new Way("apache", true, LayerRuns::awsMaxAttempts),
                        new Way("urlconnection", true, LayerRuns::awsMaxAttempts),
                        new Way("apache5", true, LayerRuns::awsMaxAttempts)), 1, 1, s3Error(), s3Object()), "aws-sdk-v2")
                .get(Setting.OFF).byCall().forEach((call, m) -> m.seen().forEach(r -> assertEquals(1,
                        LayerRuns.awsMaxAttempts(r), call + ": the SDK with retries off stamps max=1, which makes no layer either")));
    }
}
