package dev.retryagent.it.onelayer;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.apps.RollingRestartApp;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.RollingServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A rolling restart under a steady stream of POSTs without an idempotency key: a loopback service
 * ({@link RollingServer}) stops listening for {@link #DOWN} and comes back on the same port, while one caller per
 * client API ({@link RollingRestartApp}) sends one order after the other, each with an id of its own. The outage
 * begins when the service receives its {@link #RESTART_AT}-th order (before answering it), and the stream ends once
 * {@link #END_AFTER} orders have arrived after the service came back, so every stream crosses the outage however
 * fast the machine is. Every client and API: {@code HttpURLConnection}, {@code java.net.http} {@code send} and
 * {@code sendAsync}, OkHttp 4.12 and 5 {@code execute} and {@code enqueue}, HttpClient 5.6 classic and async,
 * HttpClient 4.5.14 and HttpAsyncClient 4.1.5; each alone and under {@link #POLICY}.
 *
 * <p>The service answers {@code Connection: close} and closes every connection after its answer, so every order opens
 * a new connection: what the outage does to a call is a refused connect, a failure before any byte of the request left,
 * never a pooled connection that dies under a request (a race with another outcome, {@code StaleConnectionIT}'s).
 *
 * <p>Prints one {@code ROLLING-RESTART client=.. mode=.. agent=no|yes calls=.. errors=.. ids-once=.. ids-twice=..
 * lost=.. max-per-id=.. failures=..} line per stream (with the agent also its {@code retries} and {@code give-ups}
 * from the agent's log). Checked for every run: the service came back and the stream crossed the outage, and no order
 * reached the service twice. With the agent: no caller saw an error and every order reached the service exactly once,
 * the refused connects retried whatever the method. Alone, the errors are measured, not checked.
 */
@Timeout(300)
class RollingRestartIT {
    static final int RESTART_AT = 12;
    static final Duration DOWN = Duration.ofMillis(300);
    static final int END_AFTER = 8;
    static final long PAUSE_MS = 10;

    /**
     * Retries that outlast the outage with room to spare: seven waits of at least 50, 100, 200, 200, 200, 200 and
     * 200 ms (equal jitter draws from the upper half), 1.15 s in all, well within the deadline. A stream has one call
     * in the outage at a time: a few retries, far below what the default budget allows ({@code minPerSecond: 10}, 100
     * retries in its 10 s window).
     */
    static final String POLICY = """
            version: 1
            defaults:
              maxAttempts: 8
              backoff: { base: 100ms, cap: 400ms, jitter: equal }
              deadline: 10s
            """;

    /** A client's API, called through the kit {@code kit}; the stream's name is {@code client-mode}. */
    record Api(String client, String mode, String kit) {
        String stream() {
            return client + "-" + mode;
        }
    }

    /** One forked JVM: the client libraries on its class path and the APIs it streams through, one after the other. */
    record Jvm(String name, List<ClientLibs> libs, List<Api> apis) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final List<Jvm> JVMS = List.of(
            new Jvm("okhttp-4.12", List.of(ClientLibs.OKHTTP_4), List.of(
                    new Api("okhttp-4.12", "sync", "okhttp"),
                    new Api("okhttp-4.12", "async", "okhttp-async"))),
            new Jvm("okhttp-5+apache+jdk", List.of(ClientLibs.OKHTTP_5, ClientLibs.HTTPCLIENT5_NEWEST,
                    ClientLibs.HTTPCLIENT4_NEWEST), List.of(
                    new Api("okhttp-5", "sync", "okhttp"),
                    new Api("okhttp-5", "async", "okhttp-async"),
                    new Api("httpclient5-5.6", "sync", "hc5-classic"),
                    new Api("httpclient5-5.6", "async", "hc5-async"),
                    new Api("httpclient4-4.5.14", "sync", "hc4-classic"),
                    new Api("httpclient4-4.5.14", "async", "hc4-async"),
                    new Api("httpurlconnection", "sync", "huc"),
                    new Api("java.net.http", "sync", "jdk-httpclient"),
                    new Api("java.net.http", "async", "jdk-httpclient-async"))));

    static Stream<Arguments> runs() {
        return JVMS.stream().flatMap(jvm -> Stream.of(Arguments.of(jvm, false), Arguments.of(jvm, true)));
    }

    @ParameterizedTest(name = "{0} agent={1}")
    @MethodSource("runs")
    void everyOrderArrivesOnceAcrossTheRestart(Jvm jvm, boolean agent) {
        Map<Api, RollingServer> servers = new LinkedHashMap<>();
        try {
            List<String> args = new ArrayList<>(List.of("--pause-ms", String.valueOf(PAUSE_MS)));
            for (Api api : jvm.apis()) {
                RollingServer server = RollingServer.start(RESTART_AT, DOWN, END_AFTER);
                servers.put(api, server);
                args.addAll(List.of("--stream", "name=" + api.stream() + ";client=" + api.kit() + ";url="
                        + server.url("/rolling/" + api.stream())));
            }
            ForkedApp app = ForkedApp.of(RollingRestartApp.class)
                    .name("rolling-restart-" + jvm.name() + (agent ? "-agent" : "-alone"))
                    .clientLibs(jvm.libs().get(0)).args(args);
            jvm.libs().stream().skip(1).forEach(libs -> libs.jars().forEach(app::classpath));
            if (agent) {
                app.policy(POLICY).agentArg("log", "debug");
            }
            ForkedApp.Result run = app.run().assertExitCode(0);

            List<String> problems = new ArrayList<>();
            if (agent && run.stderr().contains("internal-error")) {
                problems.add("the agent reported an internal error");
            }
            for (Map.Entry<Api, RollingServer> stream : servers.entrySet()) {
                problems.addAll(check(stream.getKey(), stream.getValue(), run, agent));
            }
            assertTrue(problems.isEmpty(), String.join("\n", problems) + "\n" + run.describe());
        } finally {
            servers.values().forEach(RollingServer::close);
        }
    }

    /** Prints the stream's line and returns what is wrong with it. */
    private static List<String> check(Api api, RollingServer server, ForkedApp.Result run, boolean agent) {
        String stream = api.stream();
        List<ReportLine> results = run.results().stream().filter(r -> stream.equals(r.get("stream"))).toList();
        if (results.size() != 1) {
            return List.of(stream + ": one RESULT line expected, got " + results);
        }
        ReportLine result = results.get(0);
        int calls = result.getInt("calls");
        Map<String, Integer> receipts = server.receipts();
        Set<String> sent = new HashSet<>();
        int once = 0;
        int twice = 0;
        int lost = 0;
        int most = 0;
        for (int n = 1; n <= calls; n++) {
            String id = stream + "-" + n;
            sent.add(id);
            int seen = receipts.getOrDefault(id, 0);
            most = Math.max(most, seen);
            if (seen == 0) {
                lost++;
            } else if (seen == 1) {
                once++;
            } else {
                twice++;
            }
        }
        int errors = result.getInt("errors");
        StringBuilder line = new StringBuilder("ROLLING-RESTART client=" + api.client() + " mode=" + api.mode()
                + " agent=" + (agent ? "yes" : "no") + " calls=" + calls + " errors=" + errors + " ids-once=" + once
                + " ids-twice=" + twice + " lost=" + lost + " max-per-id=" + most
                + " failures=" + (result.get("failures").isEmpty() ? "none" : result.get("failures")));
        if (agent) {
            line.append(" retries=").append(logged(run, "retry-agent retry ", stream).size())
                    .append(" give-ups=").append(reasons(logged(run, "retry-agent give up ", stream)));
        }
        System.out.println(line);

        List<String> problems = new ArrayList<>();
        String where = stream + (agent ? " with the agent" : " alone") + ": ";
        server.errors().forEach(e -> problems.add(where + "the service failed: " + e));
        if (!server.cameBack()) {
            problems.add(where + "the service did not listen again after its restart");
        }
        if (!result.getBoolean("ended")) {
            problems.add(where + "the stream ended before " + END_AFTER + " orders had arrived after the restart ("
                    + server.receivedSinceBack() + ")");
        }
        Set<String> unknown = new HashSet<>(receipts.keySet());
        unknown.removeAll(sent);
        if (!unknown.isEmpty()) {
            problems.add(where + "requests with ids the caller did not send: " + unknown);
        }
        if (twice > 0) {
            problems.add(where + twice + " orders reached the service more than once (at most " + most + " times)");
        }
        if (agent && errors > 0) {
            problems.add(where + errors + " calls failed at the caller (calls " + result.get("failed") + ": "
                    + result.get("failures") + ")");
        }
        if (agent && lost > 0) {
            problems.add(where + lost + " orders never reached the service");
        }
        return problems;
    }

    /** The agent's lines starting with {@code event} about {@code stream}'s path. */
    private static List<String> logged(ForkedApp.Result run, String event, String stream) {
        return run.agentLog().stream()
                .filter(l -> l.startsWith(event) && l.contains(" path=/rolling/" + stream + " ")).toList();
    }

    private static final Pattern REASON = Pattern.compile(" reason=(\\S+)");

    /** {@code reason:count,...} of give-up lines; {@code none} for none. */
    private static String reasons(List<String> giveUps) {
        Map<String, Integer> counted = new TreeMap<>();
        for (String line : giveUps) {
            Matcher m = REASON.matcher(line);
            counted.merge(m.find() ? m.group(1) : "?", 1, Integer::sum);
        }
        return counted.isEmpty() ? "none" : counted.toString().replaceAll("[{} ]", "").replace('=', ':');
    }
}
