package dev.retryagent.it.okhttp;

import static dev.retryagent.it.harness.Runs.logged;
import static dev.retryagent.it.harness.Runs.markers;
import static dev.retryagent.it.harness.Runs.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.retryagent.it.apps.BatchApp;
import org.junit.jupiter.api.Tag;

import dev.retryagent.it.contract.Batch;
import dev.retryagent.it.contract.ClientContract;
import dev.retryagent.it.deploy.AppLoader;
import dev.retryagent.it.deploy.SpringBootJar;
import dev.retryagent.it.deploy.Webapps;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The agent on OkHttp 4.12 and 5.x, sync ({@code Call.execute}) and async ({@code Call.enqueue}): the driver of
 * {@link ClientContract} for OkHttp, in forked JVMs that run a plain OkHttp application ({@link OkHttpBatch}),
 * and the checks only OkHttp has (one agent interceptor, callbacks, the pool, its own resends under replace).
 */
@Tag(Jdks.MATRIX)
class OkHttpAgentIT extends ClientContract<OkHttpAgentIT.Jvm> {
    /** One forked JVM: an OkHttp version, its modes, its JDK, the loader of OkHttp and the app. */
    record Jvm(ClientLibs libs, List<String> modes, Jdks.Jdk jdk, AppLoader loader)
            implements ClientContract.Target {
        Jvm(ClientLibs libs, List<String> modes, Jdks.Jdk jdk) {
            this(libs, modes, jdk, AppLoader.CLASS_PATH);
        }

        @Override
        public ForkedApp app(String run) {
            ForkedApp app = switch (loader) {
                case CLASS_PATH -> ForkedApp.batch("okhttp").clientLibs(libs);
                case CHILD -> ChildLoaderLauncher.app(BatchApp.class, libs).args("okhttp");
                case WEBAPP -> Webapps.app(jdk, BatchApp.class, libs, List.of("dev/retryagent/it/apps/BatchApp*.class",
                        "dev/retryagent/it/okhttp/OkHttpBatch*.class", "dev/retryagent/it/apps/CallSpec.class",
                        "dev/retryagent/it/apps/Report.class", "dev/retryagent/it/clients/OkHttpBody.class",
                        "dev/retryagent/it/clients/OkHttpKit*.class", "dev/retryagent/it/clients/Kits.class",
                        "dev/retryagent/it/clients/KitRequest.class", "dev/retryagent/it/clients/KitReply*.class",
                        "dev/retryagent/it/clients/HttpKit.class", "dev/retryagent/it/clients/AsyncHttpKit.class")).args("okhttp");
                case SPRING_BOOT -> SpringBootJar.BOOT_3.app("okhttp");
                case SPRING_BOOT_2 -> SpringBootJar.BOOT_2.app("okhttp");
            };
            return app.name("okhttp-" + run + "-" + libs + "-" + String.join("-", modes) + "-" + jdk
                    + (loader == AppLoader.CLASS_PATH ? "" : "-" + loader))
                    .java(jdk.java());
        }

        @Override
        public String toString() {
            return libs + " " + String.join("+", modes) + " " + jdk
                    + (loader == AppLoader.CLASS_PATH ? "" : " " + loader);
        }
    }

    /**
     * Every version and mode on the JDK that runs the tests; one OkHttp 4.12 and one OkHttp 5 on Java 25 as well;
     * both versions, both modes in one JVM, on Java 8 and 11; OkHttp 5 in a child class loader (async) and in a web
     * application's (sync: Tomcat 11, and Tomcat 9 on Java 8), and OkHttp 4.12 from a Spring Boot executable jar
     * (Boot 3, and Boot 2.7 on Java 8; both modes in one JVM: the driver's own checks are those of its first mode).
     */
    @Override
    protected Stream<Jvm> targets() {
        Jdks.Jdk own = Jdks.testJdk();
        Stream<Jvm> onTheTestJdk = Stream.of(new Jvm(ClientLibs.OKHTTP_4, List.of("sync"), own),
                new Jvm(ClientLibs.OKHTTP_4, List.of("async"), own),
                new Jvm(ClientLibs.OKHTTP_5, List.of("sync"), own),
                new Jvm(ClientLibs.OKHTTP_5, List.of("async"), own),
                new Jvm(ClientLibs.OKHTTP_5, List.of("async"), own, AppLoader.CHILD),
                new Jvm(ClientLibs.OKHTTP_5, List.of("sync"), own, AppLoader.WEBAPP),
                new Jvm(ClientLibs.OKHTTP_4, List.of("sync", "async"), own, AppLoader.SPRING_BOOT));
        Stream<Jvm> onJava25 = Jdks.besides(25).stream().flatMap(jdk -> Stream.of(
                new Jvm(ClientLibs.OKHTTP_4, List.of("sync"), jdk), new Jvm(ClientLibs.OKHTTP_5, List.of("async"), jdk)));
        Stream<Jvm> onLegacyJdks = Jdks.besides(8, 11).stream().flatMap(jdk -> Stream.of(
                new Jvm(ClientLibs.OKHTTP_4, List.of("sync", "async"), jdk),
                new Jvm(ClientLibs.OKHTTP_5, List.of("async", "sync"), jdk)));
        Stream<Jvm> onJava8 = Jdks.besides(8).stream().flatMap(jdk -> Stream.of(
                new Jvm(ClientLibs.OKHTTP_5, List.of("sync"), jdk, AppLoader.WEBAPP),
                new Jvm(ClientLibs.OKHTTP_4, List.of("sync", "async"), jdk, AppLoader.SPRING_BOOT_2)));
        return Stream.of(onTheTestJdk, onJava25, onLegacyJdks, onJava8).flatMap(s -> s);
    }

    @Override
    protected Stream<Jvm> quietTargets() {
        return Stream.of(new Jvm(ClientLibs.OKHTTP_4, List.of("sync", "async"), Jdks.testJdk()),
                new Jvm(ClientLibs.OKHTTP_5, List.of("sync", "async"), Jdks.testJdk()));
    }

    @Override
    protected String clientName() {
        return "okhttp";
    }

    @Override
    protected List<String> modeParts(String mode, Run run) {
        return List.of("mode=" + mode);
    }

    @Override
    protected String nonReplayableBody(String mode) {
        return "oneShot=true"; // RequestBody.isOneShot()
    }

    @Override
    protected boolean cancels(String mode) {
        return true;
    }

    /** Dispatcher.cancelAll() while a call waits between attempts (on a client of its own: it cancels every call). */
    @Override
    protected void addOwnCalls(Jvm jvm, Run kind, Batch b) {
        if (kind == Run.CONTRACT) {
            String mode = jvm.modes().get(0);
            b.add(mode + "-cancelAll", "/cancel/all/" + mode, List.of("mode=" + mode, "client=own",
                    "cancelAllOn=" + mode + "-cancelAll"), Step.status(503));
            b.signalAfter(mode + "-cancelAll", waitingToRetry("/cancel/all/" + mode));
        }
    }

    /** Call.cancel(): the caller gets one failure (execute throws, or onFailure once). */
    @Override
    protected void assertCancelled(ForkedApp.Result run, String id) {
        ReportLine r = result(run, id);
        assertTrue(r.has("failure"), r.toString());
    }

    @Override
    protected List<String> appArgs(Jvm jvm, Run run) {
        // the one shared client: new OkHttpClient.Builder().build() for sync, new OkHttpClient().newBuilder() for async
        return run == Run.CONTRACT && jvm.modes().equals(List.of("async")) ? List.of("--make", "newBuilder")
                : List.of("--make", "builder");
    }

    @Override
    protected void checkOwn(Jvm jvm, Run kind, Batch b, ForkedApp.Result run) {
        if (kind == Run.BROKEN_POLICY) {
            assertEquals(1, run.single("INTERCEPTORS").getInt("agent"), "hooks stay in place, doing nothing");
        }
        if (kind != Run.CONTRACT) {
            return;
        }
        String mode = jvm.modes().get(0);
        assertEquals(jvm.libs().version(), run.single("APP").get("version"), "the intended OkHttp version ran");
        jvm.loader().assertLoaded(run, "okhttp", "okhttp3.OkHttpClient");
        assertTrue(run.single("APP").get("java").startsWith(jvm.jdk().javaVersionPrefix()), run.single("APP").toString());
        assertEquals(1, run.single("INTERCEPTORS").getInt("agent"), "exactly one agent interceptor\n" + run);

        ReportLine r = result(run, mode + "-get");
        assertEquals("true", r.get("sameCall"));
        if (mode.equals("async")) {
            assertTrue(r.get("thread").startsWith("OkHttp"), "called back on a dispatcher thread: " + r);
        }
        // the body is written once per attempt, and a one-shot body once in all
        assertEquals(2, result(run, mode + "-postKey").getInt("bodyWrites"));
        assertEquals(1, result(run, mode + "-nonReplayable").getInt("bodyWrites"));

        // every call called back exactly once; no connection left in use after all the retries
        for (ReportLine callbacks : run.lines("CALLBACKS")) {
            assertEquals(1, callbacks.getInt("count"), callbacks.toString());
        }
        assertEquals(0, run.single("POOL").getInt("inUse"), run.describe());

        // Dispatcher.cancelAll() during the wait: the call fails, once, and no further attempt is sent (an async call
        // waiting for its next attempt is in none of the dispatcher's queues: the agent cancels it there)
        r = result(run, mode + "-cancelAll");
        assertTrue(r.has("failure"), r.toString());
        assertTrue(r.getLong("elapsedMs") < Bounds.CANCEL_MS, r.toString());
        ScriptedServer cancelAll = b.server(mode + "-cancelAll");
        assertEquals(1, cancelAll.requestCount(), cancelAll.requests().toString());
    }

    static String call(String id, String url, String mode, String... more) {
        List<String> parts = new ArrayList<>(List.of("id=" + id, "url=" + url, "mode=" + mode));
        parts.addAll(List.of(more));
        return String.join(";", parts);
    }

    /**
     * docs/reference.md#one-retry-layer with {@code builtInRetries: replace}: OkHttp's silent resend of a POST whose
     * reused connection dropped (see OkHttpBaselineIT) is gone, and so is its resend of a 503 with {@code Retry-After:
     * 0}; a GET whose reused connection dropped is retried by the agent, with a marker.
     */
    @ParameterizedTest
    @Timeout(180)
    @EnumSource(names = {"OKHTTP_4", "OKHTTP_5"})
    void replaceStopsOkHttpsOwnResends(ClientLibs libs) {
        try (ScriptedServer server = ScriptedServer.start(Step.ok().body("one"), Step.dropAfterRequest(),
                Step.ok().body("three"), Step.dropAfterRequest(), Step.ok().body("five"));
             ScriptedServer zero = ScriptedServer.start(Step.status(503).retryAfterSeconds(0), Step.ok())) {
            ForkedApp.Result run = ForkedApp.batch("okhttp").name("okhttp-replace-" + libs).clientLibs(libs)
                    .policy(POLICY).args("--sequential",
                            "--call", call("post1", server.url("/p"), "sync", "method=POST", "body=x"),
                            "--call", call("post2", server.url("/p"), "sync", "method=POST", "body=x"),
                            "--call", call("get1", server.url("/g"), "sync"),
                            "--call", call("get2", server.url("/g"), "sync"),
                            "--call", call("zero", zero.url("/z"), "sync", "method=POST", "body=y"))
                    .run().assertExitCode(0);
            assertEquals(200, result(run, "post1").getInt("status"), run.describe());
            ReportLine post2 = result(run, "post2");
            assertTrue(post2.has("failure"), "the POST is not resent: " + post2);
            assertEquals(1, post2.getInt("bodyWrites"));
            assertEquals("three", result(run, "get1").get("body"));
            assertEquals("five", result(run, "get2").get("body"));
            List<RecordedRequest> seen = server.awaitRequests(5, WAIT);
            assertEquals(5, seen.size(), seen.toString());
            assertEquals(List.of(1, 1, 2, 2, 3), seen.stream().map(RecordedRequest::connectionId).toList());
            // the POSTs will not be retried by the agent: unmarked; the GETs are its attempts
            assertEquals(Arrays.asList(null, null, "1", "1", "2"), markers(seen));
            assertTrue(logged(run, "retry", "path=/g", "cause=failure:reset"), run.describe());

            ReportLine zeroResult = result(run, "zero");
            assertEquals(503, zeroResult.getInt("status"), "OkHttp alone would resend this POST: " + zeroResult);
            assertEquals(1, zero.requestCount(), zero.requests().toString());
            assertTrue(logged(run, "give up", "path=/z", "reason=not-idempotent"), run.describe());
        }
    }
}
