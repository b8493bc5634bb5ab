package dev.retryagent.it.upperlayers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.Runs;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import dev.retryagent.it.upperlayers.LayerMatrix.App;
import dev.retryagent.it.upperlayers.LayerMatrix.Way;
import java.nio.file.Path;
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

    /**
     * {@code performRequestAsync}, then {@code Cancellable.cancel()} 500 ms later while the agent waits out a
     * {@code Retry-After: 1}: the listener hears of the cancel, and no retry goes out after it (the client's cancel
     * aborts the application's request, which cancels the agent's whole call).
     */
    @Test
    void aCancelledCallSendsNothingMore() {
        try (ScriptedServer node = ScriptedServer.start(Step.status(503).retryAfterSeconds(1)
                        .header("Content-Type", "application/json").body("{\"error\":\"unavailable\"}"),
                Step.status(200).header("Content-Type", "application/json").body("{\"found\":true}"))) {
            Path dir = LayerMatrix.appsDir("sdk-apps");
            ForkedApp fork = ForkedApp.of("dev.retryagent.it.sdkapps.ElasticsearchApp").name("elasticsearch-cancel")
                    .classpath(dir.resolve("sdk-apps.jar")).policy("version: 1\n").agentArg("log", "debug")
                    .args("--call", "cancelled", "GET", "async-cancel", "0", node.url("").replaceAll("/$", ""));
            for (String libs : List.of("libs", "libs-es9")) {
                LayerMatrix.jars(dir.resolve(libs)).forEach(fork::classpath);
            }
            ForkedApp.Result run = fork.run().assertExitCode(0);
            ReportLine r = run.result();
            // cancelled, not answered by a retry after the Retry-After (which would have been the 200)
            assertEquals("java.util.concurrent.CancellationException", r.get("error"), run.describe());
            assertEquals(1, node.requestCount(), node.requests().toString());
            assertTrue(Runs.logged(run, "retry ", "path=/idx/_doc/1 ", "cause=status:503"), run.describe());
        }
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
