package dev.retryagent.it.redirects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A followed redirect to another host is decided under the rule of the host the request actually went to, and
 * counted there, for every client in one forked JVM. Per client a pair of loopback servers: A at {@code 127.0.0.1}
 * answers every request with a 302 to B's URL spelled with the host name {@code localhost}; B answers 503, 503,
 * then 200. The defaults allow 2 attempts (A's rule), the rule for host {@code localhost} 4: a call decided under
 * A's rule ends with B's second 503, under B's it gets B's 200 after two retries.
 *
 * <p>Where each client follows the redirect (and so where its retry goes) differs: OkHttp follows it inside the
 * agent's attempt and a retry re-sends the original request to A, which redirects again; the JDK follows it inside
 * the attempt too but leaves the connection at B, where the retry goes; HttpClient 5 follows it outside the agent's
 * handler, so A's 302 and B's answers are two calls.
 */
class RedirectsIT {
    private static final String POLICY = """
            version: 1
            defaults:
              maxAttempts: 2
              backoff: { base: 10ms, cap: 50ms }
            rules:
              - match: { host: "localhost" }
                maxAttempts: 4
            """;

    /** The clients of the app, with the agent's name for each and how many requests A receives for one call. */
    private static final Map<String, String> CLIENT_NAMES = new LinkedHashMap<>();
    private static final Map<String, Integer> REQUESTS_AT_A = new HashMap<>();

    static {
        CLIENT_NAMES.put("okhttp", "okhttp");
        CLIENT_NAMES.put("okhttp-async", "okhttp");
        CLIENT_NAMES.put("jdk", "httpurlconnection");
        CLIENT_NAMES.put("hc5", "apache-httpclient5");
        CLIENT_NAMES.put("hc5-async", "apache-httpclient5");
        REQUESTS_AT_A.put("okhttp", 3); // each attempt is the original request, redirected again
        REQUESTS_AT_A.put("okhttp-async", 3);
        REQUESTS_AT_A.put("jdk", 1); // the connection stays at B: the retries go there
        REQUESTS_AT_A.put("hc5", 1); // the redirect is followed outside the agent: B's call is retried
        REQUESTS_AT_A.put("hc5-async", 1);
    }

    private static final Map<String, ScriptedServer> A = new LinkedHashMap<>();
    private static final Map<String, ScriptedServer> B = new LinkedHashMap<>();
    private static ForkedApp.Result run;

    @BeforeAll
    static void runTheApp() {
        List<String> args = new ArrayList<>();
        for (String client : CLIENT_NAMES.keySet()) {
            ScriptedServer b = ScriptedServer.start(Step.status(503), Step.status(503), Step.ok());
            ScriptedServer a = ScriptedServer.start(Step.status(302).header("Location", bUrl(b)));
            A.put(client, a);
            B.put(client, b);
            args.add("--call");
            args.add("id=" + client + ";client=" + client + ";url=" + a.url("/a"));
        }
        args.add("--expect-calls");
        args.add(String.valueOf(2 * CLIENT_NAMES.size())); // one at A, one at B, per client
        ForkedApp app = ForkedApp.of(RedirectsApp.class).name("redirects").clientLibs(ClientLibs.OKHTTP_5)
                .classpath(testClasses()).policy(POLICY).agentArg("log", "debug").args(args);
        ClientLibs.HTTPCLIENT5_NEWEST.jars().forEach(app::classpath);
        run = app.run().assertExitCode(0);
    }

    @AfterAll
    static void closeServers() {
        A.values().forEach(ScriptedServer::close);
        B.values().forEach(ScriptedServer::close);
    }

    private static String bUrl(ScriptedServer b) {
        return "http://localhost:" + b.port() + "/b";
    }

    @Test
    void everyClientGetsTheResponseTheRuleOfTheRedirectTargetAllows() {
        for (String client : CLIENT_NAMES.keySet()) {
            assertEquals("200", result(client).get("status"), client + ": " + run.describe());
        }
    }

    @Test
    void theRetriesWentWhereEachClientSendsThem() {
        for (String client : CLIENT_NAMES.keySet()) {
            List<RecordedRequest> atB = B.get(client).awaitRequests(3, Duration.ofSeconds(10));
            assertEquals(3, atB.size(), client);
            assertEquals(3, B.get(client).requestCount(), client);
            assertEquals(REQUESTS_AT_A.get(client), A.get(client).requestCount(), client);
            System.out.println("REDIRECTS client=" + client + " requestsAtA=" + A.get(client).requestCount()
                    + " requestsAtB=" + atB.size() + " markersAtB=" + atB.stream().map(r -> r.header("Retry-Attempt"))
                    .toList());
        }
    }

    @Test
    void theRetriesAreCountedAtTheRedirectTargetAndTheCallAtBoth() {
        Map<String, Map<String, String>> mbeans = new HashMap<>();
        for (ReportLine line : run.lines("MBEAN")) {
            mbeans.put(line.get("name"), line.values());
        }
        assertEquals(String.valueOf(2 * CLIENT_NAMES.size()), run.single("WAITED").get("totalCalls"), run.describe());
        for (Map.Entry<String, String> e : CLIENT_NAMES.entrySet()) {
            String client = e.getKey();
            String name = e.getValue();
            // okhttp-async shares okhttp's MBeans per destination, but each client pair has its own ports
            Map<String, String> a = mbeans.get(mbean(name, "127.0.0.1", A.get(client).port()));
            Map<String, String> b = mbeans.get(mbean(name, "localhost", B.get(client).port()));
            assertTrue(a != null && b != null, client + ": " + mbeans.keySet());
            assertEquals("1", a.get("calls"), client + " at A: " + a);
            assertEquals("0", a.get("retries"), client + " at A: " + a);
            assertEquals("1", b.get("calls"), client + " at B: " + b);
            assertEquals("2", b.get("retries"), client + " at B: " + b);
            assertEquals("1", b.get("successes_after_retry"), client + " at B: " + b);
        }
    }

    @Test
    void theDebugLinesNameTheRedirectTarget() {
        for (Map.Entry<String, String> e : CLIENT_NAMES.entrySet()) {
            String client = e.getKey();
            long retriesAtB = run.agentLog().stream().filter(l -> l.contains(" retry client=" + e.getValue())
                    && l.contains("host=localhost") && l.contains("path=/b")).count();
            assertTrue(retriesAtB >= 2, client + ": " + run.describe());
            assertTrue(run.agentLog().stream().noneMatch(l -> l.contains("host=127.0.0.1")
                    && (l.contains(" retry ") || l.contains(" give up "))), run.describe());
        }
        assertTrue(run.agentLog().stream().noneMatch(l -> l.contains("internal-error")), run.describe());
    }

    private static ReportLine result(String client) {
        return run.results().stream().filter(r -> client.equals(r.get("id"))).findFirst()
                .orElseThrow(() -> new AssertionError("no RESULT for " + client + ": " + run.describe()));
    }

    private static String mbean(String client, String host, int port) {
        return "retry-agent:type=destination,client=" + client + ",scheme=http,host=" + host + ",port=" + port;
    }

    static Path testClasses() {
        try {
            return Paths.get(RedirectsApp.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
