package dev.retryagent.it.httpclient4;

import static dev.retryagent.it.harness.Runs.assertOneCallbackEach;
import static dev.retryagent.it.harness.Runs.assertVersion;
import static dev.retryagent.it.harness.Runs.markers;
import static dev.retryagent.it.harness.Runs.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import org.junit.jupiter.api.Tag;

import dev.retryagent.it.httpclient4.HttpClient4Batch;
import dev.retryagent.it.contract.Batch;
import dev.retryagent.it.contract.ClientContract;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.PoolOfFive;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.Step;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The agent on Apache HttpClient 4.5 with HttpAsyncClient 4.1: 4.5.6 with 4.1.3 (an old release still common in
 * fleets) and 4.5.14 with 4.1.5 (the last ones), the newest on Java 17 and on Java 25. The driver of
 * {@link ClientContract} for HttpClient 4, in forked JVMs that run a plain HttpClient 4 application
 * ({@link HttpClient4Batch}) making classic and async calls at once, and the checks only HttpClient 4 has: every
 * classic {@code execute} overload (with and without {@code ResponseHandler}, context and target host), the client
 * kinds ({@code createSystem}, {@code custom()}, {@code createMinimal}, classic and async), the async producer and
 * host overloads, the single I/O reactor thread, and the client's own retries ({@code DefaultHttpRequestRetryHandler},
 * a {@code ServiceUnavailableRetryStrategy}) under {@code replace} and {@code keep}; and a pool of 5 connections that
 * survives 1,000 retried calls.
 */
@Tag(Jdks.MATRIX)
class HttpClient4AgentIT extends ClientContract<HttpClient4AgentIT.Jvm> {
    static final List<String> APIS = List.of("classic", "async");

    static final List<String> OVERLOADS = List.of("req", "req-ctx", "host-req", "host-req-ctx", "req-handler",
            "req-ctx-handler", "host-req-handler", "host-req-ctx-handler");

    /** One forked JVM: an HttpClient 4 version on a JDK. */
    record Jvm(ClientLibs libs, List<String> modes, Jdks.Jdk jdk) implements ClientContract.Target {
        @Override
        public ForkedApp app(String run) {
            return HttpClient4AgentIT.app(run + "-" + jdk, libs).java(jdk.java());
        }

        @Override
        public String toString() {
            return libs + " " + jdk;
        }
    }

    /** Both versions on the test JDK, the newest on Java 25, both on Java 8 and 11. */
    @Override
    protected Stream<Jvm> targets() {
        return Stream.of(quietTargets(),
                Jdks.besides(25).stream().map(jdk -> new Jvm(ClientLibs.HTTPCLIENT4_NEWEST, APIS, jdk)),
                Jdks.besides(8, 11).stream().flatMap(jdk -> Stream.of(new Jvm(ClientLibs.HTTPCLIENT4_OLDEST, APIS, jdk),
                        new Jvm(ClientLibs.HTTPCLIENT4_NEWEST, APIS, jdk)))).flatMap(s -> s);
    }

    @Override
    protected Stream<Jvm> quietTargets() {
        return Stream.of(new Jvm(ClientLibs.HTTPCLIENT4_OLDEST, APIS, Jdks.testJdk()),
                new Jvm(ClientLibs.HTTPCLIENT4_NEWEST, APIS, Jdks.testJdk()));
    }

    @Override
    protected String clientName() {
        return "apache-httpclient4";
    }

    /** Alone, neither client resends a 503 (no ServiceUnavailableRetryStrategy unless the application sets one). */
    @Override
    protected List<String> modeParts(String mode, Run run) {
        return List.of("api=" + mode);
    }

    @Override
    protected String nonReplayableBody(String mode) {
        return "stream=true"; // InputStreamEntity of unknown length
    }

    @Override
    protected String retryAfterField() {
        return "retryAfter";
    }

    @Override
    protected void addOwnCalls(Jvm jvm, Run kind, Batch calls) {
        if (kind != Run.CONTRACT) {
            calls.add("classic-own", "/own/classic", List.of("api=classic", "client=sure"), Step.status(503),
                    Step.ok());
            return;
        }
        for (String overload : OVERLOADS) {
            calls.add("classic-ov-" + overload, "/overload", List.of("api=classic", "overload=" + overload),
                    Step.status(503), Step.ok());
        }
        for (String k : List.of("system", "custom", "minimal")) {
            for (String a : APIS) {
                calls.add(a + "-client-" + k, "/kind", List.of("api=" + a, "client=" + k),
                        Step.status(503), Step.status(503), Step.ok());
            }
        }
        for (String r : List.of("host", "producer")) {
            calls.add("async-request-" + r, "/produced", List.of("api=async", "request=" + r),
                    Step.status(503), Step.status(503), Step.ok());
        }
        calls.add("classic-minimal-postKey", "/pay", List.of("api=classic", "client=minimal", "method=POST",
                "body=payload", "header=Idempotency-Key: k-3", "overload=req"), Step.status(503), Step.status(201));
        calls.add("async-producer-postKey", "/pay", List.of("api=async", "request=producer", "method=POST",
                "body=payload", "header=Idempotency-Key: k-4"), Step.status(503), Step.status(201));
        calls.add("async-minimal-nonReplayable", "/upload", List.of("api=async", "client=minimal", "method=POST",
                "body=stream", "stream=true", "header=Idempotency-Key: k-5"), Step.status(503), Step.ok());
        calls.add("async-io1-slow", "/limited", List.of("api=async", "client=io1"),
                Step.status(429).retryAfterSeconds(2), Step.ok());
        calls.add("async-io1-fast", "/fast", List.of("api=async", "client=io1", "startAfterMs=500"),
                Step.ok().body("quick"));
        // the application's ServiceUnavailableRetryStrategy would resend a 503 five times, a POST too: the policy decides
        calls.add("classic-sure", "/strategy", List.of("api=classic", "client=sure"), Step.status(503));
        calls.add("classic-sure-post", "/strategy", List.of("api=classic", "client=sure", "method=POST", "body=b"),
                Step.status(503));
        // a retry handler that resends requests already sent, POST included: the POST goes out once
        calls.add("classic-sentretry-post", "/dropped", List.of("api=classic", "client=sentretry", "method=POST",
                "body=b"), Step.dropAfterRequest());
        // DefaultHttpRequestRetryHandler resends a GET after an I/O error 3 times: the policy's 3 attempts instead
        calls.add("classic-default-dropped", "/dropped", List.of("api=classic"), Step.dropAfterRequest());
        // retries disabled by the application: the agent retries all the same
        calls.add("classic-noretries", "/noretries", List.of("api=classic", "client=noretries"), Step.status(503),
                Step.ok());
        // the application aborts its own request (as the Elasticsearch client's Cancellable does) during the wait
        calls.add("async-abort", "/cancel/abort", List.of("api=async", "abortOn=async-abort"), Step.status(503),
                Step.ok());
        calls.signalAfter("async-abort", waitingToRetry("/cancel/abort"));
    }

    @Override
    protected void checkOwn(Jvm jvm, Run kind, Batch calls, ForkedApp.Result run) {
        assertVersion(run, jvm.libs());
        assertOneCallbackEach(run);
        if (kind != Run.CONTRACT) {
            // the application's ServiceUnavailableRetryStrategy resends the 503 as without the agent, unmarked
            assertEquals(200, result(run, "classic-own").getInt("status"), run.describe());
            List<RecordedRequest> seen = calls.server("classic-own").requests();
            assertEquals(2, seen.size(), seen.toString());
            assertTrue(seen.stream().allMatch(q -> q.header("Retry-Attempt") == null), seen.toString());
            return;
        }
        // aborted while waiting between attempts: the call is cancelled, and no further attempt goes out
        assertCancelled(run, "async-abort");
        assertTrue(result(run, "async-abort").getLong("elapsedMs") < Bounds.CANCEL_MS, run.describe());
        assertEquals(1, calls.server("async-abort").requestCount(), calls.server("async-abort").requests().toString());
        for (String overload : OVERLOADS) {
            ReportLine r = result(run, "classic-ov-" + overload);
            assertEquals(200, r.getInt("status"), overload + "\n" + run.describe());
            assertEquals(List.of("1", "2"), markers(calls.server("classic-ov-" + overload).requests()), overload);
        }
        List<String> kinds = new ArrayList<>();
        for (String k : List.of("system", "custom", "minimal")) {
            for (String a : APIS) {
                kinds.add(a + "-client-" + k);
            }
        }
        kinds.addAll(List.of("async-request-host", "async-request-producer"));
        for (String id : kinds) {
            assertEquals(200, result(run, id).getInt("status"), id + "\n" + run.describe());
            assertEquals(List.of("1", "2", "3"), markers(calls.server(id).requests()), id);
        }
        for (String id : List.of("classic-minimal-postKey", "async-producer-postKey")) {
            assertEquals(201, result(run, id).getInt("status"), id + "\n" + run.describe());
            List<RecordedRequest> seen = calls.server(id).requests();
            assertEquals(List.of("payload", "payload"), seen.stream().map(RecordedRequest::bodyUtf8).toList(), id);
            assertEquals(List.of("1", "2"), markers(seen), id);
        }
        assertEquals(503, result(run, "async-minimal-nonReplayable").getInt("status"), run.describe());
        assertEquals(Arrays.asList((String) null), markers(calls.server("async-minimal-nonReplayable").requests()));

        // async: while one call waits 2 s to retry, another call on the same single I/O thread goes through
        List<RecordedRequest> slow = calls.server("async-io1-slow").awaitRequests(2, WAIT);
        RecordedRequest fast = calls.server("async-io1-fast").awaitRequests(1, WAIT).get(0);
        assertTrue(slow.get(1).millisAfter(slow.get(0)) >= 2000, slow.toString());
        assertTrue(fast.arrivalNanos() < slow.get(1).arrivalNanos(), "the fast call was not held up");
        assertTrue(result(run, "async-io1-fast").getLong("elapsedMs") < Bounds.AT_ONCE_MS, run.describe());
        assertEquals(200, result(run, "async-io1-slow").getInt("status"));
        ReportLine getCallbacks = run.lines("CALLBACKS").stream()
                .filter(l -> l.get("id").equals("async-get")).findFirst().orElseThrow();
        assertTrue(getCallbacks.get("kinds").startsWith("completed:200@I/O dispatcher"), getCallbacks.toString());

        // builtInRetries: replace supersedes the client's own retries
        assertEquals(503, result(run, "classic-sure").getInt("status"), run.describe());
        assertEquals(List.of("1", "2", "3"), markers(calls.server("classic-sure").requests()));
        assertEquals(503, result(run, "classic-sure-post").getInt("status"));
        assertEquals(1, calls.server("classic-sure-post").requestCount());
        assertTrue(result(run, "classic-sentretry-post").has("failure"), run.describe());
        assertEquals(1, calls.server("classic-sentretry-post").requestCount());
        assertTrue(result(run, "classic-default-dropped").has("failure"), run.describe());
        assertEquals(List.of("1", "2", "3"), markers(calls.server("classic-default-dropped").requests()));
        assertEquals(200, result(run, "classic-noretries").getInt("status"));
        assertEquals(List.of("1", "2"), markers(calls.server("classic-noretries").requests()));
    }

    static ForkedApp app(String name, ClientLibs libs) {
        return ForkedApp.batch("httpclient4").name("httpclient4-" + name + "-" + libs).clientLibs(libs);
    }

    /**
     * The client's own retries ({@code DefaultHttpRequestRetryHandler}, a handler that resends sent requests, a
     * {@code ServiceUnavailableRetryStrategy}) alone, under {@code builtInRetries: replace} (skipped: the policy
     * decides) and under {@code keep} (as configured, wrapping the agent's layer), against servers that always answer
     * 503 or always read the request and close the connection. Prints one {@code HTTPCLIENT4-OWN-RETRIES} line per run.
     */
    @ParameterizedTest
    @Timeout(180)
    @EnumSource(names = {"HTTPCLIENT4_OLDEST", "HTTPCLIENT4_NEWEST"})
    void theClientsOwnRetriesAloneUnderReplaceAndUnderKeep(ClientLibs libs) throws Exception {
        List<String> ids = List.of("sure-get", "sure-post", "sentretry-post", "default-post", "default-get",
                "default-503");
        // requests per server: alone, under replace, under keep
        int[][] expected = {
                {6, 6, 4, 1, 4, 2},   // alone: the strategy's 1 + 5, the handlers' 1 + 3, one 503 per call
                {3, 1, 1, 1, 3, 6},   // replace: the policy's 3 attempts where it may retry, else 1
                {18, 6, 4, 1, 12, 6}, // keep: the client's own retries around the agent's 3 attempts
        };
        List<String> modes = List.of("none", "replace", "keep");
        Map<String, String> aloneMessages = new HashMap<>();
        for (int m = 0; m < modes.size(); m++) {
            String mode = modes.get(m);
            try (Batch calls = new Batch()) {
                calls.add("sure-get", "/items", List.of("api=classic", "client=sure"), Step.status(503));
                calls.add("sure-post", "/orders", List.of("api=classic", "client=sure", "method=POST", "body=b"),
                        Step.status(503));
                calls.add("sentretry-post", "/orders", List.of("api=classic", "client=sentretry", "method=POST",
                        "body=b"), Step.dropAfterRequest());
                calls.add("default-post", "/orders", List.of("api=classic", "method=POST", "body=b"),
                        Step.dropAfterRequest());
                calls.add("default-get", "/items", List.of("api=classic"), Step.dropAfterRequest());
                // a 503 on a fresh connection, then one on the same connection kept alive (the calls run in order)
                calls.add("default-503", "/items", List.of("api=classic"), Step.status(503));
                calls.addUrl("default-503-reused", calls.server("default-503").url("/items"), List.of("api=classic"));
                ForkedApp app = app("own-retries-" + mode, libs).args("--sequential").args(calls.args());
                if (!mode.equals("none")) {
                    app.policy(POLICY + "builtInRetries: " + mode + "\n");
                }
                ForkedApp.Result run = app.run().assertExitCode(0);
                assertVersion(run, libs);
                System.out.println("HTTPCLIENT4-OWN-RETRIES libs=" + libs + " mode=" + mode + " " + String.join(" ",
                        ids.stream().map(id -> id + "=" + calls.server(id).requestCount()).toList()));
                for (int i = 0; i < ids.size(); i++) {
                    assertEquals(expected[m][i], calls.server(ids.get(i)).requestCount(),
                            mode + " " + ids.get(i) + ": " + calls.server(ids.get(i)).requests());
                }
                for (String id : List.of("sure-post", "sentretry-post", "default-post")) {
                    // POSTs without key: the agent never retries them, so never marks them
                    assertTrue(calls.server(id).requests().stream().allMatch(q -> q.header("Retry-Attempt") == null), id);
                }
                List<RecordedRequest> seen503 = calls.server("default-503").requests();
                assertEquals(seen503.get(0).connectionId(), seen503.get(seen503.size() - 1).connectionId(),
                        "the second 503 call went over the first one's connection " + seen503);
                for (String id : List.of("sure-post", "default-503", "default-503-reused")) {
                    assertEquals(503, result(run, id).getInt("status"), run.describe());
                }
                for (String id : List.of("sentretry-post", "default-post", "default-get")) {
                    assertEquals("org.apache.http.NoHttpResponseException", result(run, id).get("failure"),
                            id + ": the client's own failure\n" + run.describe());
                    // RetryExec names the target when it gives up ("127.0.0.1:PORT failed to respond"), alone
                    // as when the agent skips it
                    String message = result(run, id).get("message");
                    if (mode.equals("none")) {
                        aloneMessages.put(id, message.replace(":" + calls.server(id).port(), ":PORT"));
                    } else {
                        assertEquals(aloneMessages.get(id), message.replace(":" + calls.server(id).port(), ":PORT"),
                                mode + " " + id + ": the message the client alone gives\n" + run.describe());
                    }
                }
            }
        }
    }

    /** {@link PoolOfFive} for HttpClient 4.5 and HttpAsyncClient 4.1. */
    @ParameterizedTest
    @Timeout(180)
    @EnumSource(names = {"HTTPCLIENT4_OLDEST", "HTTPCLIENT4_NEWEST"})
    void aThousandRetriedCallsThroughAPoolOfFive(ClientLibs libs) {
        assertVersion(PoolOfFive.check(app("pool", libs)), libs);
    }
}
