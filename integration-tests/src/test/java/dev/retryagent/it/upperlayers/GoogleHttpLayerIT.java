package dev.retryagent.it.upperlayers;

import dev.retryagent.it.harness.Step;
import dev.retryagent.it.upperlayers.LayerMatrix.App;
import dev.retryagent.it.upperlayers.LayerMatrix.Scenario;
import dev.retryagent.it.upperlayers.LayerMatrix.Way;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * google-http-client 2.2.0 as a retry layer above its transports: {@code NetHttpTransport} (HttpURLConnection) and
 * {@code ApacheHttpTransport} (Apache HttpClient 4), with back-off handlers for responses (server errors, its
 * default: a 429 is the agent's) and I/O errors, and on {@code NetHttpTransport} with the latter only (every status is
 * the agent's). Its own attempts per call: 1 + {@code HttpRequest.DEFAULT_NUMBER_OF_RETRIES} (10), the application
 * keeping the default.
 */
class GoogleHttpLayerIT {
    static final int DEFAULT_NUMBER_OF_RETRIES = 10;

    @Test
    void theLibraryRetriesAloneUnderDeferAndTheAgentWhenItsRetriesAreOff() {
        LayerMatrix.measureAndCheck(new App("google-http-client-2.2.0", "sdk-apps",
                "dev.retryagent.it.sdkapps.GoogleHttpApp", List.of("libs"), "google-http-client",
                List.of(Way.leaving("nethttp", 1 + DEFAULT_NUMBER_OF_RETRIES, Scenario.FLAKY_429),
                        Way.leaving("apache", 1 + DEFAULT_NUMBER_OF_RETRIES, Scenario.FLAKY_429),
                        Way.leaving("nethttp-failures-only", 1 + DEFAULT_NUMBER_OF_RETRIES, Scenario.ALWAYS_503,
                                Scenario.FLAKY, Scenario.FLAKY_RETRY_AFTER, Scenario.FLAKY_429)
                                .only(Scenario.ALWAYS_503, Scenario.FLAKY, Scenario.FLAKY_RETRY_AFTER,
                                        Scenario.FLAKY_429, Scenario.OK, Scenario.DROPPED_GET)
                                .withoutRetriesOff()),
                DEFAULT_NUMBER_OF_RETRIES).nodes(1, Step.status(503), Step.ok()).scenarios(List.of(Scenario.ALWAYS_503,
                        Scenario.FLAKY, Scenario.FLAKY_RETRY_AFTER, Scenario.FLAKY_429, Scenario.OK,
                        Scenario.DROPPED_GET, Scenario.DROPPED_POST)), "google-http-client");
    }
}
