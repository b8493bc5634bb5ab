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
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;
import java.util.stream.IntStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * docs/reference.md#layers-above-the-client against a real retry library: an application of {@code
 * integration-tests/retry-apps}, {@code resilience-apps} or {@code sdk-apps} (system property {@code
 * retry.agent.it.MODULE}: that module's {@code target}, with {@code MODULE.jar} and its class path directories) makes
 * every scenario's calls, each way (client) the library is called, once with the library's retries and once with them
 * off, to loopback servers of their own (one per node), through {@code dev.retryagent.it.apps.LayerCalls}: in one
 * forked JVM per setting, without the agent ({@link Setting#ALONE}), under {@code upperLayers: defer} ({@link
 * Setting#DEFER}, a policy that only shortens the backoff) and under {@code upperLayers: retry} ({@link
 * Setting#RETRY}). Counts what each call's servers received, checks them against the library's attempts and the agent's
 * (3, the built-in default), and prints one row per way and scenario: {@code LAYERS library=.. layer=.. way=..
 * scenario=.. libraryAttempts=.. alone=.. defer=.. retry=.. retriesOff=..} (retriesOff: the library's retries off,
 * under {@code defer}), each {@code requests(status)}. Under {@code defer} the agent leaves to the library exactly the
 * outcomes its loop retries: never more requests than the library's own for those, never fewer recoveries than the
 * agent's alone for the others ({@link Way#notRetried}).
 */
final class LayerMatrix {
    /** The agent's attempts (the built-in {@code maxAttempts}). */
    static final int AGENT_ATTEMPTS = 3;

    enum Scenario {
        ALWAYS_503("always-503", "GET", false),
        FLAKY("503-503-200", "GET", false),
        /** 503 with {@code Retry-After: 0} twice, then 200: what a library that honours Retry-After retries. */
        FLAKY_RETRY_AFTER("503ra-503ra-200", "GET", false),
        /** 429 twice, then 200: a status the agent retries that is no server error. */
        FLAKY_429("429-429-200", "GET", false),
        OK("200", "GET", false),
        DROPPED_GET("dropped-GET", "GET", false),
        DROPPED_POST("dropped-POST", "POST", false),
        /** A GET dropped on a kept-alive connection (after one 200 on it): where clients resend on their own. */
        DROPPED_GET_REUSED("dropped-GET-reused", "GET", true);

        static final List<Scenario> USUAL = List.of(ALWAYS_503, FLAKY, DROPPED_GET, DROPPED_POST);

        final String label;
        final String method;
        /** Whether a GET that succeeds goes first on the same server (its request not counted). */
        final boolean warmUp;

        Scenario(String label, String method, boolean warmUp) {
            this.label = label;
            this.method = method;
            this.warmUp = warmUp;
        }

        Step[] steps(Step error, Step ok) {
            return switch (this) {
                case ALWAYS_503 -> new Step[] {error};
                case FLAKY -> new Step[] {error, error, ok};
                case FLAKY_RETRY_AFTER -> new Step[] {error.retryAfterSeconds(0), error.retryAfterSeconds(0), ok};
                case FLAKY_429 -> new Step[] {error.withStatus(429), error.withStatus(429), ok};
                case OK -> new Step[] {ok};
                case DROPPED_GET, DROPPED_POST -> new Step[] {Step.dropAfterRequest()};
                case DROPPED_GET_REUSED -> new Step[] {ok, Step.dropAfterRequest()};
            };
        }

        /** The status of the error a scenario of errors ends with, unless recovered. */
        int errorStatus() {
            return this == FLAKY_429 ? 429 : 503;
        }
    }

    enum Setting {
        ALONE, DEFER, RETRY
    }

    /**
     * A way of calling the library: its name in the app's {@code --call}, whether the agent sees its loop, the
     * library's own attempts per call, from the requests a call made without the agent (its configuration, or the
     * attempt header it stamps), and the scenarios whose outcomes its loop does not retry (its own classification:
     * under {@code defer} the agent's to retry; then the calls made in its loop are marked, as the agent may retry
     * them). Its calls are the app's scenarios, or {@code only} these when not empty, each with the library's retries
     * on and, with {@code retriesOff}, off.
     */
    record Way(String name, boolean layer, ToIntFunction<List<RecordedRequest>> libraryAttempts,
               Set<Scenario> notRetried, List<Scenario> only, boolean retriesOff) {
        Way(String name, boolean layer, ToIntFunction<List<RecordedRequest>> libraryAttempts) {
            this(name, layer, libraryAttempts, Set.of(), List.of(), true);
        }

        Way(String name, boolean layer, int libraryAttempts) {
            this(name, layer, requests -> libraryAttempts);
        }

        /** A way the agent sees, whose loop of {@code libraryAttempts} does not retry {@code notRetried}. */
        static Way leaving(String name, int libraryAttempts, Scenario... notRetried) {
            return new Way(name, true, requests -> libraryAttempts, Set.of(notRetried), List.of(), true);
        }

        /** This way in {@code scenarios} only, of the app's (where the others would repeat another way's). */
        Way only(Scenario... scenarios) {
            return new Way(name, layer, libraryAttempts, notRetried, List.of(scenarios), retriesOff);
        }

        /** This way with the library's retries on only (where off it is another way of the app). */
        Way withoutRetriesOff() {
            return new Way(name, layer, libraryAttempts, notRetried, only, false);
        }

        /** Whether the loop leaves any outcome the agent retries to it. */
        boolean leavesSome() {
            return !notRetried.isEmpty();
        }

        List<Scenario> scenarios(App app) {
            return only.isEmpty() ? app.scenarios() : app.scenarios().stream().filter(only::contains).toList();
        }

        List<Boolean> retries() {
            return retriesOff ? List.of(true, false) : List.of(true);
        }
    }

    /** One call: what its servers received ({@code warm} of them the warm-up's), what the app reported. */
    record Measured(List<RecordedRequest> seen, int warm, int status, String error) {
        int requests() {
            return seen.size() - warm;
        }

        List<RecordedRequest> counted() {
            return seen.subList(warm, seen.size());
        }

        List<String> markers() {
            return counted().stream().map(r -> String.valueOf(r.header("Retry-Attempt"))).collect(Collectors.toList());
        }

        @Override
        public String toString() {
            return requests() + " requests, status " + status + ", error " + error + ", markers " + markers();
        }
    }

    /** One forked JVM: its calls by {@link #id}, its output, its {@code UPPER} line (the agent's MBean). */
    record Run(Setting setting, Map<String, Measured> byCall, ForkedApp.Result result, ReportLine agentCounts) {
        long upperLayerCalls() {
            return agentCounts.getLong("upperLayerCalls");
        }

        Measured get(Way way, Scenario scenario, boolean retries) {
            return byCall.get(id(way.name(), scenario, retries));
        }

        /** The requests of {@code way}'s call in {@code scenario}, all nodes. */
        List<RecordedRequest> requests(String way, Scenario scenario, boolean retries) {
            return byCall.get(id(way, scenario, retries)).counted();
        }
    }

    /** The runs of {@link #measureAndCheck}, by setting. */
    record Runs(Map<Setting, Run> bySetting) {
        Run get(Setting setting) {
            return bySetting.get(setting);
        }
    }

    /**
     * One application: the library (and version) in the rows, its module, main class and class path directories
     * (under the module's {@code target}), its layer name, its ways, the library's retries its calls are given, the
     * servers per call (its nodes), the library's 503 and 200 (with the body it needs to classify them) and the
     * scenarios.
     */
    record App(String library, String module, String mainClass, List<String> libDirs, String layer, List<Way> ways,
               int retries, int nodes, Step error, Step ok, List<Scenario> scenarios) {
        App(String library, String module, String mainClass, List<String> libDirs, String layer, List<Way> ways,
            int retries) {
            this(library, module, mainClass, libDirs, layer, ways, retries, 1, Step.status(503).body("busy"),
                    Step.ok(), Scenario.USUAL);
        }

        App nodes(int count, Step libraryError, Step libraryOk) {
            return new App(library, module, mainClass, libDirs, layer, ways, retries, count, libraryError, libraryOk,
                    scenarios);
        }

        App scenarios(List<Scenario> these) {
            return new App(library, module, mainClass, libDirs, layer, ways, retries, nodes, error, ok, these);
        }
    }

    private LayerMatrix() {
    }

    static String id(String way, Scenario scenario, boolean retries) {
        return way + "." + scenario.name() + (retries ? "" : ".off");
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

    /** Runs every way and scenario of {@code app}, with the library's retries and without, in one JVM. */
    static Run run(App app, Setting setting, String runName) {
        Map<String, List<ScriptedServer>> servers = new LinkedHashMap<>();
        try {
            List<String> args = new ArrayList<>();
            for (boolean retries : List.of(true, false)) {
                for (Way way : app.ways()) {
                    if (!way.retries().contains(retries)) {
                        continue;
                    }
                    for (Scenario scenario : way.scenarios(app)) {
                        String id = id(way.name(), scenario, retries);
                        List<ScriptedServer> nodes = new ArrayList<>();
                        servers.put(id, nodes);
                        for (int n = 0; n < app.nodes(); n++) {
                            nodes.add(ScriptedServer.start(scenario.steps(app.error(), app.ok())));
                        }
                        String urls = nodes.stream().map(s -> s.url("").replaceAll("/$", ""))
                                .collect(Collectors.joining(","));
                        String retriesArg = String.valueOf(retries ? app.retries() : 0);
                        if (scenario.warmUp) {
                            args.addAll(List.of("--call", "warm-up." + id, "GET", way.name(), retriesArg, urls));
                        }
                        args.addAll(List.of("--call", id, scenario.method, way.name(), retriesArg, urls));
                    }
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
                int warm = e.getKey().contains("." + Scenario.DROPPED_GET_REUSED.name()) ? 1 : 0;
                byCall.put(e.getKey(), new Measured(seen, warm, line.getInt("status"), line.get("error")));
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
     * The three runs of {@code app}, the table printed, then the checks. A way the agent sees as a layer sends, under
     * {@code defer}, exactly the library's own attempts, unmarked; under {@code retry} the product where the agent
     * retries; with the library's retries off, the agent's own count. A way it does not see (no loop, or attempts
     * not made inside one method on one thread) is retried by the agent as any other call in every setting.
     */
    static Runs measureAndCheck(App app, String runName) {
        Map<Setting, Run> runs = new LinkedHashMap<>();
        for (Setting setting : Setting.values()) {
            runs.put(setting, run(app, setting, runName));
        }
        Run alone = runs.get(Setting.ALONE);
        Map<String, Integer> libraryAttempts = new LinkedHashMap<>();
        for (Way way : app.ways()) {
            for (Scenario scenario : way.scenarios(app)) {
                int library = way.libraryAttempts().applyAsInt(alone.get(way, scenario, true).counted());
                libraryAttempts.put(id(way.name(), scenario, true), library);
                libraryAttempts.put(id(way.name(), scenario, false), 1);
                System.out.println("LAYERS library=" + app.library() + " layer=" + (way.layer() ? app.layer() : "none")
                        + " way=" + way.name() + " scenario=" + scenario.label + " libraryAttempts=" + library
                        + " alone=" + cell(alone.get(way, scenario, true))
                        + " defer=" + cell(runs.get(Setting.DEFER).get(way, scenario, true))
                        + " retry=" + cell(runs.get(Setting.RETRY).get(way, scenario, true))
                        + " retriesOff=" + (way.retriesOff() ? cell(runs.get(Setting.DEFER).get(way, scenario, false))
                        : "-"));
            }
        }
        System.out.println("LAYERS library=" + app.library() + " upperLayerCalls defer="
                + runs.get(Setting.DEFER).upperLayerCalls() + " retry=" + runs.get(Setting.RETRY).upperLayerCalls());
        for (Run run : runs.values()) {
            check(app, run, libraryAttempts);
        }
        return new Runs(runs);
    }

    private static String cell(Measured m) {
        return m.requests() + "(" + m.status() + (m.error().equals("none") ? "" : "," + shortName(m.error())) + ")";
    }

    private static String shortName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    private static void check(App app, Run run, Map<String, Integer> libraryAttempts) {
        String describe = run.setting() + " " + run.byCall() + "\n" + run.result().describe();
        long inLayer = 0;
        long leftToLayer = 0;
        for (Way way : app.ways()) {
            for (Scenario scenario : way.scenarios(app)) {
                for (boolean retries : way.retries()) {
                    Counted counted = check(app, run, way, scenario, retries,
                            libraryAttempts.get(id(way.name(), scenario, retries)), describe);
                    inLayer += counted.inLayer();
                    leftToLayer += counted.leftToLayer();
                }
            }
        }
        if (run.setting() == Setting.ALONE) {
            assertEquals(-1, run.upperLayerCalls(), describe);
            return;
        }
        // The agent counted a call per attempt of the library (each one client call), and the MBean was read then.
        long total = run.byCall().values().stream().mapToInt(m -> m.seen().size()).sum();
        if (run.agentCounts().getLong("attempts") > 0) {
            assertEquals(run.agentCounts().getLong("attempts"), run.agentCounts().getLong("calls"), describe);
        }
        assertTrue(run.agentCounts().getLong("calls") <= total, describe);
        // Every call made inside a layer the rule defers to is counted, and none else.
        assertEquals(inLayer, run.upperLayerCalls(), "upper_layer_calls: " + describe);
        boolean logs = logged(run.result(), "reason=upper-layer", "layer=" + app.layer());
        assertEquals(leftToLayer > 0, logs, "reason=upper-layer layer=" + app.layer() + " logged: " + describe);
    }

    /** Of one call: the calls the agent saw made inside the layer, and whether an outcome was left to it. */
    private record Counted(int inLayer, int leftToLayer) {
    }

    /** Checks one call; answers what the agent counted of it and its warm-up inside the layer. */
    private static Counted check(App app, Run run, Way way, Scenario scenario, boolean retries, int configured,
                                 String describe) {
        boolean retriedByLibrary = !way.notRetried().contains(scenario);
        int library = retriedByLibrary ? configured : 1;
        boolean inLayer = run.setting() == Setting.DEFER && way.layer() && configured > 1;
        boolean deferred = inLayer && retriedByLibrary;
        boolean agentRetries = run.setting() != Setting.ALONE && !deferred;
        Measured m = run.get(way, scenario, retries);
        String what = app.library() + " " + run.setting() + " " + way.name() + " " + scenario.label
                + (retries ? "" : " (library retries off)") + ": " + m;
        int agent = agentRetries ? AGENT_ATTEMPTS : 1;
        switch (scenario) {
            case ALWAYS_503 -> {
                assertEquals(library * agent, m.requests(), what + "\n" + describe);
                assertEquals(503, m.status(), what);
            }
            case FLAKY, FLAKY_RETRY_AFTER, FLAKY_429 -> {
                int expected = Math.min(3, library * agent);
                if (run.setting() == Setting.ALONE && scenario == Scenario.FLAKY_RETRY_AFTER) {
                    assertTrue(m.requests() >= expected, what); // OkHttp resends a 503 with Retry-After: 0 once
                } else {
                    assertEquals(expected, m.requests(), what + "\n" + describe);
                }
                assertEquals(m.requests() == 3 ? 200 : scenario.errorStatus(), m.status(), what);
            }
            case OK -> {
                assertEquals(1, m.requests(), what);
                assertEquals(200, m.status(), what);
            }
            case DROPPED_GET, DROPPED_GET_REUSED -> {
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
        List<String> unmarked = m.markers().stream().map(marker -> "null").collect(Collectors.toList());
        List<String> numbered = IntStream.rangeClosed(1, m.requests()).mapToObj(String::valueOf)
                .collect(Collectors.toList());
        if (run.setting() == Setting.ALONE || scenario.method.equals("POST")) {
            assertEquals(unmarked, m.markers(), "unmarked: " + what);
        } else if (deferred) {
            // Each attempt of the library is a call of its own; marked when the agent may retry some outcome of it.
            assertEquals(way.leavesSome() ? Collections.nCopies(m.requests(), "1") : unmarked, m.markers(), what);
        } else if (inLayer || !retries) {
            assertEquals(numbered, m.markers(), "the agent's own attempts: " + what);
        }
        // A warm-up call inside the layer is made inside it as well.
        int calls = !inLayer ? 0 : deferred ? m.seen().size() : 1 + m.warm();
        return new Counted(calls, deferred && scenario != Scenario.OK ? 1 : 0);
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
