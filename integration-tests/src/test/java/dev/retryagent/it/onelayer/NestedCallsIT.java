package dev.retryagent.it.onelayer;

import static dev.retryagent.it.harness.Runs.logged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.apps.NestedCallsApp;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Policies;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * docs/reference.md#one-retry-layer, one retry layer in one JVM: instrumented calls nested in other instrumented calls
 * on the same thread ({@link NestedCallsApp}: an OkHttp interceptor's own HttpURLConnection call, sync and async; an
 * interceptor's own {@code enqueue} on another client; an OkHttp API whose transport is HttpClient 5). The destination
 * always answers 503, {@code maxAttempts: 3}: only the outermost call retries, so it sees 3 outer requests and at most
 * one inner request per outer attempt (3), never 3 x 3. The same with the marker header disabled: nesting is told by
 * the thread, not by the header.
 */
@Timeout(120)
class NestedCallsIT {
    private static final List<String> CASES = List.of("interceptor", "async-interceptor", "inner-async", "wrapper");

    @ParameterizedTest(name = "marker enabled: {0}")
    @ValueSource(booleans = {true, false})
    void onlyTheOutermostCallRetries(boolean marker) {
        Map<String, ScriptedServer> servers = new LinkedHashMap<>();
        try {
            List<String> args = new ArrayList<>();
            for (String name : CASES) {
                ScriptedServer server = ScriptedServer.start(Step.status(503).body("busy"));
                servers.put(name, server);
                args.addAll(List.of("--case", name + "=" + server.url("").replaceAll("/$", "")));
            }
            ForkedApp app = ForkedApp.of(NestedCallsApp.class).name("nested-marker-" + marker)
                    .clientLibs(ClientLibs.OKHTTP_5).policy(Policies.threeAttempts("marker: { enabled: " + marker + " }"))
                    .agentArg("log", "debug").args(args);
            ClientLibs.HTTPCLIENT5_NEWEST.jars().forEach(app::classpath);
            ForkedApp.Result run = app.run().assertExitCode(0);
            assertFalse(run.stderr().contains("internal-error"), run.describe());

            for (String name : CASES) {
                ScriptedServer server = servers.get(name);
                assertEquals(503, run.results().stream().filter(r -> name.equals(r.get("id"))).findFirst()
                        .orElseThrow().getInt("status"), run.describe());
                List<RecordedRequest> seen = server.requests();
                List<String> outer = markers(seen, name.equals("wrapper") ? "/wrapped" : "/outer");
                List<String> inner = markers(seen, "/inner");
                System.out.println("NESTED case=" + name + " marker=" + marker + " outer=" + outer.size()
                        + " inner=" + inner.size() + " markers[outer]=" + outer + " markers[inner]=" + inner);
                assertEquals(3, outer.size(), name + ": the outermost call retries: " + seen);
                if (name.equals("wrapper")) {
                    assertEquals(3, seen.size(), "the wrapper's transport sends each attempt once: " + seen);
                } else {
                    assertEquals(3, inner.size(), name + ": one inner call per outer attempt, never squared: " + seen);
                }
                List<String> expected = marker ? List.of("1", "2", "3") : List.of("null", "null", "null");
                assertEquals(expected, outer, name);
                if (!inner.isEmpty()) {
                    assertEquals(expected, inner, name + ": the inner call carries the outer attempt's number");
                }
            }
            for (String client : List.of("httpurlconnection", "okhttp")) {
                assertTrue(logged(run, "give up", "client=" + client, "path=/inner", "reason=nested"), run.describe());
            }
            assertTrue(logged(run, "give up", "client=apache-httpclient5", "path=/wrapped", "reason=nested"),
                    run.describe());
            assertTrue(logged(run, "give up", "client=okhttp", "path=/wrapped", "attempt=3/3", "reason=attempts"),
                    run.describe());
        } finally {
            servers.values().forEach(ScriptedServer::close);
        }
    }

    private static List<String> markers(List<RecordedRequest> seen, String path) {
        return seen.stream().filter(r -> r.target().equals(path)).map(r -> String.valueOf(r.header("Retry-Attempt")))
                .collect(Collectors.toList());
    }
}
