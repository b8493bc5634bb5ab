package dev.retryagent.it.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

/**
 * Every discarded response is released to the pool: 1,000 retried calls (503, then 200) through a pool of at most
 * 5 connections, classic and async at the same time in one forked JVM. A connection kept by a discarded response
 * would exhaust the pool after five calls; the pool's lease timeout (5 s) turns that into a failure, not a hang.
 * For the Apache clients' batch apps ({@code api=classic|async}, {@code client=pool5}, {@code repeat=N}, a
 * {@code POOL} line per pool).
 */
public final class PoolOfFive {
    static final int CALLS = 1000;
    static final String POLICY = """
            version: 1
            defaults:
              maxAttempts: 3
              backoff: { base: 1ms, cap: 2ms }
              budget: { ratio: 1.0, minPerSecond: 1000 }
            """;

    private PoolOfFive() {
    }

    /** Runs {@code app} (the agent attached, no arguments yet) with the calls, and checks pools and connections. */
    public static ForkedApp.Result check(ForkedApp app) {
        List<Step> script = new ArrayList<>();
        for (int i = 0; i < CALLS; i++) {
            script.add(Step.status(503).body("busy, try again"));
            script.add(Step.ok().body("done"));
        }
        Step[] steps = script.toArray(new Step[0]);
        try (ScriptedServer classic = ScriptedServer.start(steps);
             ScriptedServer async = ScriptedServer.start(steps)) {
            ForkedApp.Result run = app.policy(POLICY)
                    .args("--call", "id=classic;api=classic;client=pool5;repeat=" + CALLS + ";url=" + classic.url("/pool"),
                            "--call", "id=async;api=async;client=pool5;repeat=" + CALLS + ";url=" + async.url("/pool"))
                    .run().assertExitCode(0);
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
            return run;
        }
    }
}
