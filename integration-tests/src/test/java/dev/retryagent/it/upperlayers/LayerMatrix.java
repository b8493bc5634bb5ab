package dev.retryagent.it.upperlayers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs one application of {@code integration-tests/retry-apps} (a library with its own retry loop above the client)
 * through every scenario, in one forked JVM per policy (no agent, {@code upperLayers: defer}, {@code upperLayers:
 * retry}), each call against its own {@link ScriptedServer}, and checks the requests each server received (SPEC
 * 4.14): under {@code defer} what the library alone decides (its client's hidden resends off), under {@code retry}
 * the library's attempts times the agent's where the agent retries, and with the library's retries off the agent's
 * own count. Prints one {@code LAYER-TABLE} row per variant and scenario.
 */
final class LayerMatrix {
    /** The agent's attempts under the policies below (the built-in {@code maxAttempts}). */
    static final int AGENT_ATTEMPTS = 3;
    private static final String BACKOFF = "  backoff: { base: 10ms, cap: 20ms }\n";

    enum Policy {
        ALONE(null), DEFER("version: 1\ndefaults:\n" + BACKOFF),
        RETRY("version: 1\ndefaults:\n  upperLayers: retry\n" + BACKOFF);

        final String yaml;

        Policy(String yaml) {
            this.yaml = yaml;
        }
    }

    enum Scenario {
        ALWAYS_503("GET", false, Step.status(503)),
        RECOVERS("GET", false, Step.status(503), Step.status(503), Step.ok()),
        DROPPED_GET("GET", false, Step.dropAfterRequest()),
        DROPPED_POST("POST", false, Step.dropAfterRequest()),
        /** A GET dropped on a kept-alive connection (after one 200 on it): where clients resend on their own. */
        DROPPED_GET_REUSED("GET", true, Step.ok(), Step.dropAfterRequest());

        final String method;
        final boolean warmUp;
        final Step[] steps;

        Scenario(String method, boolean warmUp, Step... steps) {
            this.method = method;
            this.warmUp = warmUp;
            this.steps = steps;
        }
    }

    /** What one call did: the requests its server received (a warm-up call's left out) and what the app printed. */
    record Cell(int requests, ReportLine result, List<String> markers) {
        String outcome() {
            return result.has("status") ? result.get("status") : result.get("failure");
        }
    }

    /** One forked JVM's calls, by variant and scenario, and its output. */
    record Run(Map<String, Cell> cells, ForkedApp.Result result) {
        Cell cell(String variant, Scenario scenario) {
            return cells.get(variant + "/" + scenario);
        }
    }

    private final String layer;
    /** The library and version in the printed rows, e.g. {@code feign-13.12}. */
    private final String label;
    private final String mainClass;
    private final List<Path> classpath;
    private final List<String> variants;
    private final List<Scenario> scenarios;

    LayerMatrix(String layer, String label, String mainClass, List<Path> classpath, List<String> variants,
                List<Scenario> scenarios) {
        this.layer = layer;
        this.label = label;
        this.mainClass = mainClass;
        this.classpath = classpath;
        this.variants = variants;
        this.scenarios = scenarios;
    }

    /** The app jar and the jars of {@code target/<libsDir>} of retry-apps. */
    static List<Path> appClasspath(String libsDir) {
        String configured = System.getProperty("retry.agent.it.retry-apps");
        Path target = configured != null && !configured.isBlank() ? Paths.get(configured)
                : Paths.get("retry-apps", "target").toAbsolutePath();
        List<Path> cp = new ArrayList<>();
        cp.add(target.resolve("retry-apps.jar"));
        try (Stream<Path> jars = Files.list(target.resolve(libsDir))) {
            cp.addAll(jars.filter(p -> p.toString().endsWith(".jar")).sorted().collect(Collectors.toList()));
        } catch (IOException e) {
            throw new UncheckedIOException("retry-apps not built (mvn package -pl integration-tests/retry-apps)", e);
        }
        return cp;
    }

    Run run(Policy policy) {
        List<ScriptedServer> servers = new ArrayList<>();
        try {
            ForkedApp app = ForkedApp.of(mainClass).name(label + "-" + policy.name().toLowerCase())
                    .timeout(Duration.ofSeconds(90));
            classpath.forEach(app::classpath);
            if (policy.yaml != null) {
                app.withAgent().policy(policy.yaml).agentArg("log", "debug");
            }
            if (policy == Policy.DEFER) {
                app.args("--jmx");
            }
            Map<String, ScriptedServer> byKey = new LinkedHashMap<>();
            for (String variant : variants) {
                for (Scenario scenario : scenarios) {
                    ScriptedServer server = ScriptedServer.start(scenario.steps);
                    servers.add(server);
                    String key = variant + "/" + scenario;
                    byKey.put(key, server);
                    String url = server.url("/items");
                    if (scenario.warmUp) {
                        app.args("--call", "warm-" + key + "|" + variant + "|GET|" + url);
                    }
                    app.args("--call", key + "|" + variant + "|" + scenario.method + "|" + url);
                }
            }
            ForkedApp.Result result = app.run().assertExitCode(0);
            Map<String, ReportLine> lines = result.results().stream()
                    .collect(Collectors.toMap(l -> l.get("id"), l -> l));
            Map<String, Cell> cells = new LinkedHashMap<>();
            byKey.forEach((key, server) -> {
                List<RecordedRequest> seen = server.requests();
                int warm = key.endsWith(Scenario.DROPPED_GET_REUSED.name()) ? 1 : 0;
                List<String> markers = seen.stream().skip(warm).map(r -> r.header("Retry-Attempt"))
                        .collect(Collectors.toList());
                cells.put(key, new Cell(seen.size() - warm, lines.get(key), markers));
            });
            return new Run(cells, result);
        } finally {
            servers.forEach(ScriptedServer::close);
        }
    }

    /**
     * All three runs and every check: {@code onVariants} retry in the library ({@code libraryAttempts} each),
     * {@code offVariants} have its retries off.
     */
    void runAndCheck(int libraryAttempts, List<String> onVariants, List<String> offVariants) {
        Run alone = run(Policy.ALONE);
        Run defer = run(Policy.DEFER);
        Run retry = run(Policy.RETRY);
        for (String variant : variants) {
            for (Scenario s : scenarios) {
                Cell a = alone.cell(variant, s);
                Cell d = defer.cell(variant, s);
                Cell r = retry.cell(variant, s);
                System.out.printf("LAYER-TABLE library=%s variant=%s scenario=%s alone=%d(%s) defer=%d(%s) "
                                + "retry=%d(%s) markers-defer=%s markers-retry=%s%n", label, variant, s, a.requests,
                        a.outcome(), d.requests, d.outcome(), r.requests, r.outcome(), d.markers, r.markers);
            }
        }
        for (String variant : onVariants) {
            for (Scenario s : scenarios) {
                String where = layer + " " + variant + " " + s;
                Cell a = alone.cell(variant, s);
                Cell d = defer.cell(variant, s);
                Cell r = retry.cell(variant, s);
                int library = s == Scenario.RECOVERS ? 3 : libraryAttempts;
                boolean agentRetries = !s.method.equals("POST");
                assertTrue(a.requests >= library, where + " alone: " + a);
                assertEquals(library, d.requests, where + " defer: the library's own attempts, sent once each");
                assertEquals(s == Scenario.RECOVERS || !agentRetries ? library : library * AGENT_ATTEMPTS,
                        r.requests, where + " retry: the attempts multiply");
                d.markers.forEach(m -> assertNull(m, where + " defer: unmarked inside the layer"));
                if (s == Scenario.RECOVERS) {
                    assertEquals("200", d.result.get("status"), where);
                    assertEquals("200", r.result.get("status"), where);
                }
            }
        }
        for (String variant : offVariants) {
            for (Scenario s : scenarios) {
                String where = layer + " " + variant + " " + s + " (library retries off)";
                assertTrue(alone.cell(variant, s).requests >= 1, where);
                int agent = s.method.equals("POST") ? 1 : s == Scenario.RECOVERS ? 3 : AGENT_ATTEMPTS;
                for (Run run : List.of(defer, retry)) {
                    Cell c = run.cell(variant, s);
                    assertEquals(agent, c.requests, where + ": the agent's own count");
                    if (s == Scenario.RECOVERS) {
                        assertEquals("200", c.result.get("status"), where);
                        assertEquals(List.of("1", "2", "3"), c.markers, where);
                    }
                }
            }
        }
        assertTrue(defer.result().stderr().contains("reason=upper-layer layer=" + layer),
                "defer: the give-up is logged with the layer\n" + defer.result().describe());
        long upperLayerCalls = Long.parseLong(defer.result().single("MBEAN").get("upperLayerCalls"));
        assertTrue(upperLayerCalls > 0, "upper_layer_calls " + upperLayerCalls);
        assertTrue(!retry.result().stderr().contains("reason=upper-layer"), "retry: nothing deferred");
        System.out.printf("LAYER-RUNS library=%s layer=%s java=%s upper_layer_calls_first_seen=%d aloneMs=%d deferMs=%d "
                        + "retryMs=%d%n", label, layer, ForkedApp.defaultJava(), upperLayerCalls,
                alone.result().elapsed().toMillis(), defer.result().elapsed().toMillis(),
                retry.result().elapsed().toMillis());
    }
}
