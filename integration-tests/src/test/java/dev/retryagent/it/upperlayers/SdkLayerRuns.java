package dev.retryagent.it.upperlayers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;

/**
 * Runs one application of {@code sdk-apps} (a library with a retry loop of its own above the HTTP client, SPEC 4.14)
 * in the four ways a layer is measured, one forked JVM each, every client and scenario against servers of its own:
 * the library alone (no agent), under {@code upperLayers: defer} and {@code retry} (policies that only shorten the
 * backoff), and with the library's own retries off (under defer). Then checks the counts against the library's own
 * attempts and the agent's, and prints one {@code TABLE} row per client and scenario.
 */
final class SdkLayerRuns {
    /** The agent's attempts per call under the policies here (the built-in {@code maxAttempts}). */
    static final int AGENT_ATTEMPTS = 3;
    static final String DEFER_POLICY = "version: 1\ndefaults:\n  backoff: { base: 10ms, cap: 20ms }\n";
    static final String RETRY_POLICY = DEFER_POLICY + "  upperLayers: retry\n";
    static final List<String> SCENARIOS = List.of("always503", "recover", "droppedGet", "droppedPost");

    enum Mode { ALONE, DEFER, RETRY, OFF }

    /** The directory with {@code sdk-apps.jar} and its class paths: {@code retry.agent.it.sdk-apps}. */
    static Path appsDir() {
        String configured = System.getProperty("retry.agent.it.sdk-apps");
        return configured != null && !configured.isBlank() ? Paths.get(configured)
                : Paths.get("sdk-apps", "target").toAbsolutePath();
    }

    private final String layer;
    private final String label;
    private final String mainClass;
    private final List<Path> classpath = new ArrayList<>();
    private final List<String> clients;
    private final int nodes;
    private final Step error;
    private final Step ok;

    /**
     * @param layer   the layer's name in the agent's log
     * @param label   the library and version, in the printed rows and the run directories' names
     * @param libs    the directories under {@link #appsDir()} whose jars make the application's class path
     * @param nodes   servers per call (the Elasticsearch client's nodes; 1 elsewhere), each with the same script
     * @param error   the library's 503 (with the body it needs to classify it)
     * @param ok      the library's 200
     */
    SdkLayerRuns(String layer, String label, String mainClass, List<String> libs, List<String> clients, int nodes, Step error, Step ok) {
        this.layer = layer;
        this.label = label;
        this.mainClass = mainClass;
        classpath.add(appsDir().resolve("sdk-apps.jar"));
        libs.forEach(l -> classpath.add(appsDir().resolve(l).resolve("*")));
        this.clients = clients;
        this.nodes = nodes;
        this.error = error;
        this.ok = ok;
    }

    private Step[] script(String scenario) {
        return switch (scenario) {
            case "always503" -> new Step[] {error};
            case "recover" -> new Step[] {error, error, ok};
            case "droppedGet", "droppedPost" -> new Step[] {Step.dropAfterRequest()};
            default -> throw new IllegalArgumentException(scenario);
        };
    }

    /** What one forked JVM saw: per client and scenario the requests (all nodes) and the RESULT line. */
    static final class Run {
        final Mode mode;
        final Map<String, List<RecordedRequest>> requests = new LinkedHashMap<>();
        final Map<String, ReportLine> results = new LinkedHashMap<>();
        ForkedApp.Result result;

        Run(Mode mode) {
            this.mode = mode;
        }

        int count(String client, String scenario) {
            return requests.get(client + "/" + scenario).size();
        }

        int status(String client, String scenario) {
            return Integer.parseInt(results.get(client + "/" + scenario).get("status"));
        }
    }

    Run run(Mode mode) {
        Run run = new Run(mode);
        List<ScriptedServer> servers = new ArrayList<>();
        Map<String, List<ScriptedServer>> byCall = new LinkedHashMap<>();
        try {
            List<String> args = new ArrayList<>(List.of("--retries", mode == Mode.OFF ? "off" : "on"));
            for (String client : clients) {
                for (String scenario : SCENARIOS) {
                    List<ScriptedServer> mine = new ArrayList<>();
                    for (int n = 0; n < nodes; n++) {
                        ScriptedServer s = ScriptedServer.start(script(scenario));
                        servers.add(s);
                        mine.add(s);
                    }
                    byCall.put(client + "/" + scenario, mine);
                    args.addAll(List.of("--call", client, scenario,
                            mine.stream().map(s -> s.url("")).map(u -> u.replaceAll("/$", ""))
                                    .collect(Collectors.joining(","))));
                }
            }
            if (mode != Mode.ALONE) {
                args.add("--mbean");
            }
            ForkedApp app = ForkedApp.of(mainClass).name(label + "-" + mode.name().toLowerCase())
                    .timeout(Duration.ofSeconds(120)).args(args);
            classpath.forEach(app::classpath);
            if (mode != Mode.ALONE) {
                app.policy(mode == Mode.RETRY ? RETRY_POLICY : DEFER_POLICY).agentArg("log", "debug");
            }
            run.result = app.run().assertExitCode(0);
            for (ReportLine line : run.result.results()) {
                run.results.put(line.get("client") + "/" + line.get("scenario"), line);
            }
            byCall.forEach((call, mine) -> {
                List<RecordedRequest> all = new ArrayList<>();
                mine.forEach(s -> all.addAll(s.requests()));
                run.requests.put(call, all);
            });
            return run;
        } finally {
            servers.forEach(ScriptedServer::close);
        }
    }

    /**
     * Runs the four ways and checks them. {@code libraryAttempts} says, from the run alone and the call, how many
     * attempts the library itself makes at most per call (its configuration or the attempt header it stamps).
     */
    Runs measureAndCheck(ToIntFunction<List<RecordedRequest>> libraryAttempts) {
        long start = System.nanoTime();
        Run alone = run(Mode.ALONE);
        Run defer = run(Mode.DEFER);
        Run retry = run(Mode.RETRY);
        Run off = run(Mode.OFF);
        List<String> failures = new ArrayList<>();
        for (String client : clients) {
            for (String scenario : SCENARIOS) {
                String call = client + "/" + scenario;
                int library = libraryAttempts.applyAsInt(alone.requests.get(call));
                boolean post = scenario.equals("droppedPost");
                int expectDefer = scenario.equals("recover") ? Math.min(library, 3) : library;
                int expectRetry = scenario.equals("recover") ? 3 : post ? library : library * AGENT_ATTEMPTS;
                int expectOff = post ? 1 : 3;
                System.out.printf("TABLE library=%s client=%s scenario=%s alone=%d defer=%d retry=%d retries-off=%d"
                                + " (library attempts %d; status alone=%d defer=%d retry=%d retries-off=%d)%n",
                        label, client, scenario, alone.count(client, scenario), defer.count(client, scenario),
                        retry.count(client, scenario), off.count(client, scenario), library,
                        alone.status(client, scenario), defer.status(client, scenario),
                        retry.status(client, scenario), off.status(client, scenario));
                check(failures, call + " defer", expectDefer, defer.count(client, scenario));
                check(failures, call + " retry", expectRetry, retry.count(client, scenario));
                check(failures, call + " retries-off", expectOff, off.count(client, scenario));
                if (scenario.equals("recover")) {
                    check(failures, call + " retry status", 200, retry.status(client, scenario));
                    check(failures, call + " retries-off status", 200, off.status(client, scenario));
                    check(failures, call + " defer status", library >= 3 ? 200 : 503, defer.status(client, scenario));
                }
                for (RecordedRequest r : defer.requests.get(call)) {
                    if (r.header("Retry-Attempt") != null) {
                        failures.add(call + " defer: a request inside the layer carries Retry-Attempt: " + r);
                    }
                }
                if (!post) {
                    check(failures, call + " retries-off markers", "1,2,3", off.requests.get(call).stream()
                            .map(r -> String.valueOf(r.header("Retry-Attempt"))).collect(Collectors.joining(",")));
                }
            }
        }
        String deferLog = String.join("\n", defer.result.agentLog());
        if (!deferLog.contains("reason=upper-layer layer=" + layer)) {
            failures.add("defer: no 'reason=upper-layer layer=" + layer + "' in the agent's log");
        }
        if (String.join("\n", off.result.agentLog()).contains("reason=upper-layer")) {
            failures.add("retries-off: the agent deferred to a layer whose retries are off");
        }
        if (String.join("\n", retry.result.agentLog()).contains("reason=upper-layer")) {
            failures.add("retry: the agent deferred under upperLayers: retry");
        }
        long mbean = Long.parseLong(defer.result.single("MBEAN").get("upperLayerCalls"));
        System.out.printf("TABLE library=%s upper_layer_calls defer=%d retry=%s retries-off=%s; %d ms for the four runs%n",
                label, mbean, retry.result.single("MBEAN").get("upperLayerCalls"),
                off.result.single("MBEAN").get("upperLayerCalls"), (System.nanoTime() - start) / 1_000_000);
        assertTrue(mbean > 0, "upper_layer_calls under defer: " + mbean);
        // Every request under defer is a call the agent left to the layer (the clients' hidden resends are off).
        assertEquals(defer.requests.values().stream().mapToInt(List::size).sum(), mbean, "upper_layer_calls");
        assertEquals("0", off.result.single("MBEAN").get("upperLayerCalls"), "upper_layer_calls with retries off");
        assertEquals(List.of(), failures);
        return new Runs(alone, defer, retry, off);
    }

    /** The four runs of {@link #measureAndCheck}, for a library's own checks. */
    record Runs(Run alone, Run defer, Run retry, Run off) {
    }

    private static void check(List<String> failures, String what, Object expected, Object actual) {
        if (!expected.equals(actual)) {
            failures.add(what + ": expected " + expected + ", was " + actual);
        }
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
