package dev.retryagent.it.failopen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import org.junit.jupiter.api.Tag;

import dev.retryagent.it.apps.BatchApp;
import dev.retryagent.it.apps.HttpUrlConnectionScenario;
import dev.retryagent.it.apps.OkHttpScenario;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fail open (docs/reference.md#fail-open): the agent is made to fail inside itself with its test-only switch
 * ({@code -Dretry.agent.test.failAt=...}, {@code InjectedFaults}), and every client still completes each of
 * {@value #CALLS} calls exactly once, as without the agent: the loopback server sees one request per call, the
 * application gets the server's 200 and body every time, and the log holds one {@code internal-error} line per
 * place that failed, never one per call.
 *
 * <p>Where the fault is injected, per run:
 * <ul>
 *   <li>{@code all}: at the entry of every hook handler ({@code Hooks}); the handler never runs, the hooked method
 *       runs untouched, so the client is exactly as without the agent (built without the agent's retry element,
 *       calls unmarked);</li>
 *   <li>{@code CLIENT.facts}: where the adapter reads the request into the engine's terms; the hooks run, the adapter
 *       gives up on the call and lets it go out as the client sends it (unmarked);</li>
 *   <li>{@code CLIENT.outcome}: where the adapter reads a response for the loop's decision; attempt 1 went out
 *       under the agent (marked {@code Retry-Attempt: 1}), the decision fails and the response goes back as it is;</li>
 *   <li>{@code CLIENT.classify}: where the adapter reads a failure for the loop's decision, against a server that
 *       drops every connection after reading the request: attempt 1 went out marked, the decision fails, and the
 *       application gets the client's own exception; the client's own resend stays off ({@code replace} worked for
 *       the call), so one request per call.</li>
 * </ul>
 * Otherwise the server answers 200, so one request per call is also what each client sends alone.
 */
@Tag(Jdks.MATRIX)
@Timeout(600)
class FailOpenIT {
    static final int CALLS = 20;
    private static final Pattern WHERE = Pattern.compile("internal-error where=(\\S+)");

    /** How one client's calls are made, and what its application prints. */
    record Client(String name, Class<?> main, ClientLibs libs, Function<String, List<String>> args,
                  Map<String, Set<String>> expectedPlaces) {
        @Override
        public String toString() {
            return name;
        }
    }

    record Run(Client client, String fault, Jdks.Jdk jdk) {
        @Override
        public String toString() {
            return client.name + " failAt=" + fault + " " + jdk;
        }
    }

    private static final String HC5 = "apache-httpclient5";
    private static final String HC4 = "apache-httpclient4";

    static Stream<Run> runs() {
        Map<String, Set<String>> hc5Classic = places(HC5,
                Set.of("hook:" + HC5 + ".classic-build", "hook:" + HC5 + ".retry-execute",
                        "hook:" + HC5 + ".protocol-execute"),
                Set.of(HC5 + ".classic", "hook:" + HC5 + ".retry-execute"), LOOP);
        List<Client> clients = List.of(
                new Client("okhttp-sync", OkHttpScenario.class, ClientLibs.OKHTTP_5,
                        url -> List.of("--url", url, "--mode", "sync", "--repeat", "" + CALLS),
                        places("okhttp", Set.of("hook:okhttp.client-init", "hook:okhttp.new-call",
                                "hook:okhttp.follow-up", "hook:okhttp.write-request"),
                                Set.of("okhttp.interceptor"), LOOP)),
                new Client("okhttp-async", OkHttpScenario.class, ClientLibs.OKHTTP_5,
                        url -> List.of("--url", url, "--mode", "async", "--repeat", "" + CALLS),
                        places("okhttp", Set.of("hook:okhttp.client-init", "hook:okhttp.new-call",
                                "hook:okhttp.follow-up", "hook:okhttp.enqueue", "hook:okhttp.write-request"),
                                Set.of("okhttp.enqueue"), ASYNC_LOOP)),
                httpClient5("classic", "default", hc5Classic),
                httpClient5("async", "default", places(HC5,
                        Set.of("hook:" + HC5 + ".async-build", "hook:" + HC5 + ".async-retry-execute",
                                "hook:" + HC5 + ".async-protocol-execute"),
                        Set.of(HC5 + ".async", "hook:" + HC5 + ".async-retry-execute"), ASYNC_LOOP)),
                // the fluent API runs on a classic client of its own
                httpClient5("fluent", "default", hc5Classic),
                httpClient5("classic", "minimal", places(HC5, Set.of("hook:" + HC5 + ".minimal-execute"),
                        Set.of(HC5 + ".minimal"), LOOP)),
                httpClient4("classic", "default", places(HC4,
                        Set.of("hook:" + HC4 + ".retry-execute", "hook:" + HC4 + ".protocol-execute",
                                "hook:" + HC4 + ".request-execute"),
                        Set.of(HC4 + ".classic", "hook:" + HC4 + ".retry-execute"), LOOP)),
                httpClient4("classic", "minimal", places(HC4,
                        Set.of("hook:" + HC4 + ".minimal-execute", "hook:" + HC4 + ".request-execute"),
                        Set.of(HC4 + ".classic"), LOOP)),
                httpClient4("async", "default", places(HC4, Set.of("hook:" + HC4 + ".async-execute"),
                        Set.of(HC4 + ".async"), ASYNC_LOOP)),
                new Client("httpurlconnection", HttpUrlConnectionScenario.class, ClientLibs.NONE,
                        url -> List.of("--url", url, "--repeat", "" + CALLS),
                        places("httpurlconnection", Set.of("hook:httpurlconnection.get-input-stream",
                                "hook:httpurlconnection.write-requests"), Set.of("httpurlconnection.facts"), LOOP)),
                jdkHttpClient("sync"),
                jdkHttpClient("async"));
        // Every client at every place on the test JDK; on the other JDKs every client with every hook failing, and the
        // JDK's own clients (whose hooks sit in the JDK's classes) at every place.
        List<Run> runs = new ArrayList<>();
        Jdks.Jdk own = Jdks.testJdk();
        for (Client client : clients) {
            for (String fault : new TreeSet<>(client.expectedPlaces.keySet())) {
                runs.add(new Run(client, fault, own));
            }
        }
        for (Jdks.Jdk jdk : Jdks.besides(Jdks.ALL)) {
            for (Client client : clients) {
                boolean jdkClient = client.libs == ClientLibs.NONE;
                if (client.name.startsWith(JDK + "-") && !jdk.hasJavaNetHttp()) {
                    continue;
                }
                for (String fault : new TreeSet<>(client.expectedPlaces.keySet())) {
                    if (jdkClient || fault.equals("all")) {
                        runs.add(new Run(client, fault, jdk));
                    }
                }
            }
        }
        return runs.stream();
    }

    private static final String JDK = "jdk-httpclient";

    /** java.net.http: both send and sendAsync run in the async loop (a send's waits on the caller's thread). */
    private static Client jdkHttpClient(String mode) {
        return new Client(JDK + "-" + mode, BatchApp.class, ClientLibs.NONE, url -> {
            List<String> args = new ArrayList<>(List.of(JDK, "--sequential"));
            for (int i = 0; i < CALLS; i++) {
                args.addAll(List.of("--call", "id=c" + i + ";url=" + url + ";mode=" + mode + ";client=h1"));
            }
            return args;
        // the application's warm-up makes a send and a sendAsync before its calls, whatever their mode (the
        // two-argument sendAsync: its hook fails, and then that of the three-argument one it calls); every exchange
        // passes the hook where an attempt of the agent's learns its exchange (redirects)
        }, places(JDK, Set.of("hook:" + JDK + ".send", "hook:" + JDK + ".send-async-2",
                "hook:" + JDK + ".send-async", "hook:" + JDK + ".exchange"), Set.of(JDK + ".facts"), ASYNC_LOOP));
    }

    private static final String LOOP = "retry-loop.decide";
    private static final String ASYNC_LOOP = "async-retry-loop.decide";

    /**
     * Where {@code client}'s adapter is made to fail and the places its log then names: every hook ({@code all}:
     * {@code hooks}), its reading of the request ({@code .facts}: {@code facts}), of a response and of a failure for
     * the loop's decision ({@code .outcome}, {@code .classify}: {@code loop}, the decision of the sync or the async
     * loop).
     */
    private static Map<String, Set<String>> places(String client, Set<String> hooks, Set<String> facts, String loop) {
        return Map.of("all", hooks, client + ".facts", facts, client + ".outcome", Set.of(loop),
                client + ".classify", Set.of(loop));
    }

    private static Client httpClient5(String api, String kind, Map<String, Set<String>> expected) {
        return new Client("httpclient5-" + api + "-" + kind, BatchApp.class, ClientLibs.HTTPCLIENT5_NEWEST,
                url -> List.of("httpclient5", "--sequential", "--call",
                        "id=calls;url=" + url + ";api=" + api + ";client=" + kind + ";repeat=" + CALLS),
                expected);
    }

    private static Client httpClient4(String api, String kind, Map<String, Set<String>> expected) {
        return new Client("httpclient4-" + api + "-" + kind, BatchApp.class, ClientLibs.HTTPCLIENT4_NEWEST,
                url -> List.of("httpclient4", "--sequential", "--call",
                        "id=calls;url=" + url + ";api=" + api + ";client=" + kind + ";repeat=" + CALLS),
                expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("runs")
    void everyCallCompletesOnceAndEachFailureIsLoggedOnce(Run run) {
        Client client = run.client;
        // A failure is what the classify step reads: the server drops each connection after reading the request.
        boolean failing = run.fault.endsWith(".classify");
        try (ScriptedServer server = ScriptedServer.start(failing ? Step.dropAfterRequest() : Step.ok().body("fine"))) {
            ForkedApp.Result result = failingAt(run.fault, client.main, client.libs,
                    "failopen-" + client.name + "-" + run.fault + "-" + run.jdk)
                    .classpath(codeSource(client.main))
                    .java(run.jdk.java())
                    .args(client.args.apply(server.url("/items")))
                    .run()
                    .assertExitCode(0);

            // Exactly one request per call reached the server (no retry, no resend, nothing lost).
            assertEquals(CALLS, server.requestCount(), "requests the server saw\n" + result.stderr());

            // The application got the normal response every time (or the client's own failure), never an exception
            // of the agent's.
            assertAppSaw(client, result, failing);

            // The fault hit where it was aimed: ahead of the agent's part of the call (no marker), or in the decision
            // after attempt 1, which went out marked as the agent marks it.
            String expectedMarker = run.fault.endsWith(".outcome") || failing ? "1" : null;
            for (RecordedRequest request : server.requests()) {
                assertEquals(expectedMarker, request.header("Retry-Attempt"), "marker of " + request.target());
            }

            // One internal-error line per place that failed, not per call.
            Map<String, Integer> lines = new TreeMap<>();
            for (String line : result.agentLog()) {
                Matcher m = WHERE.matcher(line);
                if (m.find()) {
                    lines.merge(m.group(1), 1, Integer::sum);
                }
            }
            Set<String> expected = client.expectedPlaces.get(run.fault);
            assertEquals(new TreeSet<>(expected), lines.keySet(), "places logged\n" + String.join("\n", result.agentLog()));
            lines.forEach((where, count) -> assertEquals(1, count, "lines for " + where));
            assertTrue(result.agentLog().stream().anyMatch(l -> l.contains("test-faults at=")),
                    "the switch announces itself at start-up");
            System.out.println("FAIL-OPEN client=" + client.name + " failAt=" + run.fault + " calls=" + CALLS
                    + " requests=" + server.requestCount() + " internal-errors=" + lines);
        }
    }

    static Stream<Arguments> discards() {
        return Stream.of(
                Arguments.of("okhttp-sync", OkHttpScenario.class, ClientLibs.OKHTTP_5, "okhttp.discard",
                        List.of("--mode", "sync", "--repeat", "" + CALLS), "retry-loop.discard"),
                Arguments.of("okhttp-async", OkHttpScenario.class, ClientLibs.OKHTTP_5, "okhttp.discard",
                        List.of("--mode", "async", "--repeat", "" + CALLS), "async-retry-loop.discard"),
                Arguments.of("httpclient5-classic-default", BatchApp.class, ClientLibs.HTTPCLIENT5_NEWEST,
                        HC5 + ".discard", List.of("httpclient5", "api=classic;client=default"), "retry-loop.discard"),
                Arguments.of("httpclient5-classic-minimal", BatchApp.class, ClientLibs.HTTPCLIENT5_NEWEST,
                        HC5 + ".discard", List.of("httpclient5", "api=classic;client=minimal"), "retry-loop.discard"),
                Arguments.of("httpclient4-classic-default", BatchApp.class, ClientLibs.HTTPCLIENT4_NEWEST,
                        HC4 + ".discard", List.of("httpclient4", "api=classic;client=default"), "retry-loop.discard"),
                Arguments.of("httpclient4-classic-minimal", BatchApp.class, ClientLibs.HTTPCLIENT4_NEWEST,
                        HC4 + ".discard", List.of("httpclient4", "api=classic;client=minimal"), "retry-loop.discard"),
                Arguments.of("httpurlconnection", HttpUrlConnectionScenario.class, ClientLibs.NONE,
                        "httpurlconnection.discard", List.of("--repeat", "" + CALLS), "retry-loop.discard"));
    }

    /**
     * The one place where the agent goes on after an error of its own: releasing a response the caller will never
     * see, before a retry. The retry goes ahead (the caller would otherwise get a response the loop meant to drop),
     * each call ends with the server's 200, and nothing is left leased: 20 calls, each 503 then 200, through a
     * client whose pool holds 5 connections per route (HttpClient 5) would wait for a lease from the sixth call on if
     * a failed release kept its connection.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("discards")
    void aFailedReleaseLetsTheRetryGoAheadAndKeepsNothing(String name, Class<?> main, ClientLibs libs, String fault,
                                                          List<String> args, String place) {
        Step[] steps = new Step[2 * CALLS];
        for (int i = 0; i < CALLS; i++) {
            steps[2 * i] = Step.status(503).body("busy");
            steps[2 * i + 1] = Step.ok().body("fine");
        }
        try (ScriptedServer server = ScriptedServer.start(steps)) {
            String url = server.url("/items");
            List<String> appArgs = main == BatchApp.class
                    ? List.of(args.get(0), "--sequential", "--call",
                            "id=calls;url=" + url + ";" + args.get(1) + ";repeat=" + CALLS)
                    : Stream.concat(Stream.of("--url", url), args.stream()).toList();
            ForkedApp.Result result = failingAt(fault, main, libs, "failopen-discard-" + name).args(appArgs).run()
                    .assertExitCode(0);
            assertEquals(2 * CALLS, server.requestCount(), result.stderr());
            List<RecordedRequest> seen = server.requests();
            for (int i = 0; i < seen.size(); i++) {
                assertEquals(i % 2 == 0 ? "1" : "2", seen.get(i).header("Retry-Attempt"), "request " + i);
            }
            Client asClient = new Client(name, main, libs, u -> List.of(), Map.of());
            assertAppSaw(asClient, result, false);
            Map<String, Integer> lines = new TreeMap<>();
            for (String line : result.agentLog()) {
                Matcher m = WHERE.matcher(line);
                if (m.find()) {
                    lines.merge(m.group(1), 1, Integer::sum);
                }
            }
            assertEquals(Map.of(place, 1), lines, String.join("\n", result.agentLog()));
            System.out.println("FAIL-OPEN-DISCARD client=" + name + " failAt=" + fault + " calls=" + CALLS
                    + " requests=" + server.requestCount() + " internal-errors=" + lines);
        }
    }

    /** A client whose own hidden retry the agent switches off under {@code replace}, call by call. */
    record OwnRetry(String name, Class<?> main, ClientLibs libs, String fault, Step answer,
                    Function<String, List<String>> args, int expectedRequests, boolean endsInFailure) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<OwnRetry> ownRetries() {
        return Stream.of(
                // DefaultHttpRequestRetryStrategy: a 503 once more, after 1 s.
                new OwnRetry("httpclient5-classic", BatchApp.class, ClientLibs.HTTPCLIENT5_NEWEST,
                        HC5 + ".facts", Step.status(503),
                        url -> List.of("httpclient5", "--call", "id=c;url=" + url + ";api=classic;client=default"), 2, false),
                new OwnRetry("httpclient5-async", BatchApp.class, ClientLibs.HTTPCLIENT5_NEWEST,
                        HC5 + ".facts", Step.status(503),
                        url -> List.of("httpclient5", "--call", "id=c;url=" + url + ";api=async;client=default"), 2, false),
                // DefaultHttpRequestRetryHandler: a GET whose connection closed before a response, 3 times more.
                new OwnRetry("httpclient4-classic", BatchApp.class, ClientLibs.HTTPCLIENT4_NEWEST,
                        HC4 + ".facts", Step.dropAfterRequest(),
                        url -> List.of("httpclient4", "--call", "id=c;url=" + url + ";api=classic;client=default"), 4, true),
                // The JDK resends a buffered POST whose connection closed before a status line.
                new OwnRetry("httpurlconnection", HttpUrlConnectionScenario.class, ClientLibs.NONE,
                        "httpurlconnection.facts", Step.dropAfterRequest(),
                        url -> List.of("--url", url, "--method", "POST", "--body", "once"), 2, true));
    }

    /**
     * {@code builtInRetries: replace} switches the client's own retry off per call (HttpClient 5's retry element is
     * skipped by a hook that asks the policy for each call; the JDK's resend is switched off only for the attempts the
     * agent's loop makes). When the agent fails for a call, that switch fails open with it and the client retries as
     * it does alone: the requests the server sees are the client's own ({@code replace} working: 3 marked for the 503,
     * 1 for the POST), unmarked. OkHttp's resend after a failure is {@link #okHttpResendsAsAloneWhenTheAgentFailsForACall}.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("ownRetries")
    void theClientsOwnRetryComesBackWhenTheAgentFailsForACall(OwnRetry client) {
        try (ScriptedServer server = ScriptedServer.start(client.answer)) {
            ForkedApp.Result result = failingAt(client.fault, client.main, client.libs, "failopen-own-" + client.name)
                    .args(client.args.apply(server.url("/own")))
                    .run()
                    .assertExitCode(0);
            List<RecordedRequest> seen = server.awaitRequests(client.expectedRequests, Duration.ofSeconds(10));
            assertEquals(client.expectedRequests, server.requestCount(), result.stdout() + result.stderr());
            for (RecordedRequest request : seen) {
                assertEquals(null, request.header("Retry-Attempt"), "the client's own attempts carry no marker");
            }
            ReportLine line = result.result();
            if (client.endsInFailure) {
                assertTrue(line.has("failure"), "the client's own failure: " + line);
            } else {
                assertEquals(503, line.getInt("status"), line.toString());
            }
            System.out.println("FAIL-OPEN-OWN-RETRY client=" + client.name + " failAt=" + client.fault
                    + " requests=" + server.requestCount() + " result=" + line);
        }
    }

    /**
     * OkHttp's resend after a failure is answered per call under {@code replace} (its {@code recover}, hooked), so a
     * call the agent fails open on (fault in {@code okhttp.facts}, which the interceptor and that hook both read) is
     * resent as OkHttp alone does: a GET whose reused keep-alive connection the server drops after reading the
     * request is resent on a new connection and succeeds.
     */
    @Test
    void okHttpResendsAsAloneWhenTheAgentFailsForACall() {
        int alone = staleConnectionRequests(false);
        int failedOpen = staleConnectionRequests(true);
        System.out.println("FAIL-OPEN-OKHTTP-STALE alone=" + alone + " failedOpen=" + failedOpen);
        assertEquals(3, alone, "OkHttp alone: the dropped request resent on a new connection");
        assertEquals(3, failedOpen, "agent failed open: OkHttp's own resend, as alone");
    }

    /** Two GETs over one keep-alive connection, the second dropped after it was read: requests the server saw. */
    private static int staleConnectionRequests(boolean withFailingAgent) {
        try (ScriptedServer server = ScriptedServer.start(Step.ok().body("first"), Step.dropAfterRequest(),
                Step.ok().body("third"))) {
            ForkedApp app = ForkedApp.of(OkHttpScenario.class)
                    .name("failopen-okhttp-stale-" + (withFailingAgent ? "agent" : "alone"))
                    .clientLibs(ClientLibs.OKHTTP_5)
                    .args("--url", server.url("/stale"), "--repeat", "2");
            if (withFailingAgent) {
                app.withAgent().sysProp("retry.agent.test.failAt", "okhttp.facts");
            }
            ForkedApp.Result result = app.timeout(Duration.ofSeconds(60)).run().assertExitCode(0);
            List<ReportLine> results = result.results();
            assertEquals(200, results.get(0).getInt("status"), result.stdout());
            assertEquals("third", results.get(1).get("body"), result.stdout());
            if (withFailingAgent) {
                assertEquals(Set.of("okhttp.interceptor", "hook:okhttp.recover"), result.agentLog().stream()
                        .map(WHERE::matcher).filter(Matcher::find).map(m -> m.group(1)).collect(Collectors.toSet()));
            }
            return server.requestCount();
        }
    }

    /** {@code main} with {@code libs} under the agent, whose adapter fails at {@code fault}; up to 2 min. */
    private static ForkedApp failingAt(String fault, Class<?> main, ClientLibs libs, String name) {
        return ForkedApp.of(main).name(name).clientLibs(libs).withAgent().sysProp("retry.agent.test.failAt", fault)
                .timeout(Duration.ofSeconds(120));
    }

    /** Where {@code main} was loaded from: target/classes, or target/test-classes for a test's own application. */
    private static java.nio.file.Path codeSource(Class<?> main) {
        try {
            return java.nio.file.Paths.get(main.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void assertAppSaw(Client client, ForkedApp.Result result, boolean failing) {
        List<ReportLine> results = result.results();
        if (client.name.startsWith("httpclient5-") || client.name.startsWith("httpclient4-")) {
            // the Apache clients' calls are one spec repeated, summed up in one RESULT line
            ReportLine line = result.result();
            assertEquals(CALLS, line.getInt("calls"), line.toString());
            assertEquals(failing ? 0 : CALLS, line.getInt("ok"), line.toString());
            assertEquals(failing ? CALLS : 0, line.getInt("failures"), line.toString());
            if (failing) {
                // HttpCore's own exception for a connection closed before a response (classic: NoHttpResponseException;
                // async: ConnectionClosedException, in the future's ExecutionException).
                assertTrue(line.get("firstFailure").matches("(java.util.concurrent.ExecutionException: )?"
                        + "org.apache.(hc.core5.)?http.(NoHttpResponseException|ConnectionClosedException):.*"), line.toString());
            }
            return;
        }
        assertEquals(CALLS, results.size(), result.stdout());
        for (ReportLine line : results) {
            if (failing) {
                // The client's own exception for a connection closed before a response.
                assertTrue(line.get("failure").startsWith("java.io.") || line.get("failure").startsWith("java.net."),
                        line.toString());
            } else {
                assertEquals(200, line.getInt("status"), line.toString());
                assertEquals("fine", line.get("body"), line.toString());
            }
        }
        if (client.name.equals("okhttp-async")) {
            List<ReportLine> callbacks = result.lines("CALLBACKS");
            assertEquals(CALLS, callbacks.size(), result.stdout());
            for (ReportLine line : callbacks) {
                assertEquals(1, line.getInt("count"), "one callback per call: " + line);
            }
        }
    }
}
