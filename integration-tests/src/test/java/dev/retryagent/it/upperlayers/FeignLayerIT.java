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
 * Feign 13.12 with {@code Retryer.Default(10, 50, 5)} (or {@code NEVER_RETRY}) over its default client
 * (HttpURLConnection) and {@code feign-okhttp} (OkHttp 5), the app {@code retryapps.FeignApp}, with an
 * {@code ErrorDecoder} that retries a 503 and with Feign's own, which retries a response only with
 * {@code Retry-After} (the agent retries the others): see {@link LayerMatrix} for what is run and checked.
 */
class FeignLayerIT {
    private static final int RETRIES = 4;
    private static final List<Scenario> SCENARIOS = List.of(Scenario.ALWAYS_503, Scenario.FLAKY,
            Scenario.FLAKY_RETRY_AFTER, Scenario.OK, Scenario.DROPPED_GET, Scenario.DROPPED_POST,
            Scenario.DROPPED_GET_REUSED);

    /**
     * Feign's own decoder over {@code client}: the statuses without Retry-After are the agent's. An I/O error never
     * reaches the decoder: a dropped GET and POST show it left to Feign (a drop on a reused connection, the first
     * ways').
     */
    private static Way feignsDecoder(String client) {
        return Way.leaving(client + "+feign-decoder", RETRIES + 1, Scenario.ALWAYS_503, Scenario.FLAKY)
                .only(Scenario.ALWAYS_503, Scenario.FLAKY, Scenario.FLAKY_RETRY_AFTER, Scenario.OK,
                        Scenario.DROPPED_GET, Scenario.DROPPED_POST);
    }

    @Test
    void feignIsOneRetryLayerOverBothClients() {
        LayerMatrix.measureAndCheck(new App("feign-13.12", "retry-apps", "dev.retryagent.it.retryapps.FeignApp",
                List.of("libs"), "feign", List.of(new Way("default", true, RETRIES + 1),
                new Way("okhttp", true, RETRIES + 1), feignsDecoder("default").withoutRetriesOff(),
                feignsDecoder("okhttp").withoutRetriesOff()), RETRIES)
                .scenarios(SCENARIOS), "feign-13.12");
    }

    /**
     * Feign over OkHttp 5 built with {@code callTimeout(500ms)}, its own retries off, against 503 {@code Retry-After: 1}
     * then 200: the call timeout is the call's deadline under the agent too, so the 503 comes back at once instead of
     * the caller waiting out the second it cannot have.
     */
    @Test
    void okHttpsCallTimeoutThroughFeignIsTheCallsDeadline() {
        try (ScriptedServer server = ScriptedServer.start(Step.status(503).retryAfterSeconds(1), Step.ok())) {
            Path dir = LayerMatrix.appsDir("retry-apps");
            ForkedApp fork = ForkedApp.of("dev.retryagent.it.retryapps.FeignApp").name("feign-call-timeout")
                    .classpath(dir.resolve("retry-apps.jar")).policy("version: 1\n").agentArg("log", "debug")
                    .args("--call", "limited", "GET", "okhttp-call-timeout", "0", server.url("").replaceAll("/$", ""));
            LayerMatrix.jars(dir.resolve("libs")).forEach(fork::classpath);
            ForkedApp.Result run = fork.run().assertExitCode(0);
            ReportLine r = run.result();
            assertEquals(503, r.getInt("status"), run.describe());
            assertEquals(1, server.requestCount(), server.requests().toString());
            assertTrue(Runs.logged(run, "give up ", "path=/items ", "reason=deadline"), run.describe());
        }
    }

    /**
     * feign-core 13.13 (its loop in the private {@code runWithRetry}, below the hooked {@code invoke}): default client,
     * Feign's own decoder (its handler's decoder read there too; the dropped requests are the loop's).
     */
    @Test
    void feign13IsOneRetryLayerWhereTheLoopMovedBelowInvoke() {
        LayerMatrix.measureAndCheck(new App("feign-13.13", "retry-apps", "dev.retryagent.it.retryapps.FeignApp",
                List.of("libs-feign-13.13"), "feign", List.of(feignsDecoder("default")), RETRIES).scenarios(SCENARIOS),
                "feign-13.13");
    }
}
