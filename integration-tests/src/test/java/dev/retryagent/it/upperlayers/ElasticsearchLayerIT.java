package dev.retryagent.it.upperlayers;

import dev.retryagent.it.harness.Step;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Elasticsearch low-level REST client (9.5.6 and 8.19.25, its own HttpAsyncClient 4) as a retry layer: with two
 * nodes it tries the second after a failure of the first (an I/O error, 502, 503, 504), so its own attempts per call
 * are its nodes; with its retries off (one node) the agent retries. {@code performRequest} and
 * {@code performRequestAsync}.
 */
class ElasticsearchLayerIT {
    private static final int NODES = 2;

    private static SdkLayerRuns runs(String version, String libs) {
        return new SdkLayerRuns("elasticsearch-rest-client", "elasticsearch-rest-client-" + version,
                "dev.retryagent.it.sdkapps.ElasticsearchApp", List.of("libs", libs), List.of("sync", "async"), NODES,
                Step.status(503).header("Content-Type", "application/json").body("{\"error\":\"unavailable\"}"),
                Step.status(200).header("Content-Type", "application/json").body("{\"found\":true}"));
    }

    @Test
    void newest() {
        runs("9.5.6", "libs-es9").measureAndCheck(requests -> NODES);
    }

    @Test
    void older() {
        runs("8.19.25", "libs-es8").measureAndCheck(requests -> NODES);
    }
}
