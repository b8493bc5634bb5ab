package dev.retryagent.it.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.Runs;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Beside the OpenTelemetry Java agent (fetched by the build), in either {@code -javaagent} order, with OkHttp 4 or 5
 * on the class path (and Reactor Netty 1.3 in each run): every client kind, sync and async, calls a server that answers 503, 503, then 200, and one that
 * closes the connection on the first request and answers the second with 200, each call inside a span of the
 * application's. The OpenTelemetry agent's OTLP JSON logging exporter writes the spans to the app's
 * stderr, where the test reads them and checks them against what the server received: the {@link Shape} each client
 * has in each order (docs/reference.md, "Tracing with OpenTelemetry"): a span per request with the request's own
 * status or error, or one span of the call; and one {@code retry-agent.retry} event per retry, with the resend count,
 * the wait and the cause.
 */
@Timeout(300)
class OpenTelemetryTracingIT {
    static final String POLICY = """
            version: 1
            defaults:
              backoff: { base: 10ms, cap: 20ms }
            """;

    /** What a retried call looks like in the trace. */
    enum Shape {
        /**
         * A client span per request, under the application's span, numbered by {@code http.request.resend_count},
         * each with its request's status and on the wire in its request's {@code traceparent}; the retry events on
         * the application's span.
         */
        PER_REQUEST,
        /**
         * One client span of the whole call, status 200, on the wire in every request; the retry events on that span
         * ({@code eventsOnCall}) or, where the client's instrumentation starts its span only once the call has
         * started, on the application's span.
         */
        WHOLE_CALL
    }

    /** A client kind's shape when OpenTelemetry's {@code -javaagent} comes first, and when the retry agent's does. */
    record Expected(String kind, Shape otelFirst, Shape retryAgentFirst, boolean eventsOnCall) {
        Shape shape(String first) {
            return first.equals("opentelemetry") ? otelFirst : retryAgentFirst;
        }
    }

    static final List<Expected> CLIENTS = List.of(
            new Expected("okhttp", Shape.PER_REQUEST, Shape.PER_REQUEST, false),
            new Expected("okhttp-async", Shape.PER_REQUEST, Shape.PER_REQUEST, false),
            new Expected("httpclient5", Shape.WHOLE_CALL, Shape.WHOLE_CALL, true),
            new Expected("httpclient5-async", Shape.WHOLE_CALL, Shape.WHOLE_CALL, false),
            new Expected("httpclient4", Shape.WHOLE_CALL, Shape.WHOLE_CALL, true),
            new Expected("httpclient4-async", Shape.PER_REQUEST, Shape.PER_REQUEST, false),
            new Expected("httpurlconnection", Shape.PER_REQUEST, Shape.WHOLE_CALL, true),
            new Expected("jdk-httpclient", Shape.WHOLE_CALL, Shape.WHOLE_CALL, true),
            new Expected("jdk-httpclient-async", Shape.PER_REQUEST, Shape.WHOLE_CALL, true),
            new Expected("reactor-netty", Shape.PER_REQUEST, Shape.PER_REQUEST, false),
            new Expected("reactor-netty-async", Shape.PER_REQUEST, Shape.PER_REQUEST, false));

    /**
     * What each client's server answers, one call each: its requests' statuses in order (0: the connection closed
     * once the request was read, no response), and the cause of each retry.
     */
    record Scenario(String name, List<Integer> statuses, List<String> causes) {
        Step[] steps() {
            return statuses.stream().map(s -> s == 0 ? Step.dropAfterRequest()
                    : Step.status(s).body(s == 200 ? "fine" : "busy")).toArray(Step[]::new);
        }
    }

    static final List<Scenario> SCENARIOS = List.of(
            new Scenario("busy", List.of(503, 503, 200), List.of("status:503", "status:503")),
            new Scenario("dropped", List.of(0, 200), List.of("failure:reset")));

    static final int SPAN_KIND_CLIENT = 3;

    @ParameterizedTest(name = "{0} first, {1}")
    @CsvSource({"opentelemetry, OKHTTP_5", "retry-agent, OKHTTP_5", "opentelemetry, OKHTTP_4", "retry-agent, OKHTTP_4"})
    void eachAttemptIsTraced(String first, ClientLibs okhttp) throws Exception {
        List<AutoCloseable> closer = new ArrayList<>();
        try {
            Map<String, ScriptedServer> servers = new LinkedHashMap<>();
            List<String> args = new ArrayList<>();
            for (Expected client : CLIENTS) {
                for (Scenario scenario : SCENARIOS) {
                    String id = client.kind() + "-" + scenario.name();
                    servers.put(id, Runs.open(closer, scenario.steps()));
                    args.add(id + "=" + client.kind() + "=" + servers.get(id).url("/traced/" + id));
                }
            }
            Path work = Files.createDirectories(ForkedApp.workRoot());
            Path policy = Files.writeString(Files.createTempFile(work, "otel-policy-", ".yaml"), POLICY);
            // The OpenTelemetry agent's log, where the exporter writes the spans, goes to a file of its own: read from
            // stderr, its long lines could be cut by whatever else the JVM writes there.
            Path spansFile = Files.createTempFile(work, "otel-agent-log-", ".txt");
            String ours = "-javaagent:" + ForkedApp.agentJarPath() + "=policy=" + policy;
            String otel = "-javaagent:" + Paths.get(System.getProperty("retry.agent.it.otel-agent.jar"));
            ForkedApp app = ForkedApp.of(TracedCallsApp.class).name("otel-" + first + "-first-" + okhttp)
                    .clientLibs(okhttp).classpath(ForkedApp.testClasses()).timeout(Duration.ofMinutes(3))
                    .jvmArg(first.equals("opentelemetry") ? otel : ours)
                    .jvmArg(first.equals("opentelemetry") ? ours : otel)
                    .sysProp("otel.traces.exporter", "logging-otlp").sysProp("otel.metrics.exporter", "none")
                    .sysProp("otel.logs.exporter", "none").sysProp("otel.bsp.schedule.delay", "50")
                    .sysProp("io.opentelemetry.javaagent.slf4j.simpleLogger.logFile", spansFile.toString())
                    .args(args);
            for (ClientLibs libs : List.of(ClientLibs.HTTPCLIENT5_NEWEST, ClientLibs.HTTPCLIENT4_NEWEST,
                    ClientLibs.REACTOR_NETTY_1_3, ClientLibs.OTEL_API)) {
                libs.jars().forEach(app::classpath);
            }
            ForkedApp.Result run = app.run().assertExitCode(0);
            List<JsonNode> spans = exportedSpans(Files.readString(spansFile));
            assertTrue(run.agentLog().stream().anyMatch(l -> l.startsWith("retry-agent tracing via=opentelemetry-agent")), run.describe());

            List<String> failures = new ArrayList<>();
            for (Expected client : CLIENTS) {
                for (Scenario scenario : SCENARIOS) {
                    String id = client.kind() + "-" + scenario.name();
                    try {
                        assertTraced(id, scenario, client.shape(first), client.eventsOnCall(), run, spans,
                                servers.get(id));
                    } catch (AssertionError e) {
                        failures.add(id + " (" + client.shape(first) + "): " + e.getMessage());
                    }
                }
            }
            assertEquals(List.of(), failures, "every client's trace shows its attempts");
            assertFalse(run.stderr().contains("internal-error"), run.describe());
        } finally {
            for (AutoCloseable c : closer) {
                c.close();
            }
        }
    }

    static void assertTraced(String id, Scenario scenario, Shape shape, boolean eventsOnCall, ForkedApp.Result run,
            List<JsonNode> spans, ScriptedServer server) {
        ReportLine result = Runs.result(run, id);
        assertEquals(200, result.getInt("status"), id + ": " + result + "\n" + run.describe());
        List<RecordedRequest> requests = server.requests();
        int n = scenario.statuses().size();
        assertEquals(n, requests.size(), "requests at the server");
        String trace = result.get("trace");
        String parent = result.get("parent");
        List<JsonNode> inTrace = spans.stream().filter(s -> trace.equals(s.path("traceId").asText())).toList();
        String shown = id + ":\n" + inTrace.stream().map(OpenTelemetryTracingIT::describe)
                .collect(Collectors.joining("\n"));
        System.out.println("TRACE " + run.runDir().getFileName() + " " + shown);
        List<JsonNode> clientSpans = inTrace.stream()
                .filter(s -> s.path("kind").asInt() == SPAN_KIND_CLIENT).toList();
        JsonNode appSpan = inTrace.stream().filter(s -> parent.equals(s.path("spanId").asText()))
                .findFirst().orElse(null);
        assertNotNull(appSpan, shown);
        List<String> sentUnder = requests.stream().map(r -> spanIdOf(r.header("traceparent"))).toList();
        JsonNode eventsOn = appSpan;
        if (shape == Shape.PER_REQUEST) {
            assertEquals(n, clientSpans.size(), "a client span per request\n" + shown);
            List<JsonNode> ordered = clientSpans.stream()
                    .sorted((a, b) -> Long.compare(attributeOr(a, "http.request.resend_count", 0),
                            attributeOr(b, "http.request.resend_count", 0))).toList();
            for (int i = 0; i < n; i++) {
                JsonNode span = ordered.get(i);
                assertEquals(parent, span.path("parentSpanId").asText(), "under the app's span\n" + shown);
                assertEquals(i, attributeOr(span, "http.request.resend_count", 0), shown);
                int status = scenario.statuses().get(i);
                if (status == 0) {
                    assertNotNull(attributeNode(span, "error.type"), "the attempt's error\n" + shown);
                    assertEquals(null, attributeNode(span, "http.response.status_code"), shown);
                } else {
                    assertEquals(status, attribute(span, "http.response.status_code"), shown);
                }
                assertEquals(span.path("spanId").asText(), sentUnder.get(i),
                        "request " + (i + 1) + " carried its own span's traceparent\n" + shown);
            }
        } else {
            assertEquals(1, clientSpans.size(), "one client span\n" + shown);
            JsonNode span = clientSpans.get(0);
            assertEquals(parent, span.path("parentSpanId").asText(), shown);
            assertEquals(200, attribute(span, "http.response.status_code"), shown);
            for (String spanId : sentUnder) {
                assertEquals(span.path("spanId").asText(), spanId, "each request carried the span\n" + shown);
            }
            if (eventsOnCall) {
                eventsOn = span;
            }
        }
        List<JsonNode> retries = events(eventsOn, "retry-agent.retry");
        assertEquals(LongStream.range(1, n).boxed().toList(),
                retries.stream().map(e -> attribute(e, "http.request.resend_count")).toList(),
                "one retry event per retry on " + eventsOn.path("name").asText() + "\n" + shown);
        assertEquals(scenario.causes(), retries.stream().map(e -> attributeText(e, "retry-agent.cause")).toList(),
                shown);
        for (JsonNode retry : retries) {
            assertTrue(attribute(retry, "retry-agent.wait_ms") <= 20, shown);
        }
        long all = inTrace.stream().mapToLong(span -> events(span, "retry-agent.retry").size()).sum();
        assertEquals(retries.size(), all, "no retry event elsewhere\n" + shown);
    }

    /** The events named {@code name} of {@code span}. */
    static List<JsonNode> events(JsonNode span, String name) {
        List<JsonNode> found = new ArrayList<>();
        for (JsonNode event : span.path("events")) {
            if (name.equals(event.path("name").asText())) {
                found.add(event);
            }
        }
        return found;
    }

    /** Every span in the OTLP JSON lines the logging exporter wrote. */
    static List<JsonNode> exportedSpans(String exported) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> spans = new ArrayList<>();
        for (String line : exported.lines().toList()) {
            int start = line.indexOf("{\"resource");
            if (start < 0) {
                continue;
            }
            JsonNode resourceSpans = json.readTree(line.substring(start));
            for (JsonNode scopeSpans : resourceSpans.path("scopeSpans")) {
                scopeSpans.path("spans").forEach(spans::add);
            }
        }
        assertFalse(spans.isEmpty(), "the exporter wrote spans:\n" + exported);
        return spans;
    }

    static String spanIdOf(String traceparent) {
        assertNotNull(traceparent, "the request carried a traceparent");
        return traceparent.split("-")[2];
    }

    static JsonNode attributeNode(JsonNode holder, String key) {
        for (JsonNode a : holder.path("attributes")) {
            if (key.equals(a.path("key").asText())) {
                return a.path("value");
            }
        }
        return null;
    }

    static long attribute(JsonNode holder, String key) {
        JsonNode value = attributeNode(holder, key);
        assertNotNull(value, key + " in " + holder);
        return value.path("intValue").asLong();
    }

    static long attributeOr(JsonNode holder, String key, long absent) {
        JsonNode value = attributeNode(holder, key);
        return value == null ? absent : value.path("intValue").asLong();
    }

    static String attributeText(JsonNode holder, String key) {
        JsonNode value = attributeNode(holder, key);
        assertNotNull(value, key + " in " + holder);
        return value.path("stringValue").asText();
    }

    static String describe(JsonNode span) {
        StringBuilder b = new StringBuilder("  span ").append(span.path("name").asText())
                .append(" kind=").append(span.path("kind").asInt())
                .append(" id=").append(span.path("spanId").asText())
                .append(" parent=").append(span.path("parentSpanId").asText());
        JsonNode resend = attributeNode(span, "http.request.resend_count");
        JsonNode status = attributeNode(span, "http.response.status_code");
        b.append(" resend_count=").append(resend == null ? "-" : resend.path("intValue").asText())
                .append(" status=").append(status == null ? "-" : status.path("intValue").asText());
        for (JsonNode event : span.path("events")) {
            b.append("\n    event ").append(event.path("name").asText()).append(' ').append(event.path("attributes"));
        }
        return b.toString();
    }
}
