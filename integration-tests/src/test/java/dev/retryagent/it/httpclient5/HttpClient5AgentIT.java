package dev.retryagent.it.httpclient5;

import static dev.retryagent.it.harness.Runs.assertOneCallbackEach;
import static dev.retryagent.it.harness.Runs.assertVersion;
import static dev.retryagent.it.harness.Runs.logged;
import static dev.retryagent.it.harness.Runs.markers;
import static dev.retryagent.it.harness.Runs.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.apps.BatchApp;
import dev.retryagent.it.httpclient5.HttpClient5Batch;
import dev.retryagent.it.contract.Batch;
import dev.retryagent.it.contract.ClientContract;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.Step;
import dev.retryagent.it.deploy.AppLoader;
import dev.retryagent.it.deploy.SpringBootJar;
import dev.retryagent.it.deploy.Webapps;
import dev.retryagent.it.okhttp.ChildLoaderLauncher;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The agent on Apache HttpClient 5.2 (the oldest supported) and 5.6 (the newest), classic, async and fluent: the
 * driver of {@link ClientContract} for HttpClient 5, in forked JVMs that run a plain HttpClient application
 * ({@link HttpClient5Batch}) making the calls of all three APIs at once, and the checks only HttpClient 5 has:
 * every classic {@code execute} overload, the client kinds, async producers and consumers, the single I/O reactor
 * thread, and the application's own retry configuration under {@code replace}, {@code observe} and {@code keep}.
 */
class HttpClient5AgentIT extends ClientContract<HttpClient5AgentIT.Jvm> {
    static final List<String> APIS = List.of("classic", "async", "fluent");

    /** The classic {@code execute} overloads the batch application knows (see HttpClient5Batch). */
    static final List<String> OVERLOADS = List.of("req", "req-ctx", "host-req", "host-req-ctx", "open", "req-handler",
            "req-ctx-handler", "host-req-handler", "host-req-ctx-handler");

    /**
     * One forked JVM: an HttpClient version making calls through each of {@code modes}, the client's loader. A Spring
     * Boot jar brings the version its BOOT-INF/lib holds ({@code libs} null).
     */
    record Jvm(ClientLibs libs, List<String> modes, Jdks.Jdk jdk, AppLoader loader) implements ClientContract.Target {
        Jvm(ClientLibs libs, List<String> modes, Jdks.Jdk jdk) {
            this(libs, modes, jdk, AppLoader.CLASS_PATH);
        }

        @Override
        public ForkedApp app(String run) {
            String name = "httpclient5-" + run + "-" + (libs == null ? "" : libs + "-") + jdk
                    + (loader == AppLoader.CLASS_PATH ? "" : "-" + loader);
            ForkedApp app = switch (loader) {
                case CLASS_PATH -> HttpClient5AgentIT.app(run, libs);
                case CHILD -> ChildLoaderLauncher.app(BatchApp.class, libs).args("httpclient5");
                case WEBAPP -> Webapps.app(jdk, BatchApp.class, libs, List.of("dev/retryagent/it/apps/BatchApp*.class",
                        "dev/retryagent/it/httpclient5/HttpClient5Batch*.class",
                        "dev/retryagent/it/apps/ApacheBatch*.class", "dev/retryagent/it/apps/Report.class",
                        "dev/retryagent/it/apps/CallSpec.class",
                        "dev/retryagent/it/clients/HttpClient5Kit*.class", "dev/retryagent/it/clients/FirstUse*.class",
                        "dev/retryagent/it/clients/Kits.class", "dev/retryagent/it/clients/KitRequest.class",
                        "dev/retryagent/it/clients/KitReply*.class", "dev/retryagent/it/clients/HttpKit.class",
                        "dev/retryagent/it/clients/AsyncHttpKit.class")).args("httpclient5");
                case SPRING_BOOT -> SpringBootJar.BOOT_3.app("httpclient5");
                case SPRING_BOOT_2 -> SpringBootJar.BOOT_2.app("httpclient5");
            };
            return app.name(name).java(jdk.java());
        }

        @Override
        public String toString() {
            return (libs == null ? "" : libs + " ") + String.join("+", modes) + " " + jdk
                    + (loader == AppLoader.CLASS_PATH ? "" : " " + loader);
        }
    }

    /**
     * Both versions on the test JDK, on Java 8 and on 11; the newest again in a child class loader and in a web
     * application's (Tomcat 11, and Tomcat 9 on Java 8); the version the Spring Boot 3 BOM manages from a Spring Boot
     * executable jar, and from a Spring Boot 2.7 one on Java 8 the oldest (the Boot 2.7 BOM's 5.1 is older than the
     * agent supports).
     */
    @Override
    protected Stream<Jvm> targets() {
        Jdks.Jdk own = Jdks.testJdk();
        return Stream.of(
                Stream.of(new Jvm(ClientLibs.HTTPCLIENT5_OLDEST, APIS, own), new Jvm(ClientLibs.HTTPCLIENT5_NEWEST, APIS, own),
                        new Jvm(ClientLibs.HTTPCLIENT5_NEWEST, APIS, own, AppLoader.CHILD),
                        new Jvm(ClientLibs.HTTPCLIENT5_NEWEST, APIS, own, AppLoader.WEBAPP),
                        new Jvm(null, APIS, own, AppLoader.SPRING_BOOT)),
                Jdks.besides(8, 11).stream().flatMap(jdk -> Stream.of(new Jvm(ClientLibs.HTTPCLIENT5_OLDEST, APIS, jdk),
                        new Jvm(ClientLibs.HTTPCLIENT5_NEWEST, APIS, jdk))),
                Jdks.besides(8).stream().flatMap(jdk -> Stream.of(
                        new Jvm(ClientLibs.HTTPCLIENT5_NEWEST, APIS, jdk, AppLoader.WEBAPP),
                        new Jvm(null, APIS, jdk, AppLoader.SPRING_BOOT_2)))).flatMap(s -> s);
    }

    /** The fluent API has no client of its own to switch retries off on: its quiet calls are this class's own. */
    @Override
    protected Stream<Jvm> quietTargets() {
        return Stream.of(ClientLibs.HTTPCLIENT5_OLDEST, ClientLibs.HTTPCLIENT5_NEWEST)
                .map(l -> new Jvm(l, List.of("classic", "async"), Jdks.testJdk()));
    }

    @Override
    protected String clientName() {
        return "apache-httpclient5";
    }

    @Override
    protected List<String> modeParts(String mode, Run run) {
        // alone, createDefault's strategy resends a 503: the quiet runs use a client that does not
        return run == Run.CONTRACT ? List.of("api=" + mode) : List.of("api=" + mode, "client=noretries");
    }

    @Override
    protected String nonReplayableBody(String mode) {
        return "stream=true"; // InputStreamEntity of unknown length, a non-repeatable producer, fluent bodyStream
    }

    @Override
    protected String retryAfterField() {
        return "retryAfter";
    }

    @Override
    protected void addOwnCalls(Jvm jvm, Run kind, Batch calls) {
        switch (kind) {
            case OBSERVE -> {
                for (String a : APIS) {
                    calls.add(a + "-default", "/own/" + a, List.of("api=" + a), Step.status(503), Step.ok());
                }
            }
            case BROKEN_POLICY -> calls.add("fluent", "/a", List.of("api=fluent"), Step.status(404), Step.ok());
            case CONTRACT -> {
                for (String overload : OVERLOADS) {
                    calls.add("classic-ov-" + overload, "/overload", List.of("api=classic", "overload=" + overload),
                            Step.status(503), Step.ok());
                }
                for (String k : List.of("system", "custom", "minimal")) {
                    calls.add("classic-client-" + k, "/kind", List.of("api=classic", "client=" + k),
                            Step.status(503), Step.status(503), Step.ok());
                }
                calls.add("classic-minimal-postKey", "/pay", List.of("api=classic", "client=minimal", "method=POST",
                        "body=payload", "header=Idempotency-Key: k-3", "overload=req"), Step.status(503),
                        Step.status(201));
                for (String k : List.of("system", "custom")) {
                    calls.add("async-client-" + k, "/kind", List.of("api=async", "client=" + k),
                            Step.status(503), Step.status(503), Step.ok());
                }
                calls.add("async-producer", "/produced", List.of("api=async", "request=producer"),
                        Step.status(503), Step.status(503), Step.ok());
                calls.add("async-producer-postKey", "/pay", List.of("api=async", "request=producer", "method=POST",
                        "body=payload", "header=Idempotency-Key: k-4"), Step.status(503), Step.status(201));
                // read, then the connection closed without a response: a POST without key the agent sends once
                calls.add("classic-post-dropped", "/orders", List.of("api=classic", "method=POST", "body=b"),
                        Step.dropAfterRequest());
                calls.add("async-io1-slow", "/limited", List.of("api=async", "client=io1"),
                        Step.status(429).retryAfterSeconds(2), Step.ok());
                calls.add("async-io1-fast", "/fast", List.of("api=async", "client=io1", "startAfterMs=500"),
                        Step.ok().body("quick"));
                for (String a : List.of("classic", "async")) {
                    // the application's own strategy would retry a 503 five times, and a POST too: the policy decides
                    calls.add(a + "-strategy", "/strategy", List.of("api=" + a, "client=strategy"), Step.status(503));
                    calls.add(a + "-strategy-post", "/strategy", List.of("api=" + a, "client=strategy", "method=POST",
                            "body=b"), Step.status(503));
                    // retries disabled by the application: the agent retries all the same
                    calls.add(a + "-noretries", "/noretries", List.of("api=" + a, "client=noretries"),
                            Step.status(503), Step.ok());
                }
            }
            default -> throw new IllegalArgumentException(kind.toString());
        }
    }

    @Override
    protected void checkOwn(Jvm jvm, Run kind, Batch calls, ForkedApp.Result run) {
        assertVersion(run, jvm.libs());
        assertOneCallbackEach(run);
        if (kind == Run.OBSERVE) {
            // the client's own retry configuration stays in place: createDefault's strategy still resends a 503
            // once after 1 s, as without the agent, and the agent adds no marker
            for (String a : APIS) {
                assertEquals(200, result(run, a + "-default").getInt("status"), run.describe());
                List<RecordedRequest> seen = calls.server(a + "-default").requests();
                assertEquals(2, seen.size(), "the client's own retry, as without the agent: " + seen);
                assertTrue(seen.stream().allMatch(q -> q.header("Retry-Attempt") == null), "no marker: " + seen);
            }
        }
        if (kind == Run.BROKEN_POLICY) {
            assertEquals(404, result(run, "fluent").getInt("status"));
        }
        if (kind != Run.CONTRACT) {
            return;
        }
        jvm.loader().assertLoaded(run, "apache-httpclient5", "org.apache.hc.client5.http.impl.classic.HttpClients");
        // every classic execute overload, with and without handler, context and target host
        for (String overload : OVERLOADS) {
            ReportLine r = result(run, "classic-ov-" + overload);
            assertEquals(200, r.getInt("status"), overload + "\n" + run.describe());
            assertEquals(List.of("1", "2"), markers(calls.server("classic-ov-" + overload).requests()), overload);
        }
        // the client kinds: createSystem, custom().build(), createMinimal (createDefault is the contract's)
        for (String id : List.of("classic-client-system", "classic-client-custom", "classic-client-minimal",
                "async-client-system", "async-client-custom", "async-producer")) {
            assertEquals(200, result(run, id).getInt("status"), id + "\n" + run.describe());
            assertEquals(List.of("1", "2", "3"), markers(calls.server(id).requests()), id);
        }
        for (String id : List.of("classic-minimal-postKey", "async-producer-postKey")) {
            assertEquals(201, result(run, id).getInt("status"), id + "\n" + run.describe());
            List<RecordedRequest> seen = calls.server(id).requests();
            assertEquals(List.of("payload", "payload"), seen.stream().map(RecordedRequest::bodyUtf8).toList(), id);
            assertEquals(List.of("1", "2"), markers(seen), id);
        }

        // the failure is the client's own, message included: HttpRequestRetryExec, which the agent skips, names the
        // target of a call it gives up on
        ReportLine dropped = result(run, "classic-post-dropped");
        assertEquals("org.apache.hc.core5.http.NoHttpResponseException", dropped.get("failure"), run.describe());
        assertEquals("127.0.0.1:" + calls.server("classic-post-dropped").port() + " failed to respond",
                dropped.get("message"), run.describe());
        assertEquals(1, calls.server("classic-post-dropped").requestCount());

        // async: while one call waits 2 s to retry, another call on the same single I/O thread goes through
        List<RecordedRequest> slow = calls.server("async-io1-slow").awaitRequests(2, WAIT);
        RecordedRequest fast = calls.server("async-io1-fast").awaitRequests(1, WAIT).get(0);
        assertTrue(slow.get(1).millisAfter(slow.get(0)) >= 2000, slow.toString());
        assertTrue(fast.arrivalNanos() < slow.get(1).arrivalNanos(), "the fast call was not held up");
        assertTrue(result(run, "async-io1-fast").getLong("elapsedMs") < Bounds.AT_ONCE_MS, run.describe());
        assertEquals(200, result(run, "async-io1-slow").getInt("status"));
        ReportLine getCallbacks = run.lines("CALLBACKS").stream()
                .filter(l -> l.get("id").equals("async-get")).findFirst().orElseThrow();
        assertTrue(getCallbacks.get("kinds").startsWith("completed:200@httpclient-dispatch"), getCallbacks.toString());

        // builtInRetries: replace supersedes the application's own retry configuration
        for (String a : List.of("classic", "async")) {
            assertEquals(503, result(run, a + "-strategy").getInt("status"), run.describe());
            assertEquals(List.of("1", "2", "3"), markers(calls.server(a + "-strategy").requests()), a);
            assertEquals(503, result(run, a + "-strategy-post").getInt("status"));
            assertEquals(1, calls.server(a + "-strategy-post").requestCount(), a);
            assertEquals(200, result(run, a + "-noretries").getInt("status"));
            assertEquals(List.of("1", "2"), markers(calls.server(a + "-noretries").requests()), a);
        }
    }

    static ForkedApp app(String name, ClientLibs libs) {
        return ForkedApp.batch("httpclient5").name("httpclient5-" + name + "-" + libs).clientLibs(libs);
    }

    /**
     * {@code builtInRetries: keep}: the client's own retry configuration is left exactly as the application set
     * it. createDefault's {@code DefaultHttpRequestRetryStrategy} resends a 503 once after 1 s, for any method: a
     * POST without key is sent twice, as without the agent. The agent's retries run inside, as their own layer.
     */
    @ParameterizedTest
    @Timeout(180)
    @EnumSource(names = {"HTTPCLIENT5_OLDEST", "HTTPCLIENT5_NEWEST"})
    void keepLeavesTheClientsOwnRetriesAsConfigured(ClientLibs libs) throws Exception {
        try (Batch calls = new Batch()) {
            for (String a : APIS) {
                calls.add(a + "-post", "/orders", List.of("api=" + a, "method=POST", "body=b"), Step.status(503));
            }
            for (String a : List.of("classic", "async")) {
                calls.add(a + "-strategy-post", "/orders", List.of("api=" + a, "client=strategy", "method=POST",
                        "body=b"), Step.status(503));
                calls.add(a + "-noretries", "/items", List.of("api=" + a, "client=noretries"), Step.status(503),
                        Step.ok());
            }
            ForkedApp.Result run = app("keep", libs).policy(POLICY + "builtInRetries: keep\n").args(calls.args())
                    .run().assertExitCode(0);
            assertVersion(run, libs);
            for (String a : APIS) {
                assertEquals(503, result(run, a + "-post").getInt("status"), run.describe());
                List<RecordedRequest> seen = calls.server(a + "-post").requests();
                assertEquals(2, seen.size(), a + ": the client's own resend of the POST: " + seen);
                assertTrue(seen.get(1).millisAfter(seen.get(0)) >= 900, "after the strategy's 1 s: " + seen);
                // the agent's layer does not retry the POST itself, so it leaves it unmarked
                assertEquals(Arrays.asList(null, null), markers(seen), a);
            }
            for (String a : List.of("classic", "async")) {
                assertEquals(503, result(run, a + "-strategy-post").getInt("status"), run.describe());
                assertEquals(6, calls.server(a + "-strategy-post").requestCount(), "1 + the application's 5 retries");
                assertEquals(200, result(run, a + "-noretries").getInt("status"));
                assertEquals(List.of("1", "2"), markers(calls.server(a + "-noretries").requests()), a);
            }
            assertOneCallbackEach(run);
        }
    }
}
