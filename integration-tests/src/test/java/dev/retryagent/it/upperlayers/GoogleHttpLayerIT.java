package dev.retryagent.it.upperlayers;

import dev.retryagent.it.harness.Step;
import dev.retryagent.it.upperlayers.LayerMatrix.App;
import dev.retryagent.it.upperlayers.LayerMatrix.Way;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * google-http-client 2.2.0 as a retry layer above its transports: {@code NetHttpTransport} (HttpURLConnection) and
 * {@code ApacheHttpTransport} (Apache HttpClient 4), with back-off handlers for responses and I/O errors. Its own
 * attempts per call: 1 + {@code HttpRequest.DEFAULT_NUMBER_OF_RETRIES} (10), the application keeping the default.
 */
class GoogleHttpLayerIT {
    static final int DEFAULT_NUMBER_OF_RETRIES = 10;

    @Test
    void theLibraryRetriesAloneUnderDeferAndTheAgentWhenItsRetriesAreOff() {
        LayerMatrix.measureAndCheck(new App("google-http-client-2.2.0", "sdk-apps",
                "dev.retryagent.it.sdkapps.GoogleHttpApp", List.of("libs"), "google-http-client",
                List.of(new Way("nethttp", true, 1 + DEFAULT_NUMBER_OF_RETRIES),
                        new Way("apache", true, 1 + DEFAULT_NUMBER_OF_RETRIES)),
                DEFAULT_NUMBER_OF_RETRIES).nodes(1, Step.status(503), Step.ok()), "google-http-client");
    }
}
