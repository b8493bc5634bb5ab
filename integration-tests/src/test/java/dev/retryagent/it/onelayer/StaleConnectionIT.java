package dev.retryagent.it.onelayer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import org.junit.jupiter.api.Tag;

import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.Policies;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.Runs;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/reference.md#one-retry-layer with {@code builtInRetries: replace}: a keep-alive connection that answered one
 * request and then answers the next one on the SAME connection with something that is not a response (bytes that are
 * not HTTP, a status line without a status code, the first bytes of a status line) and closes. That is a stale
 * connection, failure kind {@code reset} for every client that says the connection was reused: the agent recovers a GET
 * (a second attempt, on a new connection, markers {@code 1,2}) and the caller sees the 200; a POST without key is sent
 * once and the caller sees the client's own failure. java.net.http does not say it: there only the partial status line
 * (a reset for it on any connection) is recovered, and the rest fails once with the client's own exception, as without
 * the agent. The same garbage as the first answer of a new connection is the server's own answer: sent once, except by
 * HttpClient 5 classic, which resends a GET after it alone, and so does the agent in its place.
 *
 * <p>Each client also runs the same calls without the agent, which is what the client does alone (printed, one
 * {@code STALE} line per run; asserted only where the replace rule depends on it: nothing the client recovers alone
 * is lost under the agent).
 */
@Tag(Jdks.MATRIX)
@Timeout(300)
class StaleConnectionIT {

    /**
     * One client as the test runs it: its batch application, the call variants of one JVM, and the faults on a reused
     * connection the agent recovers a GET from (all, but for java.net.http).
     */
    record Client(String name, BatchTarget target, List<String> variants, Set<Fault> recovered) {
        Client(String name, BatchTarget target, List<String> variants) {
            this(name, target, variants, EnumSet.allOf(Fault.class));
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /**
     * Every client on the test JDK; the newest of each library and the JDK's own clients on the other JDKs (the same
     * library meets another socket layer under it there).
     */
    static Stream<Client> clients() {
        List<String> modes = List.of("mode=sync", "mode=async");
        List<String> apis = List.of("api=classic", "api=async");
        List<Client> clients = new ArrayList<>();
        int own = Jdks.testJdk().version();
        for (Jdks.Jdk jdk : Jdks.of(Jdks.ALL)) {
            String on = jdk.version() == own ? "" : "-" + jdk;
            clients.add(new Client("okhttp-5" + on, BatchTarget.okhttp(ClientLibs.OKHTTP_5, jdk), modes));
            clients.add(new Client("httpclient5-5.6" + on, BatchTarget.httpClient5(ClientLibs.HTTPCLIENT5_NEWEST, jdk),
                    apis));
            if (jdk.version() == own) {
                clients.add(new Client("okhttp-4.12", BatchTarget.okhttp(ClientLibs.OKHTTP_4, jdk),
                        List.of("mode=sync")));
                clients.add(new Client("httpclient5-5.2", BatchTarget.httpClient5(ClientLibs.HTTPCLIENT5_OLDEST, jdk),
                        apis));
            }
            clients.add(new Client("httpclient4-4.5.14" + on,
                    BatchTarget.httpClient4(ClientLibs.HTTPCLIENT4_NEWEST, jdk), apis));
            clients.add(new Client("jdk-" + jdk, BatchTarget.httpUrlConnection(jdk), List.of("")));
            if (jdk.hasJavaNetHttp()) {
                // java.net.http does not say whether a connection was reused: garbage and a bad status line are its
                // ProtocolException (other); a partial status line is "EOF reached while reading", a reset
                clients.add(new Client("jdk-httpclient-" + jdk, BatchTarget.jdkHttpClient(jdk), modes,
                        EnumSet.of(Fault.PARTIAL)));
            }
        }
        return clients.stream();
    }

    /** What the second request on the connection gets. */
    enum Fault {
        GARBAGE(Step::garbage), MALFORMED(Step::malformedStatusLine), PARTIAL(Step::partialStatusLine);

        final Supplier<Step> step;

        Fault(Supplier<Step> step) {
            this.step = step;
        }
    }

    /** One scenario: a method, a fault, a call variant; two calls over one connection, each to a server of its own. */
    record Scenario(String method, Fault fault, String variant, ScriptedServer server) {
        String id() {
            return method.toLowerCase() + fault.name().toLowerCase() + variant.replaceAll("[^a-z]", "");
        }

        /** The answered first call, then the one that meets the fault on the same connection. */
        List<String> calls() {
            if (fresh()) {
                return List.of("id=" + id() + ";url=" + server.url("/" + id()) + ";method=GET"
                        + (variant.isEmpty() ? "" : ";" + variant));
            }
            String common = "url=" + server.url("/" + id()) + ";method=" + method
                    + ("POST".equals(method) ? ";body=once" : "") + (variant.isEmpty() ? "" : ";" + variant);
            // HttpClient 5 async completes the application's future before the connection is back in the pool: the
            // second call waits a moment, or it may lease a new connection (then nothing is stale and the assertion
            // that both calls shared one connection fails, it does not pass by chance). 300 ms against microseconds.
            String wait = variant.equals("api=async") ? ";startAfterMs=300" : "";
            return List.of("id=" + id() + "1;" + common, "id=" + id() + "2;" + common + wait);
        }

        /** Requests of the second call (the first call's one answered request aside). */
        int sends() {
            return server.requestCount() - (fresh() ? 0 : 1);
        }

        /** The fault on the first request of a fresh connection: the server's own answer, not a stale connection. */
        boolean fresh() {
            return method.equals("FRESH");
        }

        String markers() {
            return server.requests().stream().map(r -> String.valueOf(r.header("Retry-Attempt")))
                    .collect(Collectors.joining(","));
        }
    }

    static final class Servers implements AutoCloseable {
        final Map<String, Scenario> scenarios = new LinkedHashMap<>();

        Servers(Client client) {
            for (String variant : client.variants()) {
                for (Fault fault : Fault.values()) {
                    for (String method : List.of("GET", "POST")) {
                        Scenario s = new Scenario(method, fault, variant, ScriptedServer.start(Step.ok().body("first"),
                                fault.step.get(), Step.ok().body("third")));
                        scenarios.put(s.id(), s);
                    }
                }
                Scenario fresh = new Scenario("FRESH", Fault.GARBAGE, variant,
                        ScriptedServer.start(Step.garbage(), Step.ok().body("second")));
                scenarios.put(fresh.id(), fresh);
            }
        }

        List<String> args() {
            List<String> args = new ArrayList<>(List.of("--sequential"));
            scenarios.values().forEach(s -> s.calls().forEach(c -> args.addAll(List.of("--call", c))));
            return args;
        }

        @Override
        public void close() {
            scenarios.values().forEach(s -> s.server().close());
        }
    }

    record Measured(ForkedApp.Result run, Servers servers) {
        ReportLine result(String id) {
            return Runs.result(run, id);
        }

        boolean ok(String id) {
            return Runs.ok(run, id);
        }

        String outcome(Scenario s) {
            String id = s.fresh() ? s.id() : s.id() + "2";
            ReportLine r = result(id);
            return s.sends() + (ok(id) ? "(ok)" : r.has("failure") ? "(" + shortName(r.get("failure")) + ")"
                    : "(status " + r.getOrNull("status") + ")");
        }

        String line(Client client, boolean agent) {
            return "STALE client=" + client + " agent=" + (agent ? "replace" : "none") + " "
                    + servers.scenarios.values().stream().map(s -> s.id() + "=" + outcome(s))
                    .collect(Collectors.joining(" "));
        }
    }

    private static String shortName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    private static Measured run(Client client, boolean agent, Servers servers) {
        ForkedApp app = client.target().app("stale-" + client + "-" + (agent ? "replace" : "none"),
                agent ? Policies.threeAttempts("builtInRetries: replace") : null).args(servers.args());
        ForkedApp.Result run = app.run().assertExitCode(0);
        assertFalse(run.stderr().contains("internal-error"), run.describe());
        return new Measured(run, servers);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("clients")
    void aStaleConnectionIsAResetUnderReplace(Client client) {
        try (Servers alone = new Servers(client); Servers replace = new Servers(client)) {
            Measured none = run(client, false, alone);
            System.out.println(none.line(client, false));
            Measured agent = run(client, true, replace);
            System.out.println(agent.line(client, true));
            String describe = agent.run().describe();
            for (Scenario s : replace.scenarios.values()) {
                String id = s.id();
                if (s.fresh()) {
                    // garbage as the first answer of a new connection is what the server says: the agent retries it
                    // only where the client alone does (HttpClient 5 classic resends a GET after it)
                    if (none.ok(id)) {
                        assertTrue(agent.ok(id), id + ": recovered alone, so under the agent too\n" + describe);
                        assertEquals("1,2", s.markers(), id + ": the agent's retry " + s.server().requests());
                    } else {
                        assertEquals(1, s.sends(), id + ": sent once " + s.server().requests());
                        assertTrue(agent.result(id).has("failure"), id + "\n" + describe);
                        assertFalse(logged(agent, "retry-agent retry ", "path=/" + id + " "), id + ": no retry\n" + describe);
                    }
                    continue;
                }
                assertTrue(agent.ok(id + "1"), id + "1 answered\n" + describe);
                List<RecordedRequest> seen = s.server().requests();
                assertEquals(seen.get(0).connectionId(), seen.get(1).connectionId(),
                        id + ": the second call went over the first call's connection " + seen);
                ReportLine aloneSaw = none.result(id + "2");
                if (aloneSaw.has("status") && !none.ok(id + "2")) {
                    // the client reads the bytes as a response of its own (the JDK: "HTTP/1.1 20" is status 20): a
                    // response, not a failure, and the caller gets it as without the agent, sent once
                    assertEquals(aloneSaw.getInt("status"), agent.result(id + "2").getInt("status"), id + "\n" + describe);
                    assertEquals(1, s.sends(), id + ": sent once " + seen);
                } else if (s.method().equals("GET") && client.recovered().contains(s.fault())) {
                    assertTrue(agent.ok(id + "2"), id + " recovered by the agent\n" + describe);
                    assertEquals("third", agent.result(id + "2").get("body"), describe);
                    assertEquals("1,1,2", s.markers(), id + ": the agent's retry " + seen);
                    assertTrue(seen.get(2).connectionId() != seen.get(1).connectionId(),
                            id + ": the retry went over a new connection " + seen);
                    assertTrue(logged(agent, "retry-agent retry ", "path=/" + id + " ", "cause=failure:reset"), id + "\n" + describe);
                } else {
                    // a POST without key, or a GET the agent cannot tell met a stale connection: sent once
                    assertEquals(1, s.sends(), id + ": sent once " + seen);
                    assertTrue(agent.result(id + "2").has("failure"), id + " fails as without a retry\n" + describe);
                    assertFalse(logged(agent, "retry-agent retry ", "path=/" + id + " "), id + ": no retry\n" + describe);
                    if (s.method().equals("GET")) {
                        assertEquals(aloneSaw.getOrNull("failure"), agent.result(id + "2").get("failure"),
                                id + ": the client's own failure, as alone\n" + describe);
                    }
                }
                // what the client recovers alone, the agent recovers too
                Scenario same = alone.scenarios.get(id);
                if (none.ok(id + "2") && s.method().equals("GET")) {
                    assertTrue(agent.ok(id + "2"), id + ": recovered alone, so under the agent too\n" + describe);
                }
                assertTrue(same.server().requests().stream().allMatch(r -> r.header("Retry-Attempt") == null));
            }
        }
    }

    private static boolean logged(Measured m, String... parts) {
        return m.run().agentLog().stream().anyMatch(line -> Stream.of(parts).allMatch(line::contains));
    }
}
