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
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/reference.md#one-retry-layer, the clients' hidden retries: a server that reads a request and closes the
 * connection without a byte of answer, on a fresh connection and on a reused keep-alive one (the first call on it
 * answered). Each client runs the same calls, one after the other, three times: without the agent (what the client does
 * alone, measured here), with {@code builtInRetries: replace} and with {@code keep}.
 *
 * <ul>
 *   <li>{@code replace}: a POST without key is seen exactly once by the server; a GET is recovered by the agent
 *       (its second request carries {@code Retry-Attempt: 2}).</li>
 *   <li>{@code keep}: the POST is sent exactly as often as without the agent; a GET succeeds.</li>
 * </ul>
 * The JDK's HttpURLConnection also gets a kept-alive connection the server closed while idle: its own resend of a
 * request no server has seen stays (the POST succeeds, seen once). Each run prints one {@code HIDDEN-RETRIES} line
 * with the counts.
 */
@Tag(Jdks.MATRIX)
@Timeout(300)
class HiddenRetriesIT {

    enum Mode { NONE, REPLACE, KEEP }

    /** One client as the test runs it: its batch application, the modes to run and the application's own options. */
    record Client(String name, BatchTarget target, List<Mode> modes, List<String> appArgs) {
        Client(String name, BatchTarget target, List<Mode> modes) {
            this(name, target, modes, List.of());
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /**
     * Every client on the test JDK; on the other JDKs the JDK's own clients in every mode and the libraries under
     * {@code replace}.
     */
    static Stream<Client> clients() {
        List<Mode> all = List.of(Mode.NONE, Mode.REPLACE, Mode.KEEP);
        List<Client> clients = new ArrayList<>();
        int own = Jdks.testJdk().version();
        for (Jdks.Jdk jdk : Jdks.of(Jdks.ALL)) {
            String on = jdk.version() == own ? "" : "-" + jdk;
            List<Mode> libraryModes = jdk.version() == own ? all : List.of(Mode.REPLACE);
            List<Mode> replace = List.of(Mode.REPLACE);
            clients.add(new Client("okhttp-5" + on, BatchTarget.okhttp(ClientLibs.OKHTTP_5, jdk), libraryModes));
            clients.add(new Client("okhttp-4.12" + on, BatchTarget.okhttp(ClientLibs.OKHTTP_4, jdk), replace));
            clients.add(new Client("httpclient5-5.6" + on, BatchTarget.httpClient5(ClientLibs.HTTPCLIENT5_NEWEST, jdk),
                    libraryModes));
            clients.add(new Client("httpclient5-5.2" + on, BatchTarget.httpClient5(ClientLibs.HTTPCLIENT5_OLDEST, jdk),
                    replace));
            clients.add(new Client("httpclient4-4.5.14" + on,
                    BatchTarget.httpClient4(ClientLibs.HTTPCLIENT4_NEWEST, jdk), libraryModes));
            clients.add(new Client("httpclient4-4.5.6" + on,
                    BatchTarget.httpClient4(ClientLibs.HTTPCLIENT4_OLDEST, jdk), replace));
            clients.add(new Client("jdk-" + jdk, BatchTarget.httpUrlConnection(jdk), all));
            if (jdk.hasJavaNetHttp()) {
                // java.net.http over HTTP/1.1, alone as configured by default and with enableAllMethodRetry
                clients.add(new Client("jdk-httpclient-" + jdk, BatchTarget.jdkHttpClient(jdk), all,
                        List.of("--call-parts", "client=h1")));
                clients.add(new Client("jdk-httpclient-allmethods-" + jdk, BatchTarget.jdkHttpClient(jdk), all,
                        List.of("--all-method-retry", "--call-parts", "client=h1")));
            }
        }
        return clients.stream();
    }

    /** The scenarios, each against a server of its own. */
    static final class Servers implements AutoCloseable {
        final ScriptedServer postFresh = ScriptedServer.start(Step.dropAfterRequest());
        final ScriptedServer postReused = ScriptedServer.start(Step.ok().body("first"), Step.dropAfterRequest(),
                Step.ok().body("third"));
        final ScriptedServer getFresh = ScriptedServer.start(Step.dropAfterRequest(), Step.ok().body("second"));
        final ScriptedServer getReused = ScriptedServer.start(Step.ok().body("first"), Step.dropAfterRequest(),
                Step.ok().body("third"));
        /** The first answer closes the connection unannounced: the client keeps a connection that is dead already. */
        final ScriptedServer postStale = ScriptedServer.start(Step.ok().body("first").closeAfterResponse(),
                Step.ok().body("second"));
        /** Answers once postStale has closed that connection: the second POST goes to a connection closed already. */
        final ScriptedServer staleGate = ScriptedServer.start(Step.ok().body("closed").after(postStale.firstConnectionClosed()));

        /** The calls, in order; "1" and "2" of a scenario go over one kept-alive connection when it lasts. */
        List<String> args() {
            List<String> args = new ArrayList<>(List.of("--sequential"));
            for (String call : List.of(
                    call("postFresh", postFresh, "method=POST;body=once"),
                    call("postReused1", postReused, "method=POST;body=one"),
                    call("postReused2", postReused, "method=POST;body=once"),
                    call("getFresh", getFresh, "method=GET"),
                    call("getReused1", getReused, "method=GET"),
                    call("getReused2", getReused, "method=GET"),
                    call("postStale1", postStale, "method=POST;body=one"),
                    call("staleGate", staleGate, "method=GET"),
                    call("postStale2", postStale, "method=POST;body=once"))) {
                args.addAll(List.of("--call", call));
            }
            return args;
        }

        private static String call(String id, ScriptedServer server, String more) {
            return "id=" + id + ";url=" + server.url("/" + id.replaceAll("[0-9]$", "")) + ";" + more;
        }

        @Override
        public void close() {
            Stream.of(postFresh, postReused, getFresh, getReused, postStale, staleGate).forEach(ScriptedServer::close);
        }
    }

    /** What one run measured. */
    record Measured(ForkedApp.Result run, Servers servers) {
        ReportLine result(String id) {
            return Runs.result(run, id);
        }

        boolean ok(String id) {
            return Runs.ok(run, id);
        }

        /** How many requests the server saw for the call, the answered first call of a reused connection aside. */
        static int sends(ScriptedServer server, boolean reused) {
            return server.requestCount() - (reused ? 1 : 0);
        }

        static String markers(ScriptedServer server) {
            return server.requests().stream().map(r -> String.valueOf(r.header("Retry-Attempt")))
                    .collect(Collectors.joining(","));
        }

        String line(Client client, Mode mode) {
            Servers s = servers;
            return "HIDDEN-RETRIES client=" + client + " mode=" + mode.name().toLowerCase()
                    + " postFresh=" + sends(s.postFresh, false) + (ok("postFresh") ? "(ok)" : "(failed)")
                    + " postReused=" + sends(s.postReused, true) + (ok("postReused2") ? "(ok)" : "(failed)")
                    + " getFresh=" + sends(s.getFresh, false) + (ok("getFresh") ? "(ok)" : "(failed)")
                    + " getReused=" + sends(s.getReused, true) + (ok("getReused2") ? "(ok)" : "(failed)")
                    + " postStale=" + sends(s.postStale, true) + (ok("postStale2") ? "(ok)" : "(failed)")
                    + " markers[getFresh]=" + markers(s.getFresh) + " markers[getReused]=" + markers(s.getReused);
        }
    }

    private static Measured run(Client client, Mode mode, Servers servers) {
        String policy = mode == Mode.NONE ? null
                : Policies.threeAttempts("builtInRetries: " + mode.name().toLowerCase());
        ForkedApp app = client.target().app("hidden-" + client + "-" + mode, policy).args(servers.args())
                .args(client.appArgs());
        ForkedApp.Result run = app.run().assertExitCode(0);
        assertTrue(!run.stderr().contains("internal-error"), run.describe());
        return new Measured(run, servers);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("clients")
    void aRequestIsSentTwiceOnlyWhenThePolicyWouldRetryIt(Client client) {
        Map<Mode, Measured> measured = new EnumMap<>(Mode.class);
        List<Servers> open = new ArrayList<>();
        try {
            for (Mode mode : client.modes()) {
                Servers servers = new Servers();
                open.add(servers);
                Measured m = run(client, mode, servers);
                measured.put(mode, m);
                System.out.println(m.line(client, mode));
            }
            Measured replace = measured.get(Mode.REPLACE);
            Servers s = replace.servers();
            String describe = replace.run().describe();
            // replace: the POST without key is seen once, on a fresh and on a reused connection
            assertEquals(1, Measured.sends(s.postFresh, false), "POST, fresh connection: " + s.postFresh.requests());
            assertEquals(1, Measured.sends(s.postReused, true), "POST, reused connection: " + s.postReused.requests());
            assertTrue(replace.result("postFresh").has("failure"), describe);
            assertTrue(replace.result("postReused2").has("failure"), describe);
            assertTrue(replace.ok("postReused1"), describe);
            // ... and a GET is recovered by the agent, within the policy
            assertTrue(replace.ok("getFresh"), describe);
            assertEquals("1,2", Measured.markers(s.getFresh), "the agent's retry: " + s.getFresh.requests());
            assertTrue(replace.ok("getReused2"), describe);
            assertEquals("1,1,2", Measured.markers(s.getReused), "the agent's retry: " + s.getReused.requests());
            assertTrue(logged(replace, "retry", "path=/getFresh", "cause=failure:reset"), describe);
            assertTrue(logged(replace, "give up", "path=/postFresh", "reason=not-idempotent"), describe);
            List<RecordedRequest> reused = s.getReused.requests();
            assertEquals(reused.get(0).connectionId(), reused.get(1).connectionId(), "the second call reused the connection");
            if (client.target().client().equals("httpurlconnection")) {
                // the JDK's resend after a kept-alive connection died while idle stays: the POST went out once
                assertTrue(replace.ok("postStale2"), describe);
                assertEquals(1, Measured.sends(s.postStale, true), s.postStale.requests().toString());
                // ... found without the JDK's 1 ms check: the socket is polled, not read with a timeout
                assertFalse(logged(replace, "idle-connection-check"), describe);
            }

            Measured none = measured.get(Mode.NONE);
            Measured keep = measured.get(Mode.KEEP);
            if (none != null && keep != null) {
                // keep: the clients' own behaviour for the POST the policy would not retry, as measured without agent
                assertEquals(Measured.sends(none.servers().postFresh, false), Measured.sends(keep.servers().postFresh, false),
                        "keep, POST fresh");
                assertEquals(Measured.sends(none.servers().postReused, true),
                        Measured.sends(keep.servers().postReused, true), "keep, POST reused");
                assertEquals(none.ok("postReused2"), keep.ok("postReused2"));
                assertTrue(keep.ok("getFresh") && keep.ok("getReused2"), keep.run().describe());
                assertTrue(none.servers().postFresh.requests().stream().allMatch(r -> r.header("Retry-Attempt") == null));
            }
        } finally {
            open.forEach(Servers::close);
        }
    }

    private static boolean logged(Measured m, String... parts) {
        return m.run().agentLog().stream().anyMatch(line -> Stream.of(parts).allMatch(line::contains));
    }
}
