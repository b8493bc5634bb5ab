package dev.retryagent.it.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Soak (docs/reference.md#semantics, #what-it-reports): 64 threads make 20,000 calls over five client kinds (OkHttp
 * sync and async, HttpClient 5 classic and async, HttpURLConnection) in one forked JVM, each kind against its own
 * loopback server that fails 30% of the requests at random (seeded): 503, 429 with {@code Retry-After: 0}, a connection
 * dropped after the request was read, and an answer held past the clients' read timeout. Proves: every call ends (no
 * deadlock), no connection stays leased, the agent runs no thread but its two daemons, the agent's counters equal what
 * each server received, every failed GET used all its attempts (none was refused a retry it should have had), and no
 * POST without key reached a server twice. The JDK of the run is the test's: CI runs it on Java 17 and on Java 25.
 */
@Timeout(600)
class SoakIT {
    static final int CALLS = 20_000;
    static final int THREADS = 64;
    static final int MAX_ATTEMPTS = 4;
    static final String POLICY = """
            version: 1
            defaults:
              maxAttempts: %d
              backoff: { base: 1ms, cap: 5ms }
              deadline: 60s
              retryAfter: { honor: true, max: 1s, spread: 0.5 }
              budget: { ratio: 1.0, minPerSecond: 100000 }
            """.formatted(MAX_ATTEMPTS);

    /** A seeded script in which 30% of the steps fail, in four ways; the last step (repeated) succeeds. */
    static Step[] script(long seed) {
        Random random = new Random(seed);
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < CALLS; i++) {
            int roll = random.nextInt(100);
            if (roll < 12) {
                steps.add(Step.status(503).body("busy"));
            } else if (roll < 20) {
                steps.add(Step.status(429).retryAfterSeconds(0).body("slow down"));
            } else if (roll < 26) {
                steps.add(Step.dropAfterRequest());
            } else if (roll < 30) {
                steps.add(Step.ok().body("late").delayMillis(SoakApp.READ_TIMEOUT_MS * 3L));
            } else {
                steps.add(Step.ok().body("fine"));
            }
        }
        steps.add(Step.ok().body("fine"));
        return steps.toArray(new Step[0]);
    }

    @Test
    void twentyThousandCallsOverEveryClientUnderRandomFailures() throws Exception {
        Map<String, ScriptedServer> servers = new LinkedHashMap<>();
        try {
            long seed = 20261201;
            for (String kind : SoakApp.KINDS) {
                servers.put(kind, ScriptedServer.start(script(seed++)));
            }
            List<String> args = new ArrayList<>(List.of("--calls", Integer.toString(CALLS), "--threads",
                    Integer.toString(THREADS)));
            servers.forEach((kind, server) -> args.addAll(List.of("--" + kind, server.url(""))));
            ForkedApp app = ForkedApp.of(SoakApp.class).name("soak").clientLibs(ClientLibs.OKHTTP_5)
                    .classpath(ForkedApp.testClasses()).policy(POLICY).timeout(Duration.ofMinutes(9)).args(args);
            ClientLibs.HTTPCLIENT5_NEWEST.jars().forEach(app::classpath);
            ForkedApp.Result run = app.run().assertExitCode(0);
            System.out.println("SOAK " + run.single("DONE") + " " + run.single("POOL") + " " + run.single("THREADS"));
            run.lines("KIND").forEach(l -> System.out.println("SOAK " + l));

            ReportLine pool = run.single("POOL");
            assertEquals(0, pool.getInt("classicLeased"), pool.toString());
            assertEquals(0, pool.getInt("asyncLeased"), pool.toString());
            assertEquals(0, pool.getInt("okhttpRunning") + pool.getInt("okhttpQueued"), pool.toString());
            assertFalse(run.stderr().contains("internal-error"), run.describe());
            // The agent's own threads are its two daemons, however many calls and retries it ran.
            assertEquals("retry-agent-housekeeping,retry-agent-scheduler", run.single("THREADS").get("agent"),
                    run.single("THREADS").toString());

            Map<Integer, ReportLine> byPort = new HashMap<>();
            for (ReportLine mbean : run.lines("MBEAN")) {
                String name = mbean.get("name");
                if (name.contains("type=destination")) {
                    byPort.put(Integer.parseInt(name.replaceAll(".*port=(\\d+).*", "$1")), mbean);
                }
            }
            long totalCalls = 0;
            for (ReportLine kindLine : run.lines("KIND")) {
                String kind = kindLine.get("kind");
                ScriptedServer server = servers.get(kind);
                ReportLine counters = byPort.get(server.port());
                assertTrue(counters != null, "an MBean for " + kind + ": " + run.lines("MBEAN"));
                int calls = kindLine.getInt("calls");
                totalCalls += calls;
                assertEquals(calls, kindLine.getInt("ok") + kindLine.getInt("failedGets") + kindLine.getInt("failedPosts"),
                        "every call ended: " + kindLine);
                assertEquals(calls, counters.getLong("calls"), kind + " " + counters);

                List<RecordedRequest> seen = server.requests();
                assertEquals(seen.size(), counters.getLong("attempts"),
                        kind + ": the agent's attempts are what the server received " + counters);
                assertEquals(counters.getLong("attempts") - calls, counters.getLong("retries"), counters.toString());
                assertEquals(0, counters.getLong("budget_refusals"), counters.toString());
                assertEquals(0, counters.getLong("give_ups.deadline"), counters.toString());
                assertEquals(kindLine.getInt("failedGets"), counters.getLong("give_ups.attempts"),
                        kind + ": every failed GET was retried to its last attempt " + counters);
                assertEquals(kindLine.getInt("failedPosts"), counters.getLong("give_ups.not-idempotent"),
                        kind + ": a failed POST without key was given back, not retried " + counters);

                Map<String, Integer> posts = new HashMap<>();
                for (RecordedRequest request : seen) {
                    if (request.method().equals("POST")) {
                        posts.merge(request.header("X-Call-Id"), 1, Integer::sum);
                    }
                }
                posts.forEach((id, count) -> assertEquals(1, count, kind + ": POST " + id + " reached the server twice"));
                assertEquals(calls / 10, posts.size(), kind + ": every POST reached the server once");
            }
            assertEquals(CALLS, totalCalls);
        } finally {
            for (ScriptedServer server : servers.values()) {
                server.close();
            }
        }
    }
}
