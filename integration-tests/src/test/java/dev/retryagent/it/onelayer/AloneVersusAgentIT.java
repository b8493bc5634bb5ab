package dev.retryagent.it.onelayer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.apps.RecoveriesApp;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import dev.retryagent.it.harness.TlsMaterial;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/reference.md#the-clients-own-retries, never worse than the client alone: every client runs every
 * {@link #CASES case} of a recovery a client may make on its own, a GET and a POST without key each, three times:
 * alone, under the built-in policy ({@code builtInRetries: replace}) and under {@code builtInRetries: keep}. It prints
 * one {@code ALONE-VS-AGENT} line per call with the caller's outcome and the requests the server saw in each mode,
 * and fails when the agent's outcome is worse than the client's alone:
 * <ul>
 *   <li>an error, or another status, where the client alone succeeded;</li>
 *   <li>another exception type (or wrapping) where both fail;</li>
 *   <li>a request sent again against the policy: a POST without key seen more often than alone; under {@code keep}
 *       seen exactly as often as alone; a GET under {@code replace} seen no more often than alone or the policy's
 *       three attempts.</li>
 * </ul>
 * The one difference allowed is the one {@code replace} exists for: a POST without key that the client alone sent
 * again after a server had read it (its success came from that second send) is sent once, and the caller gets what
 * the first send got.
 *
 * <p>Every library on the test JDK (the CI's Java 17 and 25 passes), and on Java 8 and 11 where this run has them.
 */
@Timeout(900)
class AloneVersusAgentIT {

    enum Mode { ALONE, REPLACE, KEEP }

    /** How a case's server is reached. */
    enum Route {
        /** Straight to the server. */
        DIRECT,
        /**
         * A host name whose first address (127.0.0.1) refuses and whose second (127.0.0.2) serves, from the hosts file
         * the JVM's resolver reads (Reactor Netty's clients resolve with it for this route).
         */
        SECOND_ADDRESS,
        /** The default {@code ProxySelector} answers {@code [dead proxy, DIRECT]}. */
        DEAD_PROXY_FIRST,
        /** A TLS 1.2-only server; OkHttp's first connection spec offers TLS 1.3 only. */
        TLS_FALLBACK,
        /** The call goes out on a pooled connection the server has closed. */
        STALE_POOLED
    }

    /** A recovery a client may make on its own: how its server is reached and what the server answers. */
    record Case(String name, Route route, Supplier<List<Step>> steps) {
    }

    static final List<Case> CASES = List.of(
            new Case("first-address-refuses", Route.SECOND_ADDRESS, () -> List.of(Step.ok())),
            new Case("dead-proxy-first", Route.DEAD_PROXY_FIRST, () -> List.of(Step.ok())),
            new Case("tls-needs-fallback", Route.TLS_FALLBACK, () -> List.of(Step.ok())),
            new Case("stale-pooled-connection", Route.STALE_POOLED, () -> List.of(Step.ok())),
            new Case("dropped-after-read", Route.DIRECT, () -> List.of(Step.dropAfterRequest(), Step.ok())),
            new Case("408", Route.DIRECT, () -> List.of(Step.status(408), Step.ok())),
            new Case("503-retry-after-0", Route.DIRECT,
                    () -> List.of(Step.status(503).header("Retry-After", "0"), Step.ok())));

    static final List<String> METHODS = List.of("GET", "POST");
    static final String TWO_ADDRESSES = "two-addresses.test";

    /** A client library as one JVM on {@code jdk} loads it, and the kits of its APIs. */
    record Library(String name, ClientLibs libs, List<String> apis, Jdks.Jdk jdk) {
        @Override
        public String toString() {
            return name + (jdk.version() == Jdks.testJdk().version() ? "" : "-" + jdk);
        }

        /** The cases this JDK can set up: Java 8 has no hosts file ({@code jdk.net.hosts.file}) to give a name two addresses. */
        boolean runs(Case kase) {
            return kase.route() != Route.SECOND_ADDRESS || jdk.version() >= 9;
        }
    }

    /** Every library on the test JDK, and on Java 8 and 11 where this run has them. */
    static Stream<Library> libraries() {
        List<Jdks.Jdk> jdks = new ArrayList<>(List.of(Jdks.testJdk()));
        jdks.addAll(Jdks.besides(8, 11));
        return jdks.stream().flatMap(jdk -> Stream.of(
                new Library("okhttp-4.12", ClientLibs.OKHTTP_4, List.of("okhttp", "okhttp-async"), jdk),
                new Library("okhttp-5", ClientLibs.OKHTTP_5, List.of("okhttp", "okhttp-async"), jdk),
                new Library("httpclient5", ClientLibs.HTTPCLIENT5_NEWEST, List.of("hc5-classic", "hc5-async"), jdk),
                new Library("httpclient4", ClientLibs.HTTPCLIENT4_NEWEST, List.of("hc4-classic", "hc4-async"), jdk),
                new Library("jdk", ClientLibs.NONE, jdk.hasJavaNetHttp()
                        ? List.of("huc", "jdk-httpclient", "jdk-httpclient-async") : List.of("huc"), jdk),
                new Library("reactor-netty", jdk.version() >= 17 ? ClientLibs.SPRING_WEBFLUX_6_2
                        : ClientLibs.SPRING_WEBFLUX_5_3, List.of("reactor-netty", "reactor-netty-async",
                        "reactor-netty-webclient", "reactor-netty-webclient-async"), jdk)));
    }

    /** One measured call: its server, and the requests it saw before the call (a stale connection's first answer). */
    record Probe(String id, String api, Case kase, String method, ScriptedServer server, int before) {
        int seen() {
            return server.requestCount() - before;
        }
    }

    /** The servers and calls of one run; each run gets its own, so that nothing carries over between modes. */
    static final class Run implements AutoCloseable {
        final List<ScriptedServer> servers = new ArrayList<>();
        final List<Probe> probes = new ArrayList<>();
        final List<String> calls = new ArrayList<>();
        /** Sockets bound, never listening, on 127.0.0.1 at the ports of the servers on 127.0.0.2. */
        final List<Socket> refusing = new ArrayList<>();
        final int deadProxy = ScriptedServer.refusingPort();

        Run(Library library) {
            for (String api : library.apis()) {
                for (Case kase : CASES.stream().filter(library::runs).toList()) {
                    for (String method : METHODS) {
                        add(api, kase, method);
                    }
                }
            }
        }

        private void add(String api, Case kase, String method) {
            String id = api + "/" + kase.name() + "/" + method;
            Step[] steps = kase.steps().get().toArray(new Step[0]);
            ScriptedServer server = switch (kase.route()) {
                case SECOND_ADDRESS -> onSecondAddress(steps);
                case TLS_FALLBACK -> ScriptedServer.startTls(TlsMaterial.shared(), List.of("TLSv1.2"), steps);
                case STALE_POOLED -> ScriptedServer.start(Stream.concat(
                        Stream.of(Step.ok().body("first").closeAfterResponse()), Stream.of(steps)).toArray(Step[]::new));
                default -> ScriptedServer.start(steps);
            };
            servers.add(server);
            String url = server.url("/" + kase.name());
            String route = "";
            int before = 0;
            switch (kase.route()) {
                case SECOND_ADDRESS -> {
                    url = url.replace(server.host(), TWO_ADDRESSES);
                    route = ";route=jvm-resolver";
                }
                case DEAD_PROXY_FIRST -> route = ";route=dead-proxy-first";
                case TLS_FALLBACK -> route = ";route=tls-fallback";
                case STALE_POOLED -> {
                    // the first answer closes its connection unannounced; the call waits until it is closed
                    ScriptedServer gate = ScriptedServer.start(Step.ok().after(server.firstConnectionClosed()));
                    servers.add(gate);
                    calls.add(call(id + "/first", api, server.url("/first"), "GET", ""));
                    calls.add(call(id + "/gate", api, gate.url("/gate"), "GET", ""));
                    before = 1;
                }
                default -> {
                }
            }
            calls.add(call(id, api, url, method, route));
            probes.add(new Probe(id, api, kase, method, server, before));
        }

        /**
         * A server on 127.0.0.2 whose port on 127.0.0.1 refuses: held there by a socket bound and never listening, so
         * that no other server of the run, which binds 127.0.0.1, is given the same port by chance.
         */
        private ScriptedServer onSecondAddress(Step[] steps) {
            while (true) {
                ScriptedServer server = ScriptedServer.startAt(address("127.0.0.2"), steps);
                Socket hold = new Socket();
                try {
                    hold.bind(new InetSocketAddress(address("127.0.0.1"), server.port()));
                    refusing.add(hold);
                    return server;
                } catch (IOException taken) {
                    server.close();
                    closeQuietly(hold);
                }
            }
        }

        private static String call(String id, String api, String url, String method, String route) {
            return "id=" + id + ";client=" + api + ";url=" + url + ";method=" + method + route;
        }

        List<String> args() {
            List<String> args = new ArrayList<>(List.of("--dead-proxy", String.valueOf(deadProxy)));
            calls.forEach(c -> args.addAll(List.of("--call", c)));
            return args;
        }

        @Override
        public void close() {
            servers.forEach(ScriptedServer::close);
            refusing.forEach(Run::closeQuietly);
        }

        private static void closeQuietly(Socket socket) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // a socket that never connected
            }
        }
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What the caller got ({@code 200}, or the failure's class) and how many requests the server saw. */
    record Outcome(String result, int seen) {
        boolean ok() {
            return result.startsWith("2");
        }

        boolean failed() {
            return !Character.isDigit(result.charAt(0));
        }

        @Override
        public String toString() {
            return result + " (" + seen + ")";
        }
    }

    private static Map<String, Outcome> run(Library library, Mode mode, Path hosts) {
        try (Run run = new Run(library)) {
            ForkedApp app = ForkedApp.of(RecoveriesApp.class).name("alone-vs-agent-" + library + "-" + mode)
                    .clientLibs(library.libs()).java(library.jdk().java()).args(run.args())
                    .sysProp("jdk.net.hosts.file", hosts.toString())
                    .sysProps(TlsMaterial.shared().clientSystemProperties());
            if (mode == Mode.REPLACE) {
                app.withAgent();
            } else if (mode == Mode.KEEP) {
                app.policy("version: 1\nbuiltInRetries: keep\n");
            }
            ForkedApp.Result result = app.run().assertExitCode(0);
            assertTrue(!result.stderr().contains("internal-error"), result.describe());
            Map<String, Outcome> outcomes = new LinkedHashMap<>();
            for (Probe probe : run.probes) {
                List<ReportLine> lines = result.results().stream().filter(r -> probe.id().equals(r.get("id"))).toList();
                assertEquals(1, lines.size(), "one RESULT for " + probe.id() + "\n" + result.describe());
                ReportLine line = lines.get(0);
                outcomes.put(probe.id(), new Outcome(line.has("status") ? line.get("status") : line.get("failure"),
                        probe.seen()));
            }
            return outcomes;
        }
    }

    /** Why {@code agent} is worse than {@code alone} for a call of {@code method} under {@code mode}; null if not. */
    static String worse(String method, Mode mode, Outcome alone, Outcome agent) {
        boolean keyless = method.equals("POST");
        boolean takenOver = mode == Mode.REPLACE && keyless && alone.seen() > 1 && agent.seen() == 1;
        if (keyless && agent.seen() > alone.seen()) {
            return "a POST without key sent more often than by the client alone";
        }
        if (keyless && mode == Mode.KEEP && agent.seen() != alone.seen()) {
            return "under keep, a POST sent other than as the client alone sends it";
        }
        if (!keyless && mode == Mode.REPLACE && agent.seen() > Math.max(alone.seen(), 3)) {
            return "a GET sent more often than alone and than the policy's 3 attempts";
        }
        if (alone.ok() && !agent.ok() && !takenOver) {
            return "the client alone succeeded";
        }
        if (alone.failed() && agent.failed() && !alone.result().equals(agent.result())) {
            return "another failure than the client's own";
        }
        if (!alone.failed() && !alone.ok() && !agent.ok() && !alone.result().equals(agent.result()) && !takenOver) {
            return "another outcome than the client's own";
        }
        return null;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("libraries")
    void noCallEndsWorseThanWithTheClientAlone(Library library) throws IOException {
        Path hosts = Files.createTempFile("two-addresses", ".hosts");
        Files.writeString(hosts, "127.0.0.1 " + TWO_ADDRESSES + "\n127.0.0.2 " + TWO_ADDRESSES + "\n");
        Map<Mode, Map<String, Outcome>> measured = new EnumMap<>(Mode.class);
        for (Mode mode : Mode.values()) {
            measured.put(mode, run(library, mode, hosts));
        }
        List<String> worse = new ArrayList<>();
        for (String id : measured.get(Mode.ALONE).keySet()) {
            Outcome alone = measured.get(Mode.ALONE).get(id);
            Outcome replace = measured.get(Mode.REPLACE).get(id);
            Outcome keep = measured.get(Mode.KEEP).get(id);
            System.out.println("ALONE-VS-AGENT library=" + library + " call=" + id + " alone=" + alone
                    + " replace=" + replace + " keep=" + keep);
            String method = id.substring(id.lastIndexOf('/') + 1);
            for (Mode mode : List.of(Mode.REPLACE, Mode.KEEP)) {
                String why = worse(method, mode, alone, measured.get(mode).get(id));
                if (why != null) {
                    worse.add(library + " " + id + " under " + mode + ": " + why + " (alone " + alone + ", agent "
                            + measured.get(mode).get(id) + ")");
                }
            }
        }
        Files.delete(hosts);
        assertTrue(worse.isEmpty(), String.join("\n", worse));
    }
}
