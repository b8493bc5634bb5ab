package dev.retryagent.it.onelayer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.apps.ForwardingService;
import dev.retryagent.it.apps.HttpUrlConnectionScenario;
import dev.retryagent.it.apps.OkHttpScenario;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Policies;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/reference.md#one-retry-layer across services: client -> gateway -> service -> backend, four JVMs, the first
 * three with the agent ({@code maxAttempts: 3}), the gateway and the service plain forwarders of every incoming header
 * ({@link ForwardingService}), the clients mixed across the hops (one chain with a marker header of its own name);
 * the backend always answers 503. With the marker, the gateway and the service see it on the request they forward
 * and send it once: the backend sees 3 requests.
 * With the marker disabled ({@code marker: { enabled: false }}), every layer retries: 3 x 3 x 3 = 27. Each run
 * prints one {@code CHAIN} line with the requests each hop received. A chain of five hops uses every client once.
 */
@Timeout(180)
class ServiceChainIT {
    private static final Duration START = Duration.ofSeconds(30);

    static Stream<Arguments> chains() {
        return Stream.of(
                Arguments.of("okhttp", "httpclient5", "httpurlconnection", "Retry-Attempt"),
                Arguments.of("okhttp", "httpclient5", "httpurlconnection", null),
                Arguments.of("httpurlconnection", "okhttp", "httpclient5", "X-Retry-Layer"),
                Arguments.of("okhttp", "httpclient4", "httpurlconnection", "Retry-Attempt"));
    }

    private static ClientLibs libs(String client) {
        return switch (client) {
            case "okhttp" -> ClientLibs.OKHTTP_5;
            case "httpclient5" -> ClientLibs.HTTPCLIENT5_NEWEST;
            case "httpclient4" -> ClientLibs.HTTPCLIENT4_NEWEST;
            default -> ClientLibs.NONE;
        };
    }

    /** A forwarder JVM with the agent, listening: its base URL is read from its LISTENING line. */
    private static ForkedApp.Running forwarder(String name, String client, String upstream, String policy) {
        ForkedApp.Running running = ForkedApp.of(ForwardingService.class).name("chain-" + name + "-" + client)
                .clientLibs(libs(client)).policy(policy).agentArg("log", "debug")
                .args("--client", client, "--upstream", upstream).start();
        running.awaitStdoutLine(l -> l.startsWith("LISTENING "), START);
        return running;
    }

    private static String baseUrl(ForkedApp.Running running) {
        String line = running.awaitStdoutLine(l -> l.startsWith("LISTENING "), START);
        return "http://127.0.0.1:" + ReportLine.parse(line).getInt("port");
    }

    /** @param header the marker header the policy names, or null for {@code marker: { enabled: false }} */
    @ParameterizedTest(name = "{0} > {1} > {2}, marker {3}")
    @MethodSource("chains")
    void theBackendSeesOneLayerOfRetries(String clientKind, String gatewayKind, String serviceKind, String header) {
        boolean marker = header != null;
        String policy = Policies.threeAttempts(marker ? "marker: { header: " + header + " }"
                : "marker: { enabled: false }");
        try (ScriptedServer backend = ScriptedServer.start(Step.status(503).body("busy"))) {
            ForkedApp.Result service;
            ForkedApp.Result gateway;
            ForkedApp.Result client;
            try (ForkedApp.Running serviceJvm = forwarder("service", serviceKind, backend.url(""), policy);
                 ForkedApp.Running gatewayJvm = forwarder("gateway", gatewayKind, baseUrl(serviceJvm), policy)) {
                ForkedApp app = ForkedApp.of(clientKind.equals("okhttp") ? OkHttpScenario.class
                                : HttpUrlConnectionScenario.class).name("chain-client-" + clientKind)
                        .clientLibs(libs(clientKind)).policy(policy).agentArg("log", "debug")
                        .args("--url", baseUrl(gatewayJvm) + "/orders?id=7");
                client = app.run().assertExitCode(0);
                gateway = gatewayJvm.await();
                service = serviceJvm.await();
            }
            assertEquals(503, client.result().getInt("status"), client.describe());
            assertEquals("busy", client.result().get("body"), "the backend's answer came all the way back");
            int atGateway = gateway.lines("FORWARDED").size();
            int atService = service.lines("FORWARDED").size();
            int atBackend = backend.requestCount();
            System.out.println("CHAIN " + clientKind + ">" + gatewayKind + ">" + serviceKind + " marker="
                    + (marker ? header : "off") + " client->gateway=" + atGateway + " gateway->service=" + atService
                    + " service->backend=" + atBackend + " markers[backend]=" + markers(backend, header));
            for (ForkedApp.Result run : List.of(client, gateway, service)) {
                assertFalse(run.stderr().contains("internal-error"), run.describe());
            }
            if (marker) {
                assertEquals(3, atGateway, gateway.describe());
                assertEquals(3, atService, service.describe());
                assertTrue(atBackend <= 3, "one layer of retries: " + backend.requests());
                assertEquals(3, atBackend);
                assertEquals(List.of("1", "2", "3"), markers(backend, header), "the client's marker, forwarded unchanged");
                for (ForkedApp.Result hop : List.of(gateway, service)) {
                    assertEquals(3, hop.agentLog().stream().filter(l -> l.contains("reason=nested")).count(),
                            hop.describe());
                }
            } else {
                assertEquals(3, atGateway, gateway.describe());
                assertEquals(9, atService, service.describe());
                assertEquals(27, atBackend, "every layer retries without the marker");
                assertEquals(List.of("null"), markers(backend, "Retry-Attempt").stream().distinct().toList());
            }
        }
    }

    /**
     * A hop that will not retry ({@code maxAttempts: 1}) sends no marker, so the hop below it retries in its place:
     * exactly one layer retries wherever one may. With the client retrying, the backend sees the client's 3 attempts
     * through the gateway that sends each once; with the client and the gateway both at one attempt, it sees the 3
     * attempts of the service, the last hop.
     */
    @ParameterizedTest(name = "maxAttempts client {0}, gateway {1}, service {2}")
    @MethodSource("hopAttempts")
    void aHopThatWillNotRetryLeavesTheRetriesToTheHopBelow(int clientAttempts, int gatewayAttempts,
                                                          int serviceAttempts) {
        try (ScriptedServer backend = ScriptedServer.start(Step.status(503).body("busy"))) {
            ForkedApp.Result client;
            ForkedApp.Result gateway;
            ForkedApp.Result service;
            try (ForkedApp.Running serviceJvm = forwarder("service", "okhttp", backend.url(""),
                    Policies.attempts(serviceAttempts, ""));
                 ForkedApp.Running gatewayJvm = forwarder("gateway", "httpclient5", baseUrl(serviceJvm),
                         Policies.attempts(gatewayAttempts, ""))) {
                client = ForkedApp.of(HttpUrlConnectionScenario.class).name("chain-client-attempts-" + clientAttempts)
                        .policy(Policies.attempts(clientAttempts, "")).agentArg("log", "debug")
                        .args("--url", baseUrl(gatewayJvm) + "/orders?id=7").run().assertExitCode(0);
                gateway = gatewayJvm.await();
                service = serviceJvm.await();
            }
            assertEquals(503, client.result().getInt("status"), client.describe());
            int atGateway = gateway.lines("FORWARDED").size();
            int atService = service.lines("FORWARDED").size();
            List<String> markers = markers(backend, "Retry-Attempt");
            System.out.println("CHAIN maxAttempts=" + clientAttempts + "," + gatewayAttempts + "," + serviceAttempts
                    + " client->gateway=" + atGateway + " gateway->service=" + atService
                    + " service->backend=" + backend.requestCount() + " markers[backend]=" + markers);
            assertEquals(3, backend.requestCount(), "one layer retries: " + backend.requests());
            assertEquals(List.of("1", "2", "3"), markers);
            if (clientAttempts > 1) {
                assertEquals(3, atGateway, gateway.describe());
                assertEquals(3, atService, service.describe());
                assertEquals(3, service.agentLog().stream().filter(l -> l.contains("reason=nested")).count(),
                        service.describe());
            } else {
                assertEquals(1, atGateway, "the client sends once: " + gateway.describe());
                assertEquals(1, atService, "the gateway sends once, unmarked: " + service.describe());
                assertEquals(2, service.agentLog().stream().filter(l -> l.contains(" retry ")).count(),
                        "the service, the last hop, retries: " + service.describe());
            }
        }
    }

    /**
     * Every client once: the JDK's HttpURLConnection calls a chain of four forwarders (OkHttp, HttpClient 5,
     * HttpClient 4, the JDK's java.net.http), the last of which calls the backend, which always answers 503; every
     * JVM has the agent with {@code maxAttempts: 3}. With the marker, whichever client sends it, each forwarder sees
     * it on the incoming request and sends its own call once: the backend sees 3 requests. Without it, every hop
     * retries: 3^5 = 243.
     */
    @ParameterizedTest(name = "five clients, marker {0}")
    @MethodSource("markerOnOff")
    void fiveHopsOfFiveClientsRetryOnce(boolean marker) {
        String policy = Policies.threeAttempts(marker ? "" : "marker: { enabled: false }");
        List<String> hops = List.of("okhttp", "httpclient5", "httpclient4", "jdk-httpclient");
        try (ScriptedServer backend = ScriptedServer.start(Step.status(503).body("busy"))) {
            List<ForkedApp.Running> forwarders = new ArrayList<>();
            List<ForkedApp.Result> results = new ArrayList<>();
            ForkedApp.Result client;
            try {
                String upstream = backend.url("");
                for (int i = hops.size() - 1; i >= 0; i--) {
                    ForkedApp.Running hop = forwarder("hop" + (i + 2), hops.get(i), upstream, policy);
                    forwarders.add(0, hop);
                    upstream = baseUrl(hop);
                }
                client = ForkedApp.of(HttpUrlConnectionScenario.class).name("chain5-client-marker-" + marker)
                        .policy(policy).agentArg("log", "debug")
                        .args("--url", upstream + "/orders?id=7").run().assertExitCode(0);
                for (ForkedApp.Running hop : forwarders) {
                    results.add(hop.await());
                }
            } finally {
                forwarders.forEach(ForkedApp.Running::close);
            }
            assertEquals(503, client.result().getInt("status"), client.describe());
            assertEquals("busy", client.result().get("body"), "the backend's answer came all the way back");
            List<Integer> received = results.stream().map(r -> r.lines("FORWARDED").size()).toList();
            System.out.println("CHAIN5 httpurlconnection>" + String.join(">", hops) + " marker=" + (marker ? "on" : "off")
                    + " requests at hops 2-5=" + received + " backend=" + backend.requestCount());
            for (ForkedApp.Result run : results) {
                assertFalse(run.stderr().contains("internal-error"), run.describe());
            }
            if (marker) {
                assertEquals(List.of(3, 3, 3, 3), received, "each hop forwards each attempt once");
                assertEquals(3, backend.requestCount(), "one layer of retries: " + backend.requests());
                assertEquals(List.of("1", "2", "3"), markers(backend, "Retry-Attempt"));
            } else {
                assertEquals(List.of(3, 9, 27, 81), received, "every hop retries without the marker");
                assertEquals(243, backend.requestCount(), "3^5 without the marker");
            }
        }
    }

    static Stream<Boolean> markerOnOff() {
        return Stream.of(true, false);
    }

    static Stream<Arguments> hopAttempts() {
        return Stream.of(Arguments.of(3, 1, 3), Arguments.of(1, 1, 3));
    }

    private static List<String> markers(ScriptedServer server, String header) {
        return server.requests().stream().map(r -> String.valueOf(header == null ? null : r.header(header))).toList();
    }
}
