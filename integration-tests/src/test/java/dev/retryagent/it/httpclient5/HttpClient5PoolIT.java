package dev.retryagent.it.httpclient5;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.Runs;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every discarded response is released to the pool: 1,000 retried calls (503, then 200) through a pool of at most
 * 5 connections, classic and async at the same time in one forked JVM. A connection kept by a discarded response
 * would exhaust the pool after five calls; the pool's lease timeout (5 s) turns that into a failure, not a hang.
 */
@Timeout(180)
class HttpClient5PoolIT {
    static final int CALLS = 1000;
    static final String POLICY = """
            version: 1
            defaults:
              maxAttempts: 3
              backoff: { base: 1ms, cap: 2ms }
              budget: { ratio: 1.0, minPerSecond: 1000 }
            """;

    @ParameterizedTest
    @EnumSource(names = {"HTTPCLIENT5_OLDEST", "HTTPCLIENT5_NEWEST"})
    void aThousandRetriedCallsThroughAPoolOfFive(ClientLibs libs) {
        List<Step> script = new ArrayList<>();
        for (int i = 0; i < CALLS; i++) {
            script.add(Step.status(503).body("busy, try again"));
            script.add(Step.ok().body("done"));
        }
        Step[] steps = script.toArray(new Step[0]);
        try (ScriptedServer classic = ScriptedServer.start(steps);
             ScriptedServer async = ScriptedServer.start(steps)) {
            ForkedApp.Result run = HttpClient5AgentIT.app("pool", libs).policy(POLICY)
                    .args("--call", "id=classic;api=classic;client=pool5;repeat=" + CALLS + ";url=" + classic.url("/pool"),
                            "--call", "id=async;api=async;client=pool5;repeat=" + CALLS + ";url=" + async.url("/pool"))
                    .run().assertExitCode(0);
            HttpClient5AgentIT.assertVersion(run, libs);
            for (String api : List.of("classic", "async")) {
                ReportLine r = Runs.result(run, api);
                assertEquals(CALLS, r.getInt("ok"), api + " " + r + "\n" + run.describe());
                assertEquals(0, r.getInt("failures"), r.toString());
                ReportLine pool = run.lines("POOL").stream().filter(l -> l.get("api").equals(api)).findFirst()
                        .orElseThrow();
                assertEquals(0, pool.getInt("leased"), pool.toString());
                assertTrue(pool.getInt("available") <= 5, pool.toString());
            }
            for (ScriptedServer server : List.of(classic, async)) {
                assertEquals(2 * CALLS, server.requestCount());
                server.assertPoolBound(5);
            }
        }
    }
}
