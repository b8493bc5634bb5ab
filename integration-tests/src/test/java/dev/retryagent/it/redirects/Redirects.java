package dev.retryagent.it.redirects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A followed redirect to another host is decided under the rule of the host the request actually went to, and
 * counted there. A driver per client ({@link OkHttpRedirectsIT}, {@link HttpUrlConnectionRedirectsIT},
 * {@link HttpClient5RedirectsIT}, {@link HttpClient4RedirectsIT}, {@link JdkHttpClientRedirectsIT}) names its calls
 * (and may name the JVM); each runs them in one forked JVM. Per call a pair of loopback servers: A at
 * {@code 127.0.0.1} answers every request with a 302 to B's URL spelled with the host name {@code localhost}; B
 * answers 503, 503, then 200. The defaults allow 2 attempts (A's rule), the rule for host {@code localhost} 4: a call
 * decided under A's rule ends with B's second 503, under B's it gets B's 200 after two retries.
 *
 * <p>Where each client follows the redirect (and so where its retry goes) differs: OkHttp and java.net.http follow it
 * inside the agent's attempt and a retry re-sends the original request to A, which redirects again; HttpURLConnection
 * follows it inside the attempt too but leaves the connection at B, where the retry goes; HttpClient 5 follows it
 * outside the agent's handler, so A's 302 and B's answers are two calls. A call marked {@code observe} goes to a B
 * whose own rule (by port) is in mode {@code observe}: B counts a would-retry and nothing is retried, where A's rule
 * would retry.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class Redirects {
    private static String policy(List<Integer> observedPorts) {
        StringBuilder rules = new StringBuilder();
        for (int port : observedPorts) {
            rules.append("  - match: { host: \"localhost\", port: ").append(port).append(" }\n")
                    .append("    mode: observe\n");
        }
        return """
                version: 1
                defaults:
                  maxAttempts: 2
                  backoff: { base: 10ms, cap: 50ms }
                rules:
                """ + rules + """
                  - match: { host: "localhost" }
                    maxAttempts: 4
                """;
    }

    /**
     * One call: its id, the app's client and method, the agent's name for that client, and what it must come to: the
     * requests A and B receive, the status the app gets, and B's counters (calls, retries, give-ups not-idempotent).
     */
    record Case(String id, String client, String method, String agentClient, int atA, int atB, int status,
                int retriesAtB, int notIdempotentAtB, boolean observe, int callsAtB) {
        Case(String id, String client, String method, String agentClient, int atA, int atB, int status,
             int retriesAtB, int notIdempotentAtB) {
            this(id, client, method, agentClient, atA, atB, status, retriesAtB, notIdempotentAtB, false, 1);
        }

        /**
         * The same GET to a B whose rule is in mode observe: A's rule would retry, B's only counts a would-retry for
         * each of its {@code callsAtB} calls; {@code atB} requests reach B (the client's own retries, if any, run as
         * without the agent under observe).
         */
        static Case observed(String id, String client, String agentClient, int atB, int callsAtB) {
            return new Case(id, client, "GET", agentClient, 1, atB, 503, 0, 0, true, callsAtB);
        }
    }

    /** This client's calls. */
    abstract List<Case> cases();

    /** The {@code java} the app runs on. */
    Path java() {
        return ForkedApp.defaultJava();
    }

    private final Map<String, ScriptedServer> A = new LinkedHashMap<>();
    private final Map<String, ScriptedServer> B = new LinkedHashMap<>();
    private List<Case> calls;
    private ForkedApp.Result run;

    @BeforeAll
    void runTheApp() {
        calls = cases();
        List<String> args = new ArrayList<>();
        List<Integer> observed = new ArrayList<>();
        for (Case c : calls) {
            ScriptedServer b = ScriptedServer.start(Step.status(503), Step.status(503), Step.ok());
            ScriptedServer a = ScriptedServer.start(Step.status(302).header("Location", bUrl(b)));
            A.put(c.id(), a);
            B.put(c.id(), b);
            if (c.observe()) {
                observed.add(b.port());
            }
            args.add("--call");
            args.add("id=" + c.id() + ";client=" + c.client() + ";method=" + c.method() + ";url=" + a.url("/a"));
        }
        args.add("--expect-calls");
        args.add(String.valueOf(expectedCalls()));
        ForkedApp app = ForkedApp.of(RedirectsApp.class).name(getClass().getSimpleName()).java(java()).clientLibs(ClientLibs.OKHTTP_5)
                .classpath(ForkedApp.testClasses()).policy(policy(observed)).agentArg("log", "debug").args(args);
        ClientLibs.HTTPCLIENT5_NEWEST.jars().forEach(app::classpath);
        ClientLibs.HTTPCLIENT4_NEWEST.jars().forEach(app::classpath);
        run = app.run().assertExitCode(0);
    }

    @AfterAll
    void closeServers() {
        A.values().forEach(ScriptedServer::close);
        B.values().forEach(ScriptedServer::close);
    }

    private static String bUrl(ScriptedServer b) {
        return "http://localhost:" + b.port() + "/b";
    }

    @Test
    void everyCallGetsTheResponseTheRuleOfTheRedirectTargetAllows() {
        for (Case c : calls) {
            assertEquals(String.valueOf(c.status()), result(c.id()).get("status"), c.id() + ": " + run.describe());
        }
    }

    @Test
    void theRetriesWentWhereEachClientSendsThem() {
        for (Case c : calls) {
            List<RecordedRequest> atB = B.get(c.id()).awaitRequests(c.atB(), Duration.ofSeconds(10));
            List<RecordedRequest> atA = A.get(c.id()).requests();
            System.out.println("REDIRECTS call=" + c.id() + " atA=" + atA.size() + " atB=" + atB.size()
                    + " methodsAtA=" + atA.stream().map(RecordedRequest::method).toList()
                    + " methodsAtB=" + atB.stream().map(RecordedRequest::method).toList()
                    + " markersAtB=" + atB.stream().map(r -> r.header("Retry-Attempt")).toList());
            assertEquals(c.atB(), B.get(c.id()).requestCount(), c.id());
            assertEquals(c.atA(), atA.size(), c.id());
            assertTrue(atA.stream().allMatch(r -> r.method().equals(c.method())), c.id() + ": " + atA);
        }
    }

    @Test
    void theRetriesAreCountedAtTheRedirectTargetAndTheCallAtBoth() {
        Map<String, Map<String, String>> mbeans = new HashMap<>();
        for (ReportLine line : run.lines("MBEAN")) {
            mbeans.put(line.get("name"), line.values());
        }
        assertEquals(String.valueOf(expectedCalls()), run.single("WAITED").get("totalCalls"), run.describe());
        for (Case c : calls) {
            Map<String, String> a = mbeans.get(mbean(c.agentClient(), "127.0.0.1", A.get(c.id()).port()));
            Map<String, String> b = mbeans.get(mbean(c.agentClient(), "localhost", B.get(c.id()).port()));
            assertTrue(a != null && b != null, c.id() + ": " + mbeans.keySet());
            assertEquals("1", a.get("calls"), c.id() + " at A: " + a);
            assertEquals("0", a.get("retries"), c.id() + " at A: " + a);
            assertEquals(String.valueOf(c.callsAtB()), b.get("calls"), c.id() + " at B: " + b);
            assertEquals(String.valueOf(c.retriesAtB()), b.get("retries"), c.id() + " at B: " + b);
            assertEquals(c.retriesAtB() > 0 ? "1" : "0", b.get("successes_after_retry"), c.id() + " at B: " + b);
            assertEquals(String.valueOf(c.observe() ? c.callsAtB() : 0), b.get("would_retry"), c.id() + " at B: " + b);
            assertEquals("0", a.get("would_retry"), c.id() + " at A: " + a);
        }
    }

    @Test
    void theDebugLinesNameTheRedirectTarget() {
        List<String> log = run.agentLog();
        for (Case c : calls) {
            // HttpClient 5's hop to B is a call of its own, with the method the redirect gave it
            String method = c.agentClient().equals("apache-httpclient5") ? "GET" : c.method();
            String at = "client=" + c.agentClient() + " method=" + method + " host=localhost path=/b";
            long retries = log.stream().filter(l -> l.contains(" retry " + at)).count();
            long notIdempotent = log.stream()
                    .filter(l -> l.contains(" give up " + at) && l.contains("reason=not-idempotent")).count();
            if (c.observe()) {
                assertTrue(log.stream().anyMatch(l -> l.contains(" would retry " + at)), c.id() + ": " + run.describe());
            } else if (c.retriesAtB() > 0) {
                assertTrue(retries >= c.retriesAtB(), c.id() + ": " + run.describe());
            } else {
                assertTrue(notIdempotent >= c.notIdempotentAtB(), c.id() + ": " + run.describe());
            }
        }
        assertTrue(log.stream().noneMatch(l -> l.contains("host=127.0.0.1")
                && (l.contains(" retry ") || l.contains(" give up "))), run.describe()); // " would retry " included
        assertTrue(log.stream().noneMatch(l -> l.contains("internal-error")), run.describe());
    }

    /** The calls the agent counts in all: one at A and those at B, per call. */
    private long expectedCalls() {
        return calls.stream().mapToLong(c -> 1 + c.callsAtB()).sum();
    }

    private ReportLine result(String client) {
        return run.results().stream().filter(r -> client.equals(r.get("id"))).findFirst()
                .orElseThrow(() -> new AssertionError("no RESULT for " + client + ": " + run.describe()));
    }

    private static String mbean(String client, String host, int port) {
        return "retry-agent:type=destination,client=" + client + ",scheme=http,host=" + host + ",port=" + port;
    }
}
