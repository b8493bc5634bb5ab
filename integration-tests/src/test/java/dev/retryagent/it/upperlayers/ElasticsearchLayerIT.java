package dev.retryagent.it.upperlayers;

import dev.retryagent.it.harness.Step;
import dev.retryagent.it.upperlayers.LayerMatrix.App;
import dev.retryagent.it.upperlayers.LayerMatrix.Way;
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

    private static void measureAndCheck(String version, String libs) {
        LayerMatrix.measureAndCheck(new App("elasticsearch-rest-client-" + version, "sdk-apps",
                "dev.retryagent.it.sdkapps.ElasticsearchApp", List.of("libs", libs), "elasticsearch-rest-client",
                List.of(new Way("sync", true, NODES), new Way("async", true, NODES)), 1).nodes(NODES,
                Step.status(503).header("Content-Type", "application/json").body("{\"error\":\"unavailable\"}"),
                Step.status(200).header("Content-Type", "application/json").body("{\"found\":true}")),
                "elasticsearch-" + version);
    }

    @Test
    void newest() {
        measureAndCheck("9.5.6", "libs-es9");
    }

    @Test
    void older() {
        measureAndCheck("8.19.25", "libs-es8");
    }
}
