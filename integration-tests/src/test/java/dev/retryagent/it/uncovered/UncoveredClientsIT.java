package dev.retryagent.it.uncovered;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.attach.AttachCommandRun;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.JmxExporter;
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
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The clients the agent does not instrument, really loaded from their Maven Central jars in a forked JVM with the
 * built agent ({@code integration-tests/uncovered-clients-app}: its jar and its {@code target/lib}, system property
 * {@code retry.agent.it.uncovered-clients-app.dir}): one {@code retry-agent uncovered-client name=KIND} line per kind
 * on stderr, naming the class that showed it, and the {@code retry-agent:type=agent} MBean's
 * {@code uncovered_clients} read in the application after each client, which must list exactly the clients built so
 * far (so each library is told apart from the others in one JVM), and what the Prometheus JMX exporter makes of it.
 * Helidon 4's WebClient only where the forked JVM is Java 21 or later. gRPC's shaded Netty channel is reported under
 * the kind of the plain one. A JVM with covered clients only (OkHttp, HttpClient 5's HTTP/2 default client, whose
 * 503 the agent retries, and Ktor's OkHttp and Java engines) reports none; an attach reports the clients loaded
 * before it in its {@code started} line. Prints {@code UNCOVERED ...} lines.
 */
@Timeout(180)
class UncoveredClientsIT {
    private static final String MAIN = "dev.retryagent.it.uncovered.UncoveredClientsApp";
    private static final String LINE = "retry-agent uncovered-client ";
    private static final Duration WAIT = Duration.ofSeconds(60);

    /** Helidon 4's WebClient, built for Java 21: built only where the forked JVM can load it. */
    private static final String HELIDON = "helidon-webclient";

    /** Each kind, in the order the application builds them, with the classes its line may name. */
    private static final Map<String, Set<String>> KINDS = new LinkedHashMap<>();

    static {
        KINDS.put("jetty-client", Set.of("org.eclipse.jetty.client.HttpClient"));
        KINDS.put("async-http-client", Set.of("org.asynchttpclient.DefaultAsyncHttpClient"));
        // Before the WebClient, which runs over it (so loads it too).
        KINDS.put("vertx-http-client", Set.of("io.vertx.core.http.impl.HttpClientImpl"));
        KINDS.put("vertx-web-client", Set.of("io.vertx.ext.web.client.impl.WebClientBase"));
        KINDS.put("armeria", Set.of("com.linecorp.armeria.client.UserClient"));
        KINDS.put("aws-sdk-netty", Set.of("software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient"));
        KINDS.put("aws-sdk-crt", Set.of("software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient",
                "software.amazon.awssdk.http.crt.AwsCrtHttpClientBase"));
        KINDS.put("apache-httpclient5-async-minimal",
                Set.of("org.apache.hc.client5.http.impl.async.MinimalHttpAsyncClient"));
        KINDS.put("apache-httpclient5-h2-minimal", Set.of("org.apache.hc.client5.http.impl.async.MinimalH2AsyncClient"));
        KINDS.put("micronaut-http-client", Set.of("io.micronaut.http.client.netty.DefaultHttpClient"));
        KINDS.put("ktor-cio", Set.of("io.ktor.client.engine.cio.CIOEngine"));
        KINDS.put("grpc-netty", Set.of("io.grpc.netty.NettyChannelBuilder",
                "io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder"));
        KINDS.put("grpc-okhttp", Set.of("io.grpc.okhttp.OkHttpChannelBuilder"));
        KINDS.put(HELIDON, Set.of("io.helidon.webclient.api.LoomClient"));
    }

    /** The kinds the forked JVM can load, in the order the application builds them. */
    private static List<String> kindsOnThisJvm() {
        List<String> kinds = new ArrayList<>(KINDS.keySet());
        if (Jdks.testJdk().version() < 21) {
            kinds.remove(HELIDON);
        }
        return kinds;
    }

    private static Path appDir() {
        String configured = System.getProperty("retry.agent.it.uncovered-clients-app.dir");
        return configured != null && !configured.isBlank()
                ? Paths.get(configured)
                : Paths.get("uncovered-clients-app", "target").toAbsolutePath();
    }

    /** The application's jar, then its run-time class path as Maven resolved it. */
    private static ForkedApp app(String name) {
        ForkedApp app = ForkedApp.of(MAIN).name(name).classpath(appDir().resolve("uncovered-clients-app.jar"))
                .timeout(Duration.ofSeconds(120));
        try (Stream<Path> jars = Files.list(appDir().resolve("lib"))) {
            jars.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(app::classpath);
        } catch (IOException e) {
            throw new UncheckedIOException("run mvn -B verify: the module uncovered-clients-app is built first", e);
        }
        return app;
    }

    /** The kinds named by the stderr's uncovered-client lines, in order, each checked for its class and loader. */
    private static List<String> reportedKinds(List<String> stderr, String describe) {
        List<String> kinds = new ArrayList<>();
        for (String line : stderr) {
            if (!line.startsWith(LINE)) {
                assertTrue(!line.contains(LINE.trim()), "a line of its own: " + line);
                continue;
            }
            assertTrue(line.endsWith("; its calls are not retried by the agent"), line);
            ReportLine fields = ReportLine.parse("UC " + line.substring(LINE.length(), line.indexOf(';')));
            String kind = fields.get("name");
            assertTrue(KINDS.containsKey(kind), "a kind of the list: " + line);
            assertTrue(KINDS.get(kind).contains(fields.get("class")), "the class of " + kind + ": " + line);
            assertEquals("jdk.internal.loader.ClassLoaders$AppClassLoader", fields.get("loader"), line);
            kinds.add(kind);
        }
        return kinds;
    }

    private static String sorted(List<String> kinds) {
        return String.join(",", new TreeSet<>(kinds));
    }

    @Test
    void eachUncoveredClientIsReportedOnceWhenTheJvmLoadsItAndTheMBeanListsExactlyThoseLoaded() throws Exception {
        List<String> kinds = kindsOnThisJvm();
        JmxExporter exporter = JmxExporter.onFreePort();
        List<String> scraped;
        ForkedApp.Result run;
        try (ForkedApp.Running app = app("uncovered-all").withAgent().jvmArg(exporter.jvmArg()).args(kinds)
                .args("@stdin").start()) {
            app.awaitStdoutLine(l -> l.startsWith("READY "), WAIT);
            scraped = exporter.scrape();
            app.writeLine("done");
            run = app.await(WAIT).assertExitCode(0);
        }

        List<ReportLine> results = run.results();
        assertEquals(kinds.size(), results.size(), run.describe());
        for (int i = 0; i < kinds.size(); i++) {
            ReportLine r = results.get(i);
            assertEquals(kinds.get(i), r.get("step"));
            assertEquals(sorted(kinds.subList(0, i + 1)), r.get("uncovered"),
                    "the MBean after building " + kinds.get(i) + ": " + run.describe());
            System.out.println("UNCOVERED step=" + r.get("step") + " built=" + r.get("built"));
        }
        assertEquals(kinds, reportedKinds(run.stderrLines(), run.describe()),
                "one line per kind, as each was loaded: " + run.describe());

        // The Prometheus JMX exporter's default rules: one sample per kind.
        List<String> samples = scraped.stream().filter(l -> l.startsWith("retry_agent_agent_uncovered_clients"))
                .collect(Collectors.toList());
        assertEquals(kinds.stream().sorted().map(k -> "retry_agent_agent_uncovered_clients{name=\"" + k + "\"} 1.0")
                .collect(Collectors.toList()), samples.stream().sorted().collect(Collectors.toList()),
                String.join("\n", scraped));
        assertTrue(scraped.contains("jmx_scrape_error 0.0"), String.join("\n", scraped));
        System.out.println("UNCOVERED all lines=" + kinds.size() + " samples=" + samples.size() + " elapsed="
                + run.elapsed().toMillis() + "ms");
    }

    @Test
    void theShadedGrpcNettyChannelIsReportedAsGrpcNetty() {
        ForkedApp.Result run = app("uncovered-grpc-shaded").withAgent()
                .args("build:grpc-netty-shaded", "await:grpc-netty").run().assertExitCode(0);
        assertEquals("grpc-netty", run.results().get(0).get("uncovered"), run.describe());
        List<String> lines = run.stderrLines().stream().filter(l -> l.startsWith(LINE)).collect(Collectors.toList());
        assertEquals(List.of("grpc-netty"), reportedKinds(lines, run.describe()), run.describe());
        assertTrue(lines.get(0).contains(" class=io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder "),
                run.describe());
        System.out.println("UNCOVERED grpc-netty-shaded lines=" + lines.size());
    }

    @Test
    void aJvmWithOnlyCoveredClientsReportsNone() {
        try (ScriptedServer server = ScriptedServer.start(Step.ok())) {
            ForkedApp.Result run = app("uncovered-none").withAgent()
                    .args("--url", server.url("/items"), "okhttp", "apache-httpclient5-h2", "ktor-okhttp",
                            "ktor-java", "reactor-netty").run().assertExitCode(0);
            List<ReportLine> results = run.results();
            assertEquals(5, results.size(), run.describe());
            assertEquals("status:200", results.get(0).get("built"), run.describe());
            assertEquals("1", server.requests().get(0).header("Retry-Attempt"), "the OkHttp call went through the agent");
            // Ktor's OkHttp engine (OkHttp's Call.enqueue) and Java engine (java.net.http's sendAsync) run over
            // covered clients: their calls carry the agent's marker.
            // Reactor Netty's HttpClient is covered too.
            for (int i = 2; i < 5; i++) {
                assertEquals("status:200", results.get(i).get("built"), run.describe());
                assertEquals("1", server.requests().get(i - 1).header("Retry-Attempt"),
                        results.get(i).get("step") + " went through the agent: " + run.describe());
            }
            assertEquals(4, server.requests().size(), "the HTTP/2 call goes to the app's own server");
            // HttpClient 5's HTTP/2 default client (createHttp2Default, H2AsyncClientBuilder) is covered: its exec
            // chain passes the agent's hooks, which retry its 503 (markers 1,2) and so must not list it.
            assertEquals("200:1,2", results.get(1).get("built"), run.describe());
            for (ReportLine r : results) {
                assertEquals("none", r.get("uncovered"), "the agent's MBean is there, empty: " + run.describe());
            }
            assertEquals(List.of(), reportedKinds(run.stderrLines(), run.describe()));
            System.out.println("UNCOVERED covered-only lines=0 h2-default=" + results.get(1).get("built"));
        }
    }

    @Test
    void anAttachReportsTheClientsLoadedBeforeItAndTheTransformerThoseLoadedAfter() throws Exception {
        ForkedApp app = app("uncovered-attach").args("build:armeria", "build:jetty-client", "@stdin",
                "await:armeria", "async-http-client");
        try (ForkedApp.Running target = app.start()) {
            long pid = Long.parseLong(ReportLine.parse(target.awaitStdoutLine(l -> l.startsWith("READY "), WAIT))
                    .get("pid"));
            assertTrue(!target.stderrSoFar().contains("retry-agent"), "no agent yet: " + target.stderrSoFar());

            AttachCommandRun attach = AttachCommandRun.run(target.runDir().resolve("operator"), Long.toString(pid));
            assertEquals(0, attach.exitCode(), attach.describe());
            String started = target.awaitStderrLine(l -> l.startsWith("retry-agent started"), WAIT);
            String listed = Arrays.stream(started.split(" ")).filter(f -> f.startsWith("uncovered=")).findFirst()
                    .orElse("uncovered=").substring("uncovered=".length());
            assertEquals(Set.of("armeria", "jetty-client"), Set.of(listed.split(",")), started);

            target.writeLine("go");
            ForkedApp.Result run = target.await(WAIT).assertExitCode(0);
            List<ReportLine> results = run.results();
            assertEquals(2, results.size(), run.describe());
            assertEquals("armeria,jetty-client", results.get(0).get("uncovered"), run.describe());
            assertEquals("armeria,async-http-client,jetty-client", results.get(1).get("uncovered"),
                    run.describe());
            List<String> reported = reportedKinds(run.stderrLines(), run.describe());
            assertEquals(Set.of("armeria", "jetty-client"), Set.copyOf(reported.subList(0, 2)), run.describe());
            assertEquals(List.of("async-http-client"), reported.subList(2, reported.size()), run.describe());
            System.out.println("UNCOVERED attach started-lists=" + listed + " after=" + reported.get(2));
        }
    }
}
