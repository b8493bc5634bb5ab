package dev.retryagent.it.upperlayers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.Runs;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import dev.retryagent.it.upperlayers.LayerMatrix.App;
import dev.retryagent.it.upperlayers.LayerMatrix.Scenario;
import dev.retryagent.it.upperlayers.LayerMatrix.Way;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The AWS SDK v2 (2.57.8, S3, sync) as a retry layer above its HTTP clients: Apache HttpClient 4
 * ({@code apache-client}), HttpURLConnection ({@code url-connection-client}) and Apache HttpClient 5
 * ({@code apache5-client}). The SDK's own attempts per call are read from the {@code max} of the
 * {@code amz-sdk-request} header it stamps. Its default strategy retries every outcome the agent retries (5xx and 429
 * by their status, I/O errors; 408 by the error code in the body), so every one is left to it.
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

    /**
     * The SDK's {@code apiCallTimeout} (500 ms), its retries off so that the agent retries over
     * HttpURLConnection, against 503 {@code Retry-After: 1} then 200: the SDK's own deadline still ends the call
     * while the agent waits (it interrupts the calling thread, which ends the wait at once), and no retry follows.
     */
    @Test
    void theSdksApiCallTimeoutEndsTheCallWhileTheAgentWaits() {
        try (ScriptedServer server = ScriptedServer.start(s3Error().retryAfterSeconds(1), s3Object())) {
            Path dir = LayerMatrix.appsDir("sdk-apps");
            ForkedApp fork = ForkedApp.of("dev.retryagent.it.sdkapps.AwsSdk2App").name("aws-api-call-timeout")
                    .classpath(dir.resolve("sdk-apps.jar")).policy("version: 1\n").agentArg("log", "debug")
                    .args("--call", "timed", "GET", "urlconnection-api-call-timeout", "0",
                            server.url("").replaceAll("/$", ""));
            LayerMatrix.jars(dir.resolve("libs")).forEach(fork::classpath);
            ForkedApp.Result run = fork.run().assertExitCode(0);
            ReportLine r = run.result();
            assertEquals("software.amazon.awssdk.core.exception.ApiCallTimeoutException", r.get("error"), run.describe());
            assertEquals(1, server.requestCount(), server.requests().toString());
            assertTrue(Runs.logged(run, "retry ", "cause=status:503"), run.describe());
        }
    }

    /** The outcomes each HTTP client may answer differently; the statuses' others go through one of them only. */
    private static final Scenario[] USUAL = Scenario.USUAL.toArray(new Scenario[0]);

    @Test
    void theSdkRetriesAloneUnderDeferAndTheAgentWhenItsRetriesAreOff() {
        LayerMatrix.measureAndCheck(new App("aws-sdk-v2-2.57.8", "sdk-apps", "dev.retryagent.it.sdkapps.AwsSdk2App",
                List.of("libs"), "aws-sdk-v2", List.of(new Way("apache", true, LayerMatrix::awsMaxAttempts),
                        new Way("urlconnection", true, LayerMatrix::awsMaxAttempts).only(USUAL),
                        new Way("apache5", true, LayerMatrix::awsMaxAttempts).only(USUAL)), 1)
                        .nodes(1, s3Error(), s3Object())
                        .scenarios(List.of(Scenario.ALWAYS_503, Scenario.FLAKY, Scenario.FLAKY_RETRY_AFTER,
                                Scenario.FLAKY_429, Scenario.OK, Scenario.DROPPED_GET, Scenario.DROPPED_POST)),
                "aws-sdk-v2").bySetting().values().forEach(run -> run.byCall().forEach((call, m) -> {
                    if (call.endsWith(".off")) {
                        m.seen().forEach(r -> assertEquals(1, LayerMatrix.awsMaxAttempts(r),
                                call + ": the SDK with retries off stamps max=1, which makes no layer either"));
                    }
                }));
    }
}
