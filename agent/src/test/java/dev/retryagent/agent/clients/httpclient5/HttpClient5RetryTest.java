package dev.retryagent.agent.clients.httpclient5;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.ScriptedServer;
import dev.retryagent.agent.bootloader.runtime.HeldScheduler;
import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.policy.PolicyLoader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.HttpRoute;
import org.apache.hc.client5.http.async.AsyncExecChain;
import org.apache.hc.client5.http.async.AsyncExecChainHandler;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.async.methods.SimpleResponseConsumer;
import org.apache.hc.client5.http.classic.ExecChain;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClientBuilder;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManager;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.NoHttpResponseException;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.InputStreamEntity;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.http.io.support.ClassicRequestBuilder;
import org.apache.hc.core5.http.nio.AsyncDataConsumer;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;
import org.apache.hc.core5.http.nio.DataStreamChannel;
import org.apache.hc.core5.http.nio.entity.StringAsyncEntityProducer;
import org.apache.hc.core5.http.nio.support.BasicRequestProducer;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The HttpClient 5 adapter in process, without instrumentation: the tests call the hooks' logic the way the
 * woven HttpClient would ({@link HttpClient5Hooks#prepare} at {@code build()},
 * {@link ClassicRetryHandler#executeMinimal} for {@code MinimalHttpClient.doExecute}). The client's own retry
 * element, which the woven client skips call by call under {@code replace} ({@code skipBuiltInRetries}, tested on its
 * own here), is left out at build instead, the same effect without weaving. The forked-JVM integration tests cover
 * the real thing, against 5.2 and 5.6.
 */
class HttpClient5RetryTest {
    private static final String POLICY = "version: 1\n"
            + "defaults:\n"
            + "  backoff: { base: 5ms, cap: 10ms }\n"
            + "  budget: { ratio: 1.0, minPerSecond: 1000 }\n";

    private final ScriptedServer server = new ScriptedServer();

    @BeforeEach
    void start() throws Exception {
        install("");
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    private static void install(String extra) throws Exception {
        RetryRuntime.install(PolicyLoader.parse(POLICY + extra, "test.yaml"));
    }

    /** Polls {@code condition} until it holds or 10 seconds have passed; fails with {@code what} then. */
    private static void awaitCondition(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within 10 s: " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private static CloseableHttpClient client(HttpClientBuilder builder) {
        HttpClient5Hooks.prepare(builder);
        if (RetryRuntime.replacesBuiltInRetries()) {
            builder.disableAutomaticRetries(); // what the unwoven HttpRequestRetryExec cannot do itself
        }
        return builder.build();
    }

    private static CloseableHttpAsyncClient asyncClient(HttpAsyncClientBuilder builder) {
        HttpClient5Hooks.prepare(builder);
        if (RetryRuntime.replacesBuiltInRetries()) {
            builder.disableAutomaticRetries();
        }
        CloseableHttpAsyncClient client = builder.build();
        client.start();
        return client;
    }

    private static int retryHandlersIn(Object builder) throws Exception {
        Field field = builder.getClass().getDeclaredField("execInterceptors");
        field.setAccessible(true);
        Collection<?> entries = (Collection<?>) field.get(builder);
        int n = 0;
        for (Object entry : entries == null ? List.of() : entries) {
            Field name = entry.getClass().getDeclaredField("name");
            name.setAccessible(true);
            n += ClassicRetryHandler.NAME.equals(name.get(entry)) ? 1 : 0;
        }
        return n;
    }

    // ---- classic ----

    @Test
    void classicCallsAreRetriedInTheExecChainWithTheMarker() throws Exception {
        server.statuses(503, 503, 200);
        try (CloseableHttpClient client = client(HttpClients.custom())) {
            String body = client.execute(ClassicRequestBuilder.get(server.url()).build(), r -> {
                assertEquals(200, r.getCode());
                return EntityUtils.toString(r.getEntity());
            });
            assertEquals("r2", body);
        }
        assertEquals(3, server.requests.get());
        assertEquals(List.of("1", "2", "3"), server.markers);
    }

    @Test
    void theClientsOwnRetryElementIsSkippedPerCallUnderReplaceOnly() throws Exception {
        ClassicHttpRequest request = ClassicRequestBuilder.get(server.url()).build();
        List<ClassicHttpRequest> proceeded = new ArrayList<>();
        ClassicHttpResponse next = new org.apache.hc.core5.http.message.BasicClassicHttpResponse(204);
        ExecChain chain = (r, scope) -> {
            proceeded.add(r);
            return next;
        };
        assertSame(next, ClassicRetryHandler.skipBuiltInRetries(request, null, chain), "replace: straight on");
        assertEquals(List.of(request), proceeded);

        List<HttpRequest> asyncProceeded = new ArrayList<>();
        AsyncExecChain asyncChain = (r, producer, scope, callback) -> asyncProceeded.add(r);
        assertTrue(AsyncRetryHandler.skipBuiltInRetries(request, null, null, asyncChain, null));
        assertEquals(List.of(request), asyncProceeded);

        for (String policy : List.of("builtInRetries: keep\n", "mode: off\n", "mode: observe\n")) {
            install(policy);
            proceeded.clear();
            asyncProceeded.clear();
            assertSame(Hooks.PROCEED, ClassicRetryHandler.skipBuiltInRetries(request, null, chain), policy);
            assertFalse(AsyncRetryHandler.skipBuiltInRetries(request, null, null, asyncChain, null), policy);
            assertTrue(proceeded.isEmpty() && asyncProceeded.isEmpty(), "the element runs as configured: " + policy);
        }
    }

    @Test
    void onlyTheChainsOwnRuntimeExceptionsPassTheRetryElementsHookUnchanged() throws Exception {
        ClassicHttpRequest request = ClassicRequestBuilder.get(server.url()).build();
        IllegalStateException clients = new IllegalStateException("the client's own");
        ExecChain chain = (r, scope) -> {
            throw clients;
        };
        Hooks.Propagate passed = assertThrows(Hooks.Propagate.class,
                () -> ClassicRetryHandler.skipBuiltInRetries(request, null, chain));
        assertSame(clients, passed.getCause());
        AsyncExecChain asyncChain = (r, producer, scope, callback) -> {
            throw clients;
        };
        passed = assertThrows(Hooks.Propagate.class,
                () -> AsyncRetryHandler.skipBuiltInRetries(request, null, null, asyncChain, null));
        assertSame(clients, passed.getCause());

        // The agent's own error (the request cannot be read) is not wrapped: Hooks logs it and the element runs.
        ClassicHttpRequest broken = new org.apache.hc.core5.http.message.BasicClassicHttpRequest("GET", "/") {
            @Override
            public String getMethod() {
                throw new UnsupportedOperationException("agent-side failure");
            }
        };
        HttpRoute route = new HttpRoute(new HttpHost("http", "127.0.0.1", server.port()));
        ExecChain.Scope scope = new ExecChain.Scope("ex-1", route, broken,
                unused(org.apache.hc.client5.http.classic.ExecRuntime.class), null);
        AsyncExecChain.Scope asyncScope = new AsyncExecChain.Scope("ex-2", route, broken,
                unused(org.apache.hc.core5.concurrent.CancellableDependency.class), null,
                unused(org.apache.hc.client5.http.async.AsyncExecRuntime.class));
        // Whether the client's own retries are off depends on the call's rule: its request is read.
        assertThrows(UnsupportedOperationException.class,
                () -> new HttpClient5Hooks().onEnterMayReplace(HttpClient5Hooks.RETRY_EXECUTE, null,
                        new Object[] {broken, scope, chain}));
        assertThrows(UnsupportedOperationException.class,
                () -> new HttpClient5Hooks().onEnter(HttpClient5Hooks.ASYNC_RETRY_EXECUTE, null,
                        new Object[] {broken, null, asyncScope, asyncChain, null}));
    }

    /** An object the scopes require and this test never uses: any call on it fails the test. */
    private static <T> T unused(Class<T> type) {
        return type.cast(java.lang.reflect.Proxy.newProxyInstance(HttpClient5RetryTest.class.getClassLoader(),
                new Class<?>[] {type}, (proxy, method, args) -> {
                    throw new AssertionError("unexpected " + method.getName());
                }));
    }

    /**
     * HttpRequestRetryExec names the target in the NoHttpResponseException of a call it gives up on ("HOST:PORT failed
     * to respond"), except for an aborted call or an entity it cannot send again: the same when the agent skips it.
     */
    @Test
    void aCallThatGotNoResponseEndsWithTheRetryElementsOwnMessage() throws Exception {
        HttpRoute route = new HttpRoute(new HttpHost("http", "127.0.0.1", 4711));
        NoHttpResponseException core = new NoHttpResponseException("The target server failed to respond");
        ExecChain chain = (r, scope) -> {
            throw core;
        };
        for (boolean aborted : new boolean[] {false, true}) {
            for (boolean repeatable : new boolean[] {true, false}) {
                ClassicHttpRequest post = ClassicRequestBuilder.post(server.url())
                        .setEntity(repeatable ? new StringEntity("b")
                                : new InputStreamEntity(new ByteArrayInputStream(new byte[] {1}), 1, null))
                        .build();
                ExecChain.Scope scope = new ExecChain.Scope("ex-1", route, post, execRuntime(aborted), null);
                NoHttpResponseException thrown = assertThrows(NoHttpResponseException.class,
                        () -> ClassicRetryHandler.skipBuiltInRetries(post, scope, chain));
                if (aborted || !repeatable) {
                    assertSame(core, thrown, "aborted=" + aborted + " repeatable=" + repeatable);
                } else {
                    assertEquals("127.0.0.1:4711 failed to respond", thrown.getMessage());
                    assertArrayEquals(core.getStackTrace(), thrown.getStackTrace());
                }
            }
        }
    }

    private static org.apache.hc.client5.http.classic.ExecRuntime execRuntime(boolean aborted) {
        return (org.apache.hc.client5.http.classic.ExecRuntime) java.lang.reflect.Proxy.newProxyInstance(
                HttpClient5RetryTest.class.getClassLoader(),
                new Class<?>[] {org.apache.hc.client5.http.classic.ExecRuntime.class}, (proxy, method, args) -> {
                    if (method.getName().equals("isExecutionAborted")) {
                        return aborted;
                    }
                    throw new AssertionError("unexpected " + method.getName());
                });
    }

    /** A call whose rule is in observe or off goes out as without the agent: its client's own retries run
     * (docs/reference.md#observe). */
    @Test
    void theClientsOwnRetryElementRunsForACallWhoseRuleIsObservedOrOff() throws Exception {
        install("rules:\n  - match: { path: /observed }\n    mode: observe\n"
                + "  - match: { path: /untouched }\n    mode: off\n");
        HttpRoute route = new HttpRoute(new HttpHost("http", "127.0.0.1", server.port()));
        List<ClassicHttpRequest> proceeded = new ArrayList<>();
        ExecChain chain = (r, scope) -> {
            proceeded.add(r);
            return new org.apache.hc.core5.http.message.BasicClassicHttpResponse(204);
        };
        for (String path : List.of("/observed", "/untouched")) {
            ClassicHttpRequest request = ClassicRequestBuilder.get(server.url().replace("/items", path)).build();
            ExecChain.Scope scope = new ExecChain.Scope("ex-1", route, request,
                    unused(org.apache.hc.client5.http.classic.ExecRuntime.class), null);
            assertSame(Hooks.PROCEED, ClassicRetryHandler.skipBuiltInRetries(request, scope, chain), path);
            AsyncExecChain.Scope asyncScope = new AsyncExecChain.Scope("ex-2", route, request,
                    unused(org.apache.hc.core5.concurrent.CancellableDependency.class), null,
                    unused(org.apache.hc.client5.http.async.AsyncExecRuntime.class));
            assertFalse(AsyncRetryHandler.skipBuiltInRetries(request, null, asyncScope, (r, p, sc, cb) -> {
                throw new AssertionError("skipped");
            }, null), path);
        }
        assertTrue(proceeded.isEmpty());
        ClassicHttpRequest enforced = ClassicRequestBuilder.get(server.url()).build();
        ExecChain.Scope scope = new ExecChain.Scope("ex-3", route, enforced,
                unused(org.apache.hc.client5.http.classic.ExecRuntime.class), null);
        assertTrue(ClassicRetryHandler.skipBuiltInRetries(enforced, scope, chain) instanceof ClassicHttpResponse,
                "the defaults enforce: straight on");
        assertEquals(List.of(enforced), proceeded);
    }

    @Test
    void aBuilderGetsTheHandlerOnceHoweverOftenItBuilds() throws Exception {
        HttpClientBuilder builder = HttpClients.custom();
        client(builder).close();
        client(builder).close();
        assertEquals(1, retryHandlersIn(builder));
        HttpAsyncClientBuilder async = HttpAsyncClientBuilder.create();
        HttpClient5Hooks.prepare(async);
        HttpClient5Hooks.prepare(async);
        assertEquals(1, retryHandlersIn(async));
    }

    @Test
    void replaceLeavesTheClientsOwnRetryStrategyOutKeepLeavesItAsConfigured() throws Exception {
        DefaultHttpRequestRetryStrategy eager = new DefaultHttpRequestRetryStrategy(1, TimeValue.ofMilliseconds(10));
        server.script(n -> 503);
        try (CloseableHttpClient client = client(HttpClients.custom().setRetryStrategy(eager))) {
            ClassicHttpRequest post = ClassicRequestBuilder.post(server.url()).setEntity(new StringEntity("b")).build();
            assertEquals(503, client.execute(post, r -> r.getCode()).intValue());
        }
        assertEquals(1, server.requests.get(), "replace: a POST without a key is never retried, by anyone");

        install("builtInRetries: keep\n");
        server.requests.set(0);
        try (CloseableHttpClient client = client(HttpClients.custom().setRetryStrategy(eager))) {
            ClassicHttpRequest post = ClassicRequestBuilder.post(server.url()).setEntity(new StringEntity("b")).build();
            assertEquals(503, client.execute(post, r -> r.getCode()).intValue());
        }
        assertEquals(2, server.requests.get(), "keep: the client's own strategy still retries the POST once");

        server.requests.set(0);
        server.markers.clear();
        server.statuses(503, 200);
        try (CloseableHttpClient client = client(HttpClients.custom().disableAutomaticRetries())) {
            assertEquals(200, client.execute(ClassicRequestBuilder.get(server.url()).build(), r -> r.getCode()).intValue());
        }
        assertEquals(List.of("1", "2"), server.markers, "keep with retries disabled by the application: the agent's only");
    }

    @Test
    void aNonRepeatableEntityIsSentOnce() throws Exception {
        server.statuses(503, 200);
        try (CloseableHttpClient client = client(HttpClients.custom())) {
            ClassicHttpRequest post = ClassicRequestBuilder.post(server.url()).addHeader("Idempotency-Key", "k")
                    .setEntity(new InputStreamEntity(new ByteArrayInputStream("once".getBytes()), -1,
                            ContentType.TEXT_PLAIN)).build();
            assertEquals(503, client.execute(post, r -> r.getCode()).intValue());
        }
        assertEquals(1, server.requests.get());
    }

    @Test
    void aPostWithAnIdempotencyKeySendsTheSameKeyAndBody() throws Exception {
        server.statuses(503, 200);
        try (CloseableHttpClient client = client(HttpClients.custom())) {
            ClassicHttpRequest post = ClassicRequestBuilder.post(server.url()).addHeader("Idempotency-Key", "k-1")
                    .setEntity(new StringEntity("payload")).build();
            assertEquals(200, client.execute(post, r -> r.getCode()).intValue());
        }
        assertEquals(List.of("k-1", "k-1"), server.keys);
        assertArrayEquals(server.bodies.get(0), server.bodies.get(1));
        assertEquals("payload", new String(server.bodies.get(1), StandardCharsets.UTF_8));
    }

    @Test
    void discardedResponsesGoBackToThePool() throws Exception {
        server.script(n -> n % 2 == 0 ? 503 : 200);
        PoolingHttpClientConnectionManager pool = PoolingHttpClientConnectionManagerBuilder.create()
                .setMaxConnTotal(2).setMaxConnPerRoute(2).build();
        RequestConfig config = RequestConfig.custom().setConnectionRequestTimeout(Timeout.ofSeconds(2)).build();
        try (CloseableHttpClient client = client(HttpClients.custom().setConnectionManager(pool)
                .setDefaultRequestConfig(config))) {
            for (int i = 0; i < 30; i++) { // a leak per discarded response would exhaust the pool at the third
                assertEquals(200, client.execute(ClassicRequestBuilder.get(server.url()).build(), r -> r.getCode()).intValue());
            }
            assertEquals(0, pool.getTotalStats().getLeased());
        }
        assertEquals(60, server.requests.get());
    }

    @Test
    void theMinimalClientIsRetriedThroughItsOwnExecute() throws Exception {
        server.statuses(503, 503, 200);
        try (CloseableHttpClient client = HttpClients.createMinimal()) {
            ClassicHttpRequest get = ClassicRequestBuilder.get(server.url()).build();
            Object result = ClassicRetryHandler.executeMinimal((org.apache.hc.client5.http.impl.classic.MinimalHttpClient)
                    client, HttpHost.create(server.url().substring(0, server.url().indexOf("/items"))), get, null);
            try (CloseableHttpResponse response = (CloseableHttpResponse) result) {
                assertEquals(200, response.getCode());
                assertEquals("r2", EntityUtils.toString(response.getEntity()));
            }
        }
        assertEquals(List.of("1", "2", "3"), server.markers);
    }

    // ---- async ----

    /** Counts the callbacks of one async call. */
    private static final class Callback<T> implements FutureCallback<T> {
        final AtomicInteger completed = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();
        final AtomicInteger cancelled = new AtomicInteger();
        final List<String> threads = new CopyOnWriteArrayList<>();
        final CountDownLatch done = new CountDownLatch(1);
        volatile T result;

        @Override
        public void completed(T value) {
            result = value;
            threads.add(Thread.currentThread().getName());
            completed.incrementAndGet();
            done.countDown();
        }

        @Override
        public void failed(Exception ex) {
            failed.incrementAndGet();
            done.countDown();
        }

        @Override
        public void cancelled() {
            cancelled.incrementAndGet();
            done.countDown();
        }
    }

    @Test
    void asyncCallsAreRetriedAndCallBackOnceWithTheFinalResponse() throws Exception {
        server.statuses(503, 503, 200);
        try (CloseableHttpAsyncClient client = asyncClient(HttpAsyncClientBuilder.create())) {
            Callback<SimpleHttpResponse> callback = new Callback<>();
            Future<SimpleHttpResponse> future = client.execute(SimpleRequestBuilder.get(server.url()).build(), callback);
            SimpleHttpResponse response = future.get(10, TimeUnit.SECONDS);
            assertEquals(200, response.getCode());
            assertEquals("r2", response.getBodyText());
            // The future completes before it calls the callback back; it calls back at most once.
            assertTrue(callback.done.await(10, TimeUnit.SECONDS));
            assertEquals(1, callback.completed.get());
            assertEquals(0, callback.failed.get() + callback.cancelled.get());
            assertTrue(callback.threads.get(0).startsWith("httpclient-dispatch"), callback.threads.toString());
        }
        assertEquals(List.of("1", "2", "3"), server.markers);
    }

    @Test
    void asyncPostWithAKeyResendsTheSameBodyANonRepeatableProducerIsSentOnce() throws Exception {
        server.statuses(503, 200);
        try (CloseableHttpAsyncClient client = asyncClient(HttpAsyncClientBuilder.create())) {
            SimpleHttpRequest post = SimpleRequestBuilder.post(server.url()).addHeader("Idempotency-Key", "k-2")
                    .setBody("payload", ContentType.TEXT_PLAIN).build();
            assertEquals(200, client.execute(post, null).get(10, TimeUnit.SECONDS).getCode());
            assertEquals(List.of("k-2", "k-2"), server.keys);
            assertArrayEquals(server.bodies.get(0), server.bodies.get(1));
            assertEquals("payload", new String(server.bodies.get(1), StandardCharsets.UTF_8));

            server.requests.set(0);
            server.statuses(503, 200);
            SimpleHttpRequest head = SimpleRequestBuilder.post(server.url()).addHeader("Idempotency-Key", "k-3").build();
            AsyncEntityProducer once = new OneShot(new StringAsyncEntityProducer("once"));
            Future<SimpleHttpResponse> future = client.execute(new BasicRequestProducer(head, once),
                    SimpleResponseConsumer.create(), null);
            assertEquals(503, future.get(10, TimeUnit.SECONDS).getCode());
            assertEquals(1, server.requests.get());
        }
    }

    @Test
    void cancellingTheFutureStopsTheRetries() throws Exception {
        HeldScheduler scheduler = new HeldScheduler();
        RetryRuntime.install(PolicyLoader.parse(POLICY + "rules:\n  - match: { path: /items }\n    maxAttempts: 5\n"
                + "    backoff: { base: 400ms, cap: 400ms, jitter: none }\n", "test.yaml"), scheduler);
        server.statuses(503, 503, 503, 503, 503);
        ChainEnd chainEnd = new ChainEnd();
        try (CloseableHttpAsyncClient client = asyncClient(HttpAsyncClientBuilder.create()
                .addExecInterceptorFirst("chain-end", chainEnd))) {
            Callback<SimpleHttpResponse> callback = new Callback<>();
            Future<SimpleHttpResponse> future = client.execute(SimpleRequestBuilder.get(server.url()).build(), callback);
            HeldScheduler.Wait wait = scheduler.awaitWait(); // attempt 1 answered (503): the loop waits for attempt 2
            assertEquals(400, wait.delayMillis());
            assertTrue(future.cancel(true));
            wait.end(); // the wait is over: the loop finds the call cancelled and ends it instead of sending attempt 2
            assertEquals(List.of("failed Canceled"), chainEnd.heard, "the rest of the chain hears of one failure");
            assertEquals(0, scheduler.pending(), "no wait after the cancel");
            assertEquals(1, server.requests.get(), "no attempt after the cancel");
            assertEquals(1, callback.cancelled.get());
            assertEquals(0, callback.completed.get() + callback.failed.get());
        }
    }

    /**
     * The first element of an async exec chain, the application's end: records what the elements after it (the
     * agent's handler among them) hand back, which is what the client's future hears.
     */
    private static final class ChainEnd implements AsyncExecChainHandler {
        final List<String> heard = new CopyOnWriteArrayList<>();

        @Override
        public void execute(HttpRequest request, AsyncEntityProducer producer, AsyncExecChain.Scope scope,
                            AsyncExecChain chain, AsyncExecCallback callback) throws HttpException, IOException {
            chain.proceed(request, producer, scope, new AsyncExecCallback() {
                @Override
                public AsyncDataConsumer handleResponse(HttpResponse response, EntityDetails details)
                        throws HttpException, IOException {
                    heard.add("response " + response.getCode());
                    return callback.handleResponse(response, details);
                }

                @Override
                public void handleInformationResponse(HttpResponse response) throws HttpException, IOException {
                    callback.handleInformationResponse(response);
                }

                @Override
                public void completed() {
                    heard.add("completed");
                    callback.completed();
                }

                @Override
                public void failed(Exception cause) {
                    heard.add("failed " + cause.getMessage());
                    callback.failed(cause);
                }
            });
        }
    }

    @Test
    void asyncDiscardedResponsesGoBackToThePool() throws Exception {
        server.script(n -> n % 2 == 0 ? 503 : 200);
        PoolingAsyncClientConnectionManager pool = PoolingAsyncClientConnectionManagerBuilder.create()
                .setMaxConnTotal(2).setMaxConnPerRoute(2).build();
        RequestConfig config = RequestConfig.custom().setConnectionRequestTimeout(Timeout.ofSeconds(2)).build();
        try (CloseableHttpAsyncClient client = asyncClient(HttpAsyncClientBuilder.create().setConnectionManager(pool)
                .setDefaultRequestConfig(config))) {
            for (int i = 0; i < 30; i++) { // a leak per discarded response would exhaust the pool at the third
                assertEquals(200, client.execute(SimpleRequestBuilder.get(server.url()).build(), null)
                        .get(10, TimeUnit.SECONDS).getCode());
            }
            // The future completes when the last response has been consumed; its connection goes back a moment after.
            awaitCondition(() -> pool.getTotalStats().getLeased() == 0, "no connection leased");
            assertEquals(0, pool.getTotalStats().getLeased());
        }
        assertEquals(60, server.requests.get());
    }

    /** A producer that says it cannot be repeated. */
    private static final class OneShot implements AsyncEntityProducer {
        private final AsyncEntityProducer delegate;

        OneShot(AsyncEntityProducer delegate) {
            this.delegate = delegate;
        }

        @Override
        public boolean isRepeatable() {
            return false;
        }

        @Override
        public void failed(Exception cause) {
            delegate.failed(cause);
        }

        @Override
        public long getContentLength() {
            return delegate.getContentLength();
        }

        @Override
        public String getContentType() {
            return delegate.getContentType();
        }

        @Override
        public String getContentEncoding() {
            return delegate.getContentEncoding();
        }

        @Override
        public boolean isChunked() {
            return delegate.isChunked();
        }

        @Override
        public Set<String> getTrailerNames() {
            return delegate.getTrailerNames();
        }

        @Override
        public int available() {
            return delegate.available();
        }

        @Override
        public void produce(DataStreamChannel channel) throws java.io.IOException {
            delegate.produce(channel);
        }

        @Override
        public void releaseResources() {
            delegate.releaseResources();
        }
    }
}
