package dev.retryagent.it.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** What the client ITs read from a forked run and its servers, and how they open servers for one. */
public final class Runs {
    private Runs() {
    }

    /** The one {@code RESULT} line of the call {@code id}; fails the test unless there is exactly one. */
    public static ReportLine result(ForkedApp.Result run, String id) {
        List<ReportLine> found = run.results().stream().filter(r -> id.equals(r.getOrNull("id"))).toList();
        assertEquals(1, found.size(), "one RESULT for " + id + "\n" + run.describe());
        return found.get(0);
    }

    /** Whether the call {@code id} ended with a 200. */
    public static boolean ok(ForkedApp.Result run, String id) {
        ReportLine result = result(run, id);
        return result.has("status") && result.getInt("status") == 200;
    }

    /** The {@code Retry-Attempt} marker of each request, in order (null where a request had none). */
    public static List<String> markers(List<RecordedRequest> requests) {
        return requests.stream().map(r -> r.header("Retry-Attempt")).collect(Collectors.toList());
    }

    /** The app's {@code APP} line names the version of {@code libs} (nothing to check for null: the test's own). */
    public static void assertVersion(ForkedApp.Result run, ClientLibs libs) {
        if (libs != null) {
            assertEquals(libs.version(), run.single("APP").get("version"), "the intended client version ran\n" + run);
        }
    }

    /** Each async call of the run was called back exactly once ({@code CALLBACKS} lines). */
    public static void assertOneCallbackEach(ForkedApp.Result run) {
        for (ReportLine callbacks : run.lines("CALLBACKS")) {
            assertEquals(1, callbacks.getInt("count"), "exactly one callback: " + callbacks);
        }
    }

    /** Whether one line of the agent's log contains every one of {@code parts}. */
    public static boolean logged(ForkedApp.Result run, String... parts) {
        return run.agentLog().stream().anyMatch(line -> Stream.of(parts).allMatch(line::contains));
    }

    /** Starts a server that answers with {@code steps}, and adds it to {@code closer}. */
    public static ScriptedServer open(List<AutoCloseable> closer, Step... steps) {
        ScriptedServer server = ScriptedServer.start(steps);
        closer.add(server);
        return server;
    }
}
