package dev.retryagent.it.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import org.junit.jupiter.api.Tag;

import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.JmxExporter;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The JMX counters of a forked JVM that runs the built agent equal what the loopback servers counted: read by the
 * application from its own platform MBeanServer, and scraped from the Prometheus JMX exporter agent (1.0.1, default
 * rules) running beside ours.
 *
 * <p>One application makes 13 calls in order, with OkHttp and HttpURLConnection, to four servers: {@code flaky}
 * (503 then 200: each call succeeds on its retry), {@code down} (always 503: GETs give up after 3 attempts, POSTs
 * without key are not retried), {@code broke} (always 503, a rule with a zero retry budget: every retry refused)
 * and {@code watched} (always 503, a rule in mode observe: would retry). The expected values are derived from the
 * requests each server recorded: attempts are the requests, retries those whose marker is 2 or more.
 */
@Tag(Jdks.MATRIX)
@Timeout(120)
class MetricsIT {
    private static final String OKHTTP = "okhttp";
    private static final String JDK = "httpurlconnection";

    private final List<AutoCloseable> closer = new ArrayList<>();
    private ScriptedServer flaky;
    private ScriptedServer down;
    private ScriptedServer broke;
    private ScriptedServer watched;
    private final List<String> args = new ArrayList<>();
    private int calls;

    @BeforeEach
    void servers() {
        List<Step> alternating = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            alternating.add(Step.status(503));
            alternating.add(Step.ok());
        }
        flaky = open(alternating.toArray(new Step[0]));
        down = open(Step.status(503));
        broke = open(Step.status(503));
        watched = open(Step.status(503));
        call("f1", OKHTTP, flaky, "GET");
        call("f2", OKHTTP, flaky, "GET");
        call("f3", OKHTTP, flaky, "GET");
        call("f4", JDK, flaky, "GET");
        call("f5", JDK, flaky, "GET");
        call("d1", OKHTTP, down, "GET");
        call("d2", OKHTTP, down, "GET");
        call("d3", OKHTTP, down, "POST");
        call("d4", JDK, down, "GET");
        call("d5", JDK, down, "POST");
        call("b1", OKHTTP, broke, "GET");
        call("b2", OKHTTP, broke, "GET");
        call("w1", OKHTTP, watched, "GET");
        args.add("--expect-calls");
        args.add(String.valueOf(calls));
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closer) {
            c.close();
        }
    }

    private ScriptedServer open(Step... steps) {
        ScriptedServer s = ScriptedServer.start(steps);
        closer.add(s);
        return s;
    }

    private void call(String id, String client, ScriptedServer server, String method) {
        args.add("--call");
        args.add("id=" + id + ";client=" + (client.equals(JDK) ? "jdk" : "okhttp") + ";url=" + server.url("/" + id)
                + ";method=" + method);
        calls++;
    }

    private String policy() {
        return """
                version: 1
                defaults:
                  maxAttempts: 3
                  backoff: { base: 10ms, cap: 20ms }
                rules:
                  - match: { port: %d }
                    budget: { ratio: 0.0, minPerSecond: 0 }
                  - match: { port: %d }
                    mode: observe
                """.formatted(broke.port(), watched.port());
    }

    private ForkedApp app(Jdks.Jdk jdk) {
        return ForkedApp.of(MetricsApp.class).clientLibs(ClientLibs.OKHTTP_5).classpath(ForkedApp.testClasses())
                .java(jdk.java()).policy(policy()).args(args);
    }

    /** The JMX counters and the exporter's scrape on every JDK. */
    static List<Jdks.Jdk> jdks() {
        return Jdks.of(Jdks.ALL);
    }

    /** The counters one MBean must show, from what {@code server} received from {@code client}. */
    private Map<String, Long> counted(ScriptedServer server, String client) {
        List<RecordedRequest> seen = server.requests().stream()
                .filter(r -> clientOf(r).equals(client)).toList();
        long retries = seen.stream().filter(r -> marker(r) >= 2).count();
        Map<String, Long> expected = new TreeMap<>();
        expected.put("attempts", (long) seen.size());
        expected.put("retries", retries);
        expected.put("calls", seen.size() - retries);
        // flaky answers 503 then 200, so each of its retries is a success after retry; elsewhere none succeed
        expected.put("successes_after_retry", server == flaky ? retries : 0L);
        expected.put("give_ups.attempts", seen.stream().filter(r -> marker(r) == 3).count());
        expected.put("give_ups.not-idempotent", seen.stream().filter(r -> r.method().equals("POST")).count());
        long budget = server == broke ? seen.size() : 0;
        expected.put("give_ups.budget", budget);
        expected.put("budget_refusals", budget);
        expected.put("would_retry", server == watched ? (long) seen.size() : 0L);
        expected.put("upper_layer_calls", 0L); // no SDK's retry loop above these calls
        expected.put("attempt_timeouts", 0L); // no rule sets an attemptTimeout
        expected.put("unsent_retries", 0L); // every server here accepts its connections
        for (String reason : List.of("deadline", "retry-after-too-long", "body-not-replayable", "nested",
                "upper-layer")) {
            expected.put("give_ups." + reason, 0L);
        }
        return expected;
    }

    private static String clientOf(RecordedRequest r) {
        String agent = r.header("User-Agent");
        return agent != null && agent.startsWith("okhttp") ? OKHTTP : JDK;
    }

    private static int marker(RecordedRequest r) {
        String m = r.header("Retry-Attempt");
        return m == null ? 1 : Integer.parseInt(m.trim());
    }

    /** Object name -> expected counters, for every destination MBean and the total. */
    private Map<String, Map<String, Long>> expected() {
        Map<String, Map<String, Long>> expected = new TreeMap<>();
        Map<String, Long> total = new TreeMap<>();
        for (ScriptedServer server : List.of(flaky, down, broke, watched)) {
            for (String client : List.of(OKHTTP, JDK)) {
                Map<String, Long> counts = counted(server, client);
                if (counts.get("attempts") == 0) {
                    continue;
                }
                expected.put("retry-agent:type=destination,client=" + client + ",scheme=http,host=127.0.0.1,port="
                        + server.port(), counts);
                counts.forEach((k, v) -> total.merge(k, v, Long::sum));
            }
        }
        expected.put("retry-agent:type=total", total);
        assertEquals(calls, total.get("calls"), "the servers saw every call: " + expected);
        return expected;
    }

    /** The counters of every MBean printed but the agent's, which must list no uncovered client here. */
    private static Map<String, Map<String, Long>> mbeans(List<ReportLine> lines) {
        Map<String, Map<String, Long>> read = new TreeMap<>();
        for (ReportLine line : lines) {
            if (line.get("name").equals("retry-agent:type=agent")) {
                assertEquals(Map.of("name", "retry-agent:type=agent"), line.values(), "no uncovered client: " + line);
                continue;
            }
            Map<String, Long> values = new TreeMap<>();
            line.values().forEach((k, v) -> {
                if (!k.equals("name")) {
                    // plain counters are printed value:Type; every one must be a Long
                    if (v.contains(":")) {
                        assertEquals("Long", v.substring(v.indexOf(':') + 1), k);
                        v = v.substring(0, v.indexOf(':'));
                    }
                    values.put(k, Long.parseLong(v));
                }
            });
            read.put(line.get("name"), values);
        }
        return read;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void countersReadOverJmxEqualWhatTheServersCounted(Jdks.Jdk jdk) {
        ForkedApp.Result run = app(jdk).name("metrics-jmx-" + jdk).run().assertExitCode(0);
        assertEquals(calls, run.results().size(), run.describe());
        assertEquals(String.valueOf(calls), run.single("WAITED").get("totalCalls"), run.describe());

        Map<String, Map<String, Long>> expected = expected();
        Map<String, Map<String, Long>> read = mbeans(run.lines("MBEAN"));
        assertEquals(expected, read, run.describe());
        // the scenario covers what it claims
        Map<String, Long> total = read.get("retry-agent:type=total");
        assertEquals(13L, total.get("calls"));
        assertTrue(total.get("successes_after_retry") == 5 && total.get("give_ups.attempts") == 3
                && total.get("give_ups.not-idempotent") == 2 && total.get("budget_refusals") == 2
                && total.get("would_retry") == 1, total.toString());
        assertTrue(run.agentLog().stream().noneMatch(l -> l.contains("internal-error")), run.describe());
        run.lines("MBEAN").forEach(l -> System.out.println("JMX-READ " + l));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void thePrometheusJmxExporterAgentServesTheSameCounters(Jdks.Jdk jdk) throws Exception {
        JmxExporter exporter = JmxExporter.onFreePort();
        List<String> scraped;
        ForkedApp.Result run;
        try (ForkedApp.Running app = app(jdk).name("metrics-prometheus-" + jdk)
                .jvmArg(exporter.jvmArg())
                .args("--hold").start()) {
            app.awaitStdoutLine(l -> l.equals("HOLDING"), Duration.ofSeconds(60));
            scraped = exporter.scrape();
            app.writeLine("done");
            run = app.await().assertExitCode(0);
        }
        assertTrue(run.agentLog().stream().noneMatch(l -> l.contains("internal-error")), run.describe());
        Map<String, Map<String, Long>> expected = expected();
        assertEquals(expected, mbeans(run.lines("MBEAN")), run.describe());

        assertTrue(scraped.contains("jmx_scrape_error 0.0"), "the exporter read every MBean without an error:\n"
                + String.join("\n", scraped));
        List<String> ours = scraped.stream().filter(l -> l.contains("retry_agent")).toList();
        ours.forEach(l -> System.out.println("METRICS-EXCERPT " + l));
        Map<String, Map<String, Long>> fromPrometheus = samples(ours);
        assertEquals(expected, fromPrometheus, String.join("\n", ours));
    }

    /**
     * The agent leaves JMX alone until there is something to count: its first use initialises the platform
     * MBeanServer, which an application server may want to set up its own way (MBeanServerBuilder, logging manager).
     * With no call for 2.5 s (two housekeeping ticks), not one JMX class is loaded.
     */
    @Test
    void noCallNoJmx() throws Exception {
        ForkedApp.Result run = ForkedApp.of(MetricsApp.class).name("metrics-idle").clientLibs(ClientLibs.OKHTTP_5)
                .classpath(ForkedApp.testClasses())
                .policy(policy()).jvmArg("-Xlog:class+load:file=classes.txt")
                .args("--idle-ms", "2500").run().assertExitCode(0);
        List<String> loaded = Files.readAllLines(run.runDir().resolve("classes.txt"));
        assertTrue(loaded.stream().anyMatch(l -> l.contains(" dev.retryagent.agent.operations.metrics.Metrics ")),
                "the metrics task was scheduled");
        List<String> jmx = loaded.stream().filter(l -> l.contains(" javax.management.") || l.contains(" java.lang.management.")
                || l.contains(" sun.management.") || l.contains(" com.sun.jmx.")).toList();
        assertEquals(List.of(), jmx);
    }

    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"([^\"]*)\"");

    /**
     * The exporter's samples, keyed back to our object names: {@code retry_agent_destination_calls{client=..,
     * scheme=..,host=..,port=..}} is attribute {@code calls} of {@code retry-agent:type=destination,client=..,...};
     * {@code retry_agent_total_give_ups{reason=..}} row {@code reason} of {@code give_ups} of the total.
     */
    private static Map<String, Map<String, Long>> samples(List<String> lines) {
        Map<String, Map<String, Long>> byBean = new TreeMap<>();
        for (String line : lines) {
            if (line.startsWith("#")) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            assertTrue(m.matches(), line);
            Map<String, String> labels = new LinkedHashMap<>();
            Matcher l = LABEL.matcher(m.group(2) == null ? "" : m.group(2));
            while (l.find()) {
                labels.put(l.group(1), l.group(2));
            }
            String metric = m.group(1);
            String bean;
            String attribute;
            if (metric.startsWith("retry_agent_destination_")) {
                attribute = metric.substring("retry_agent_destination_".length());
                bean = "retry-agent:type=destination,client=" + labels.get("client") + ",scheme=" + labels.get("scheme")
                        + ",host=" + labels.get("host") + ",port=" + labels.get("port");
            } else if (metric.startsWith("retry_agent_total_")) {
                attribute = metric.substring("retry_agent_total_".length());
                bean = "retry-agent:type=total";
            } else {
                throw new AssertionError("unexpected metric name: " + line);
            }
            if (labels.containsKey("reason")) {
                attribute = attribute + "." + labels.get("reason");
            }
            double value = Double.parseDouble(m.group(3));
            assertEquals(Math.rint(value), value, line);
            Long previous = byBean.computeIfAbsent(bean, k -> new TreeMap<>()).put(attribute, (long) value);
            assertEquals(null, previous, "one sample per bean and attribute: " + line);
        }
        return byBean;
    }
}
