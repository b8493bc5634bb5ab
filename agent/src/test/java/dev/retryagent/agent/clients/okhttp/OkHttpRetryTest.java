package dev.retryagent.agent.clients.okhttp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.ScriptedServer;
import dev.retryagent.agent.bootloader.runtime.HeldScheduler;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.policy.PolicyLoader;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The OkHttp adapter in process, without instrumentation: the tests call the hooks' logic the way the woven
 * OkHttp would ({@link OkHttpHooks#clientInit} when a client is built, {@link OkHttpHooks#enqueue} for
 * {@code Call.enqueue}). The forked-JVM integration tests cover the real thing.
 */
class OkHttpRetryTest {
    private static final String POLICY = "version: 1\n"
            + "defaults:\n  backoff: { base: 10ms, cap: 20ms }\n";

    private final ScriptedServer server = new ScriptedServer();

    @BeforeEach
    void start() throws Exception {
        RetryRuntime.install(PolicyLoader.parse(POLICY, "test.yaml"));
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    private static OkHttpClient client(OkHttpClient.Builder builder) {
        OkHttpHooks.clientInit(builder);
        return builder.build();
    }

    /**
     * Stops {@code client}'s dispatcher and waits until every call it ran has returned: after that, and with no
     * wait of the loop left, nothing can call the application back any more.
     */
    private static void awaitDispatcherDone(OkHttpClient client) throws InterruptedException {
        ExecutorService dispatcher = client.dispatcher().executorService();
        dispatcher.shutdown();
        assertTrue(dispatcher.awaitTermination(10, TimeUnit.SECONDS), "the dispatcher's calls never returned");
    }

    @Test
    void theInterceptorIsFirstAndThereExactlyOnceHoweverTheBuilderWasMade() {
        Interceptor own = chain -> chain.proceed(chain.request());
        OkHttpClient client = client(new OkHttpClient.Builder().addInterceptor(own));
        assertEquals(List.of(RetryInterceptor.INSTANCE, own), client.interceptors());

        OkHttpClient.Builder copy = client.newBuilder(); // copies the list, the agent's interceptor included
        copy.interceptors().add(0, chain -> chain.proceed(chain.request()));
        OkHttpClient second = client(copy);
        assertEquals(3, second.interceptors().size());
        assertEquals(RetryInterceptor.INSTANCE, second.interceptors().get(0));
        assertEquals(1, second.interceptors().stream().filter(i -> i instanceof RetryInterceptor).count());
    }

    /** The switch also turns OkHttp's route, proxy and TLS fallbacks off: it stays as the application set it. */
    @Test
    void retryOnConnectionFailureStaysAsTheApplicationSetIt() {
        assertTrue(client(new OkHttpClient.Builder()).retryOnConnectionFailure(), "builtInRetries: replace");
        assertFalse(client(new OkHttpClient.Builder().retryOnConnectionFailure(false)).retryOnConnectionFailure());
    }

    @Test
    void aSyncCallIsRetriedWithTheMarkerOnEachAttempt() throws IOException {
        server.statuses(503, 503);
        OkHttpClient client = client(new OkHttpClient.Builder());
        try (Response response = client.newCall(new Request.Builder().url(server.url()).build()).execute()) {
            assertEquals(200, response.code());
            assertEquals("r2", response.body().string());
        }
        assertEquals(List.of("1", "2", "3"), server.markers);
        assertEquals(0, client.connectionPool().connectionCount() - client.connectionPool().idleConnectionCount());
    }

    @Test
    void aPostWithoutKeyIsSentOnce() throws IOException {
        server.statuses(503);
        OkHttpClient client = client(new OkHttpClient.Builder());
        Request post = new Request.Builder().url(server.url()).post(RequestBody.create("x", MediaType.get("text/plain"))).build();
        try (Response response = client.newCall(post).execute()) {
            assertEquals(503, response.code());
        }
        assertEquals(1, server.requests.get());
    }

    @Test
    void anAsyncCallIsRetriedOffTheDispatcherAndCalledBackOnce() throws Exception {
        HeldScheduler scheduler = new HeldScheduler();
        RetryRuntime.install(PolicyLoader.parse(POLICY, "test.yaml"), scheduler);
        server.statuses(503, 502);
        OkHttpClient client = client(new OkHttpClient.Builder());
        Call call = client.newCall(new Request.Builder().url(server.url()).build());
        AtomicInteger callbacks = new AtomicInteger();
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(1);
        Callback callback = new Callback() {
            @Override
            public void onFailure(Call c, IOException e) {
                callbacks.incrementAndGet();
                seen.add("failure " + e);
                done.countDown();
            }

            @Override
            public void onResponse(Call c, Response response) throws IOException {
                callbacks.incrementAndGet();
                seen.add((c == call) + " " + response.code() + " " + response.body().string());
                response.close();
                done.countDown();
            }
        };
        assertTrue(OkHttpHooks.enqueue(call, callback), "the loop takes the call over");
        for (int retry = 2; retry <= 3; retry++) {
            HeldScheduler.Wait wait = scheduler.awaitWait(); // attempt retry - 1 answered: the loop waits
            // The dispatcher thread that heard the attempt end only scheduled the wait; it does not wait itself.
            assertTrue(wait.scheduledOn().startsWith("OkHttp"), wait.scheduledOn());
            assertTrue(wait.delayMillis() >= 0 && wait.delayMillis() <= 20, "backoff cap 20ms: " + wait.delayMillis());
            assertEquals(0, callbacks.get(), "no callback while the loop waits");
            wait.end();
        }
        assertTrue(done.await(10, TimeUnit.SECONDS));
        awaitDispatcherDone(client);
        assertEquals(0, scheduler.pending(), "no wait after the last attempt");
        assertEquals(1, callbacks.get());
        assertEquals(List.of("true 200 r2"), seen, "called back with the application's own call");
        assertEquals(List.of("1", "2", "3"), server.markers);
        assertTrue(call.isExecuted());
    }

    /**
     * One layer (docs/reference.md#one-retry-layer): an application interceptor that makes its own call, through
     * another client, to the same failing server, inside every attempt. Only the outer call retries; the inner one is
     * sent once per outer attempt, marked with the outer attempt's number: 3 + 3 requests, never 3 + 9.
     */
    @Test
    void aCallMadeInsideAnAttemptIsSentOncePerAttemptSyncAndAsync() throws Exception {
        server.script(n -> n < 40 ? 503 : 200);
        OkHttpClient inner = client(new OkHttpClient.Builder());
        Interceptor own = chain -> {
            try (Response r = inner.newCall(new Request.Builder().url(server.url().replace("/items", "/inner")).build())
                    .execute()) {
                assertEquals(503, r.code());
            }
            return chain.proceed(chain.request());
        };
        OkHttpClient outer = client(new OkHttpClient.Builder().addInterceptor(own));
        try (Response response = outer.newCall(new Request.Builder().url(server.url()).build()).execute()) {
            assertEquals(503, response.code());
        }
        assertEquals(List.of("/inner", "/items", "/inner", "/items", "/inner", "/items"), server.paths);
        assertEquals(List.of("1", "1", "2", "2", "3", "3"), server.markers);

        server.paths.clear();
        server.markers.clear();
        CountDownLatch done = new CountDownLatch(1);
        assertTrue(OkHttpHooks.enqueue(outer.newCall(new Request.Builder().url(server.url()).build()), new Callback() {
            @Override
            public void onFailure(Call c, IOException e) {
                done.countDown();
            }

            @Override
            public void onResponse(Call c, Response response) {
                response.close();
                done.countDown();
            }
        }));
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertEquals(List.of("/inner", "/items", "/inner", "/items", "/inner", "/items"), server.paths,
                "async: each attempt, run on a dispatcher thread, is a scope too");
        assertEquals(List.of("1", "1", "2", "2", "3", "3"), server.markers);
    }

    @Test
    void cancellingTheApplicationsCallStopsTheRetries() throws Exception {
        HeldScheduler scheduler = new HeldScheduler();
        RetryRuntime.install(PolicyLoader.parse("version: 1\n"
                + "defaults:\n  maxAttempts: 5\n  backoff: { base: 300ms, cap: 300ms, jitter: none }\n", "slow.yaml"),
                scheduler);
        server.statuses(503, 503, 503, 503);
        OkHttpClient client = client(new OkHttpClient.Builder());
        Call call = client.newCall(new Request.Builder().url(server.url()).build());
        CountDownLatch done = new CountDownLatch(1);
        List<String> seen = new CopyOnWriteArrayList<>();
        OkHttpHooks.enqueue(call, new Callback() {
            @Override
            public void onFailure(Call c, IOException e) {
                seen.add("failure " + e.getMessage());
                done.countDown();
            }

            @Override
            public void onResponse(Call c, Response response) {
                seen.add("response " + response.code());
                response.close();
                done.countDown();
            }
        });
        HeldScheduler.Wait wait = scheduler.awaitWait(); // attempt 1 answered (503): the loop waits for attempt 2
        assertEquals(300, wait.delayMillis());
        call.cancel();
        OkHttpAsyncExchange.cancelled(call); // what the hook at the exit of RealCall.cancel() does
        wait.end(); // the wait is over: the loop finds the call cancelled
        assertTrue(done.await(5, TimeUnit.SECONDS));
        awaitDispatcherDone(client);
        assertEquals(0, scheduler.pending(), "no wait after the cancel");
        assertEquals(List.of("failure Canceled"), seen);
        assertEquals(1, server.requests.get());
    }

    /**
     * {@code Dispatcher.cancelAll()}: a call waiting for its next attempt is in none of the dispatcher's queues; the
     * hook at its exit cancels it, and only the calls of that dispatcher.
     */
    @Test
    void cancelAllOfADispatcherStopsItsWaitingCallsOnly() throws Exception {
        HeldScheduler scheduler = new HeldScheduler();
        RetryRuntime.install(PolicyLoader.parse("version: 1\n"
                + "defaults:\n  maxAttempts: 2\n  backoff: { base: 300ms, cap: 300ms, jitter: none }\n", "slow.yaml"),
                scheduler);
        server.statuses(503, 503, 200);
        OkHttpClient cancelled = client(new OkHttpClient.Builder());
        OkHttpClient other = client(new OkHttpClient.Builder());
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(2);
        Callback callback = new Callback() {
            @Override
            public void onFailure(Call c, IOException e) {
                seen.add(c.request().url().encodedPath() + " failure " + e.getMessage());
                done.countDown();
            }

            @Override
            public void onResponse(Call c, Response response) {
                seen.add(c.request().url().encodedPath() + " response " + response.code());
                response.close();
                done.countDown();
            }
        };
        OkHttpHooks.enqueue(cancelled.newCall(new Request.Builder().url(server.url() + "/a").build()), callback);
        HeldScheduler.Wait waitA = scheduler.awaitWait();
        OkHttpHooks.enqueue(other.newCall(new Request.Builder().url(server.url() + "/b").build()), callback);
        HeldScheduler.Wait waitB = scheduler.awaitWait();
        cancelled.dispatcher().cancelAll();
        new OkHttpHooks().onExit(OkHttpHooks.CANCEL_ALL, cancelled.dispatcher(), new Object[0]); // the hook's part
        waitA.end();
        waitB.end();
        assertTrue(done.await(5, TimeUnit.SECONDS));
        awaitDispatcherDone(cancelled);
        awaitDispatcherDone(other);
        assertEquals(Set.of("/items/a failure Canceled", "/items/b response 200"), Set.copyOf(seen));
        assertEquals(3, server.requests.get(), "no second attempt of the cancelled call");
    }

    /** OkHttp's own follow-up of a 503 goes only for calls whose rule the agent enforces
     * (docs/reference.md#one-retry-layer, #observe). */
    @Test
    void okHttpsFollowUpOfA503StaysForACallWhoseRuleIsObservedOrOff() throws Exception {
        RetryRuntime.install(PolicyLoader.parse("version: 1\nrules:\n  - match: { path: /observed }\n    mode: observe\n"
                + "  - match: { path: /untouched }\n    mode: off\n", "rules.yaml"));
        for (String path : List.of("/observed", "/untouched")) {
            assertEquals(dev.retryagent.agent.bootloader.runtime.Hooks.PROCEED, OkHttpHooks.followUp(unavailable(path)), path);
        }
        assertEquals(null, OkHttpHooks.followUp(unavailable("/enforced")), "no follow-up: the agent retries");
        RetryRuntime.install(PolicyLoader.parse("version: 1\nbuiltInRetries: keep\n", "keep.yaml"));
        assertEquals(dev.retryagent.agent.bootloader.runtime.Hooks.PROCEED, OkHttpHooks.followUp(unavailable("/enforced")));
    }

    /**
     * OkHttp's resend after a failure (its {@code recover}): under {@code replace}, never for a request a server may
     * have read, whatever OkHttp says of it; OkHttp's own answer for one that never left, and under {@code keep},
     * {@code observe} and {@code off}.
     */
    @Test
    void okHttpsResendAfterAFailureGoesOnlyForARequestThatNeverLeftUnderReplace() throws Exception {
        RetryRuntime.install(PolicyLoader.parse("version: 1\nrules:\n  - match: { path: /observed }\n    mode: observe\n",
                "rules.yaml"));
        Object proceed = dev.retryagent.agent.bootloader.runtime.Hooks.PROCEED;
        IOException dropped = new IOException("unexpected end of stream on http://127.0.0.1:9/...");
        Request post = new Request.Builder().url("http://127.0.0.1:9/items")
                .post(RequestBody.create(new byte[] {1}, MediaType.get("text/plain"))).build();
        Request get = new Request.Builder().url("http://127.0.0.1:9/items").build();
        assertEquals(false, OkHttpHooks.recover(dropped, post, true), "4.12: sent, so the policy decides");
        assertEquals(false, OkHttpHooks.recover(dropped, get, null), "5.x: the same");
        assertEquals(proceed, OkHttpHooks.recover(dropped, post, false), "4.12 says: not sent");
        for (IOException neverSent : List.of(new java.net.ConnectException("refused"),
                new java.net.NoRouteToHostException("no route"), new java.net.UnknownHostException("nowhere"),
                new javax.net.ssl.SSLHandshakeException("no common protocol"),
                new okhttp3.internal.http2.ConnectionShutdownException(),
                new okhttp3.internal.http2.StreamResetException(okhttp3.internal.http2.ErrorCode.REFUSED_STREAM))) {
            assertEquals(proceed, OkHttpHooks.recover(neverSent, post, null), neverSent.toString());
        }
        assertEquals(false, OkHttpHooks.recover(
                new okhttp3.internal.http2.StreamResetException(okhttp3.internal.http2.ErrorCode.CANCEL), post, null),
                "a stream reset after the peer took it");
        Request observed = new Request.Builder().url("http://127.0.0.1:9/observed").build();
        assertEquals(proceed, OkHttpHooks.recover(dropped, observed, true), "observe changes no traffic");
        RetryRuntime.install(PolicyLoader.parse("version: 1\nbuiltInRetries: keep\n", "keep.yaml"));
        assertEquals(proceed, OkHttpHooks.recover(dropped, post, true));
    }

    /**
     * OkHttp's follow-up of a 408 (it resends the request once, POST included: the server says it did not receive
     * it whole) is left to the agent only where the agent retries that 408 itself: a request it marked, under a rule
     * that retries 408.
     */
    @Test
    void okHttpsFollowUpOfA408StaysUnlessTheAgentRetriesIt() throws Exception {
        RetryRuntime.install(PolicyLoader.parse("version: 1\nrules:\n  - match: { path: /no408 }\n"
                + "    retryOn: { statuses: [503] }\n", "rules.yaml"));
        Object proceed = dev.retryagent.agent.bootloader.runtime.Hooks.PROCEED;
        assertEquals(null, OkHttpHooks.followUp(timedOut("/items", true)), "marked: the agent retries the 408");
        assertEquals(proceed, OkHttpHooks.followUp(timedOut("/items", false)), "unmarked: the agent will not retry");
        assertEquals(proceed, OkHttpHooks.followUp(timedOut("/no408", true)), "a rule that does not retry 408");
        RetryRuntime.install(PolicyLoader.parse("version: 1\nbuiltInRetries: keep\n", "keep.yaml"));
        assertEquals(proceed, OkHttpHooks.followUp(timedOut("/items", true)));
    }

    private static Response timedOut(String path, boolean marked) {
        Request.Builder request = new Request.Builder().url("http://127.0.0.1:9/" + path.substring(1));
        if (marked) {
            request.header("Retry-Attempt", "1");
        }
        return new Response.Builder().request(request.build()).protocol(okhttp3.Protocol.HTTP_1_1).code(408)
                .message("Request Timeout").build();
    }

    private static Response unavailable(String path) {
        return new Response.Builder().request(new Request.Builder().url("http://127.0.0.1:9/" + path.substring(1)).build())
                .protocol(okhttp3.Protocol.HTTP_1_1).code(503).message("Service Unavailable")
                .header("Retry-After", "0").build();
    }
}
