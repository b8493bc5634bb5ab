package dev.retryagent.it.upperlayers;

import static dev.retryagent.it.harness.Runs.logged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * SPEC 4.14 against a real retry library: an application of {@code integration-tests/resilience-apps} or
 * {@code sdk-apps} (system property {@code retry.agent.it.MODULE}: that module's {@code target}, with
 * {@code MODULE.jar} and its class path directories) makes every scenario's calls, each way (client) the library is
 * called, to loopback servers of its own (one per node), in one forked JVM per setting: without the agent
 * ({@link Setting#ALONE}), under {@code upperLayers: defer} ({@link Setting#DEFER}, a policy that only shortens the
 * backoff), under {@code upperLayers: retry} ({@link Setting#RETRY}) and with the library's retries off under
 * {@code defer} ({@link Setting#OFF}). Counts what each call's servers received, checks them against the library's
 * attempts and the agent's (3, the built-in default), and prints one row per way and scenario:
 * {@code LAYERS library=.. layer=.. way=.. scenario=.. alone=.. defer=.. retry=.. retriesOff=..}.
 */
final class LayerRuns {
    /** The agent's attempts (the built-in {@code maxAttempts}). */
    static final int AGENT_ATTEMPTS = 3;

    enum Scenario {
        ALWAYS_503("always-503", "GET"),
        FLAKY("503-503-200", "GET"),
        DROPPED_GET("dropped-GET", "GET"),
        DROPPED_POST("dropped-POST", "POST");

        final String label;
        final String method;

        Scenario(String label, String method) {
            this.label = label;
            this.method = method;
        }

        Step[] steps(Step error, Step ok) {
            return switch (this) {
                case ALWAYS_503 -> new Step[] {error};
                case FLAKY -> new Step[] {error, error, ok};
                case DROPPED_GET, DROPPED_POST -> new Step[] {Step.dropAfterRequest()};
            };
        }
    }

    enum Setting {
        ALONE, DEFER, RETRY, OFF
    }

    /**
     * A way of calling the library: its name in the app's {@code --call}, whether the agent sees its loop, and the
     * library's own attempts per call, from the requests a call made without the agent (its configuration, or the
     * attempt header it stamps).
     */
    record Way(String name, boolean layer, ToIntFunction<List<RecordedRequest>> libraryAttempts) {
        Way(String name, boolean layer, int libraryAttempts) {
            this(name, layer, requests -> libraryAttempts);
        }
    }

    record Measured(List<RecordedRequest> seen, int status, String error) {
        int requests() {
            return seen.size();
        }

        List<String> markers() {
            return seen.stream().map(r -> String.valueOf(r.header("Retry-Attempt"))).collect(Collectors.toList());
        }

        @Override
        public String toString() {
            return requests() + " requests, status " + status + ", error " + error + ", markers " + markers();
        }
    }

    record Run(Setting setting, Map<String, Measured> byCall, ForkedApp.Result result, ReportLine agentCounts) {
        long upperLayerCalls() {
            return agentCounts.getLong("upperLayerCalls");
        }

        Measured get(Way way, Scenario scenario) {
            return byCall.get(id(way, scenario));
        }

        /** The requests of {@code way}'s call in {@code scenario}, all nodes. */
        List<RecordedRequest> requests(String way, Scenario scenario) {
            return byCall.get(way + "." + scenario.name()).seen();
        }
    }

    /**
     * One application: the library (and version) in the rows, its module, main class and class path directories
     * (under the module's {@code target}), its layer name, its ways, the retries it is given ({@code --retries}), the
     * servers per call (its nodes) and the library's 503 and 200 (with the body it needs to classify them).
     */
    record App(String library, String module, String mainClass, List<String> libDirs, String layer, List<Way> ways,
               int retries, int nodes, Step error, Step ok) {
        App(String library, String module, String mainClass, List<String> libDirs, String layer, List<Way> ways,
            int retries) {
            this(library, module, mainClass, libDirs, layer, ways, retries, 1, Step.status(503).body("busy"),
                    Step.ok());
        }
    }

    private LayerRuns() {
    }

    static String id(Way way, Scenario scenario) {
        return way.name() + "." + scenario.name();
    }

    static Path appsDir(String module) {
        String configured = System.getProperty("retry.agent.it." + module);
        return configured != null && !configured.isBlank() ? Paths.get(configured)
                : Paths.get(module, "target").toAbsolutePath();
    }

    static String policy(Setting setting) {
        return "version: 1\ndefaults:\n"
                + "  backoff: { base: 10ms, cap: 20ms }\n"
                + "  budget: { ratio: 1.0, minPerSecond: 1000 }\n"
                + (setting == Setting.RETRY ? "  upperLayers: retry\n" : "");
    }

    /** Runs every way and scenario of {@code app} in one JVM under {@code setting}. */
    static Run run(App app, Setting setting, String runName) {
        Map<String, List<ScriptedServer>> servers = new LinkedHashMap<>();
        try {
            List<String> args = new ArrayList<>(List.of("--retries",
                    String.valueOf(setting == Setting.OFF ? 0 : app.retries())));
            for (Way way : app.ways()) {
                for (Scenario scenario : Scenario.values()) {
                    List<ScriptedServer> nodes = new ArrayList<>();
                    servers.put(id(way, scenario), nodes);
                    for (int n = 0; n < app.nodes(); n++) {
                        nodes.add(ScriptedServer.start(scenario.steps(app.error(), app.ok())));
                    }
                    args.addAll(List.of("--call", id(way, scenario), scenario.method, way.name(),
                            nodes.stream().map(s -> s.url("").replaceAll("/$", "")).collect(Collectors.joining(","))));
                }
            }
            Path dir = appsDir(app.module());
            ForkedApp fork = ForkedApp.of(app.mainClass()).name(runName + "-" + setting.name().toLowerCase())
                    .timeout(Duration.ofSeconds(120)).classpath(dir.resolve(app.module() + ".jar")).args(args);
            app.libDirs().forEach(libs -> jars(dir.resolve(libs)).forEach(fork::classpath));
            if (setting != Setting.ALONE) {
                fork.policy(policy(setting)).agentArg("log", "debug");
            }
            ForkedApp.Result result = fork.run().assertExitCode(0);
            assertFalse(result.stderr().contains("internal-error"), result.describe());
            Map<String, Measured> byCall = new LinkedHashMap<>();
            for (Map.Entry<String, List<ScriptedServer>> e : servers.entrySet()) {
                ReportLine line = result.results().stream().filter(r -> e.getKey().equals(r.get("id"))).findFirst()
                        .orElseThrow(() -> new AssertionError("no RESULT for " + e.getKey() + ": " + result.describe()));
                List<RecordedRequest> seen = new ArrayList<>();
                e.getValue().forEach(s -> seen.addAll(s.requests()));
                byCall.put(e.getKey(), new Measured(seen, line.getInt("status"), line.get("error")));
            }
            return new Run(setting, byCall, result, result.single("UPPER"));
        } finally {
            servers.values().forEach(nodes -> nodes.forEach(ScriptedServer::close));
        }
    }

    static List<Path> jars(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".jar")).sorted().collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException("no class path directory " + dir + " (mvn package builds the app modules)", e);
        }
    }

    /**
     * The four runs of {@code app}, the table printed, then the checks. A way the agent sees as a layer sends, under
     * {@code defer}, exactly the library's own attempts, unmarked; under {@code retry} the product where the agent
     * retries; with the library's retries off, the agent's own count. A way it does not see (no loop, or attempts
     * not made inside one method on one thread) is retried by the agent as any other call in every setting.
     */
    static Map<Setting, Run> measureAndCheck(App app, String runName) {
        Map<Setting, Run> runs = new LinkedHashMap<>();
        for (Setting setting : Setting.values()) {
            runs.put(setting, run(app, setting, runName));
        }
        Run alone = runs.get(Setting.ALONE);
        Map<String, Integer> libraryAttempts = new LinkedHashMap<>();
        for (Way way : app.ways()) {
            for (Scenario scenario : Scenario.values()) {
                int library = way.libraryAttempts().applyAsInt(alone.get(way, scenario).seen());
                libraryAttempts.put(id(way, scenario), library);
                System.out.println("LAYERS library=" + app.library() + " layer=" + (way.layer() ? app.layer() : "none")
                        + " way=" + way.name() + " scenario=" + scenario.label + " libraryAttempts=" + library
                        + " alone=" + cell(alone.get(way, scenario))
                        + " defer=" + cell(runs.get(Setting.DEFER).get(way, scenario))
                        + " retry=" + cell(runs.get(Setting.RETRY).get(way, scenario))
                        + " retriesOff=" + cell(runs.get(Setting.OFF).get(way, scenario)));
            }
        }
        System.out.println("LAYERS library=" + app.library() + " upperLayerCalls defer="
                + runs.get(Setting.DEFER).upperLayerCalls() + " retry=" + runs.get(Setting.RETRY).upperLayerCalls()
                + " retriesOff=" + runs.get(Setting.OFF).upperLayerCalls());
        for (Run run : runs.values()) {
            check(app, run, libraryAttempts);
        }
        return runs;
    }

    private static String cell(Measured m) {
        return m.requests() + "(" + m.status() + (m.error().equals("none") ? "" : "," + shortName(m.error())) + ")";
    }

    private static String shortName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    private static void check(App app, Run run, Map<String, Integer> libraryAttempts) {
        String describe = run.setting() + " " + run.byCall() + "\n" + run.result().describe();
        long deferred = 0;
        for (Way way : app.ways()) {
            for (Scenario scenario : Scenario.values()) {
                int library = run.setting() == Setting.OFF ? 1 : libraryAttempts.get(id(way, scenario));
                boolean agentRetries = run.setting() != Setting.ALONE
                        && (run.setting() != Setting.DEFER || !way.layer() || library == 1);
                Measured m = run.get(way, scenario);
                String what = app.library() + " " + run.setting() + " " + way.name() + " " + scenario.label + ": " + m;
                int agent = agentRetries ? AGENT_ATTEMPTS : 1;
                switch (scenario) {
                    case ALWAYS_503 -> {
                        assertEquals(library * agent, m.requests(), what + "\n" + describe);
                        assertEquals(503, m.status(), what);
                    }
                    case FLAKY -> {
                        int expected = Math.min(3, library * agent);
                        assertEquals(expected, m.requests(), what + "\n" + describe);
                        assertEquals(expected == 3 ? 200 : 503, m.status(), what);
                    }
                    case DROPPED_GET -> {
                        if (run.setting() == Setting.ALONE) {
                            assertTrue(m.requests() >= library, what); // plus the client's own resends
                        } else {
                            assertEquals(library * agent, m.requests(), what + "\n" + describe);
                        }
                        assertEquals(-1, m.status(), what);
                    }
                    case DROPPED_POST -> {
                        if (run.setting() == Setting.ALONE) {
                            assertTrue(m.requests() >= library, what);
                        } else {
                            assertEquals(library, m.requests(), what + "\n" + describe); // a POST without key: never
                        }
                        assertEquals(-1, m.status(), what);
                    }
                }
                boolean deferredHere = run.setting() == Setting.DEFER && way.layer() && library > 1;
                if (deferredHere || run.setting() == Setting.ALONE || scenario == Scenario.DROPPED_POST) {
                    assertTrue(m.markers().stream().allMatch("null"::equals), "unmarked: " + what);
                }
                if (deferredHere) {
                    deferred += m.requests();
                }
                if (run.setting() == Setting.OFF && scenario != Scenario.DROPPED_POST) {
                    assertEquals(List.of("1", "2", "3"), m.markers(), what);
                }
            }
        }
        if (run.setting() == Setting.ALONE) {
            assertEquals(-1, run.upperLayerCalls(), describe);
            return;
        }
        // The agent counted a call per attempt of the library (each one client call), and the MBean was read then.
        long total = run.byCall().values().stream().mapToInt(Measured::requests).sum();
        if (run.agentCounts().getLong("attempts") > 0) {
            assertEquals(run.agentCounts().getLong("attempts"), run.agentCounts().getLong("calls"), describe);
        }
        assertTrue(run.agentCounts().getLong("calls") <= total, describe);
        // Every attempt the layer made is a call the agent left to it, and none else.
        assertEquals(deferred, run.upperLayerCalls(), "upper_layer_calls: " + describe);
        boolean logs = logged(run.result(), "reason=upper-layer", "layer=" + app.layer());
        assertEquals(deferred > 0, logs, "reason=upper-layer layer=" + app.layer() + " logged: " + describe);
    }

    /** The {@code max} of the first request's {@code amz-sdk-request: attempt=N; max=M}, as the AWS SDKs stamp it. */
    static int awsMaxAttempts(List<RecordedRequest> requests) {
        assertFalse(requests.isEmpty());
        return awsMaxAttempts(requests.get(0));
    }

    static int awsMaxAttempts(RecordedRequest request) {
        String header = request.header("amz-sdk-request");
        assertTrue(header != null && header.contains("max="), "amz-sdk-request: " + header);
        return Integer.parseInt(header.replaceAll(".*max=(\\d+).*", "$1"));
    }
}
