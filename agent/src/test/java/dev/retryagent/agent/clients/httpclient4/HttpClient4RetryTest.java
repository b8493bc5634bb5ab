package dev.retryagent.agent.clients.httpclient4;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.ScriptedServer;
import dev.retryagent.agent.bootloader.runtime.HeldScheduler;
import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.policy.PolicyLoader;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.http.HttpHost;
import org.apache.http.HttpResponse;
import org.apache.http.client.methods.CloseableHttpResponse;
import org.apache.http.client.methods.HttpGet;
import org.apache.http.client.methods.HttpPost;
import org.apache.http.client.methods.HttpRequestWrapper;
import org.apache.http.client.protocol.HttpClientContext;
import org.apache.http.concurrent.FutureCallback;
import org.apache.http.conn.routing.HttpRoute;
import org.apache.http.entity.ContentType;
import org.apache.http.entity.InputStreamEntity;
import org.apache.http.entity.StringEntity;
import org.apache.http.impl.DefaultConnectionReuseStrategy;
import org.apache.http.impl.client.DefaultConnectionKeepAliveStrategy;
import org.apache.http.impl.conn.PoolingHttpClientConnectionManager;
import org.apache.http.impl.execchain.ClientExecChain;
import org.apache.http.impl.execchain.MinimalClientExec;
import org.apache.http.impl.execchain.RetryExec;
import org.apache.http.impl.nio.client.CloseableHttpAsyncClient;
import org.apache.http.impl.nio.client.HttpAsyncClients;
import org.apache.http.nio.client.methods.HttpAsyncMethods;
import org.apache.http.protocol.HttpRequestExecutor;
import org.apache.http.util.EntityUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The HttpClient 4 adapter in process, without instrumentation: the tests call the hooks' logic the way the woven
 * client would ({@link HttpClient4SyncExchange#execute} at a {@code MinimalClientExec},
 * {@link HttpClient4AsyncExchange#execute} for an async client's {@code execute}). The forked-JVM integration tests
 * cover the woven clients, 4.5.6 and 4.5.14.
 */
class HttpClient4RetryTest {
    private static final String POLICY = "version: 1\n"
            + "defaults:\n"
            + "  backoff: { base: 5ms, cap: 10ms }\n"
            + "  budget: { ratio: 1.0, minPerSecond: 1000 }\n";

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

    private HttpHost host() {
        return new HttpHost("127.0.0.1", server.port(), "http");
    }

    private static MinimalClientExec exec(PoolingHttpClientConnectionManager pool) {
        return new MinimalClientExec(new HttpRequestExecutor(), pool, DefaultConnectionReuseStrategy.INSTANCE,
                DefaultConnectionKeepAliveStrategy.INSTANCE);
    }

    private CloseableHttpResponse classic(ClientExecChain exec, org.apache.http.HttpRequest request) {
        Object result = HttpClient4SyncExchange.execute(exec, new HttpRoute(host()), HttpRequestWrapper.wrap(request),
                HttpClientContext.create(), null);
        return (CloseableHttpResponse) result;
    }

    // ---- classic ----

    @Test
    void classicCallsAreRetriedWithTheMarkerAndTheApplicationsRequestIsLeftAsItWas() throws Exception {
        server.statuses(503, 503, 200);
        HttpGet get = new HttpGet(server.url());
        try (PoolingHttpClientConnectionManager pool = new PoolingHttpClientConnectionManager();
             CloseableHttpResponse response = classic(exec(pool), get)) {
            assertEquals(200, response.getStatusLine().getStatusCode());
            assertEquals("r2", EntityUtils.toString(response.getEntity()));
        }
        assertEquals(List.of("1", "2", "3"), server.markers);
        assertEquals(0, get.getAllHeaders().length, "the application's request carries no marker");
    }

    @Test
    void aKeyedPostSendsTheSameBodyEachTimeAndANonRepeatableOneIsSentOnceUnmarked() throws Exception {
        server.statuses(503, 201, 503, 200);
        try (PoolingHttpClientConnectionManager pool = new PoolingHttpClientConnectionManager()) {
            HttpPost keyed = new HttpPost(server.url());
            keyed.addHeader("Idempotency-Key", "k");
            keyed.setEntity(new StringEntity("payload", ContentType.TEXT_PLAIN));
            try (CloseableHttpResponse response = classic(exec(pool), keyed)) {
                assertEquals(201, response.getStatusLine().getStatusCode());
            }
            HttpPost stream = new HttpPost(server.url());
            stream.addHeader("Idempotency-Key", "k2");
            stream.setEntity(new InputStreamEntity(new ByteArrayInputStream("once".getBytes(StandardCharsets.UTF_8)), -1));
            try (CloseableHttpResponse response = classic(exec(pool), stream)) {
                assertEquals(503, response.getStatusLine().getStatusCode());
            }
        }
        assertEquals(List.of("payload", "payload", "once"), server.bodyTexts());
        assertEquals(List.of("1", "2", "null"), server.markers);
    }

    /** Each discarded 503 is read and released: a pool of one connection serves 20 retried calls. */
    @Test
    void discardedResponsesGoBackToThePool() throws Exception {
        server.script(n -> n % 2 == 0 ? 503 : 200);
        try (PoolingHttpClientConnectionManager pool = new PoolingHttpClientConnectionManager()) {
            pool.setMaxTotal(1);
            pool.setDefaultMaxPerRoute(1);
            MinimalClientExec exec = exec(pool);
            for (int i = 0; i < 20; i++) {
                HttpGet get = new HttpGet(server.url());
                get.setConfig(org.apache.http.client.config.RequestConfig.custom().setConnectionRequestTimeout(5000).build());
                try (CloseableHttpResponse response = classic(exec, get)) {
                    assertEquals(200, response.getStatusLine().getStatusCode());
                    EntityUtils.consume(response.getEntity());
                }
            }
            assertEquals(0, pool.getTotalStats().getLeased());
        }
        assertEquals(40, server.requests.get());
    }

    @Test
    void theClientsRetryElementGoesStraightOnUnderReplaceAndRunsUnderKeep() throws Exception {
        CloseableHttpResponse marker = (CloseableHttpResponse) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {CloseableHttpResponse.class}, (p, m, a) -> null);
        AtomicInteger inner = new AtomicInteger();
        ClientExecChain next = (route, request, context, execAware) -> {
            inner.incrementAndGet();
            return marker;
        };
        RetryExec retryExec = new RetryExec(next, new org.apache.http.impl.client.DefaultHttpRequestRetryHandler());
        HttpRoute route = new HttpRoute(host());
        HttpRequestWrapper request = HttpRequestWrapper.wrap(new HttpGet(server.url()));
        assertSame(marker, HttpClient4SyncExchange.skipBuiltInRetries(retryExec, route, request,
                HttpClientContext.create(), null));
        assertEquals(1, inner.get());

        RetryRuntime.install(PolicyLoader.parse(POLICY + "builtInRetries: keep\n", "test.yaml"));
        assertSame(Hooks.PROCEED, HttpClient4SyncExchange.skipBuiltInRetries(retryExec, route, request,
                HttpClientContext.create(), null));
        RetryRuntime.install(PolicyLoader.parse(POLICY + "rules:\n  - match: { path: /items }\n    mode: observe\n",
                "test.yaml"));
        assertSame(Hooks.PROCEED, HttpClient4SyncExchange.skipBuiltInRetries(retryExec, route, request,
                HttpClientContext.create(), null), "a call whose rule is observed keeps the client's own retries");
        assertEquals(1, inner.get());
    }

    // ---- async ----

    /** A callback that records what it heard. */
    static final class Heard implements FutureCallback<HttpResponse> {
        private final List<String> events = new CopyOnWriteArrayList<>();
        private final java.util.concurrent.CountDownLatch first = new java.util.concurrent.CountDownLatch(1);

        @Override
        public void completed(HttpResponse result) {
            heard("completed:" + result.getStatusLine().getStatusCode());
        }

        @Override
        public void failed(Exception ex) {
            heard("failed:" + ex.getClass().getSimpleName());
        }

        @Override
        public void cancelled() {
            heard("cancelled");
        }

        private void heard(String event) {
            events.add(event);
            first.countDown();
        }

        /**
         * What the callback heard, once it has heard something: the future's waiters may wake before the client has
         * called the callback.
         */
        List<String> events() throws InterruptedException {
            first.await(10, TimeUnit.SECONDS);
            return events;
        }
    }

    @SuppressWarnings("unchecked")
    private static Future<HttpResponse> async(CloseableHttpAsyncClient client, org.apache.http.HttpRequest request,
                                              HttpHost host, FutureCallback<HttpResponse> callback) {
        return (Future<HttpResponse>) HttpClient4AsyncExchange.execute(client, HttpAsyncMethods.create(host, request),
                HttpAsyncMethods.createConsumer(), null, callback);
    }

    @Test
    void asyncCallsAreRetriedAndCompleteOnceWithTheFinalResponse() throws Exception {
        server.statuses(503, 503, 200);
        Heard heard = new Heard();
        try (CloseableHttpAsyncClient client = HttpAsyncClients.createDefault()) {
            client.start();
            HttpPost post = new HttpPost(server.url());
            post.addHeader("Idempotency-Key", "k");
            post.setEntity(new StringEntity("payload", ContentType.TEXT_PLAIN));
            HttpResponse response = async(client, post, host(), heard).get(10, TimeUnit.SECONDS);
            assertEquals(200, response.getStatusLine().getStatusCode());
            assertEquals("r2", EntityUtils.toString(response.getEntity()));
            assertEquals(0, post.getHeaders("Retry-Attempt").length, "the application's request is left as it was");
        }
        assertEquals(List.of("1", "2", "3"), server.markers);
        assertEquals(List.of("payload", "payload", "payload"), server.bodyTexts());
        assertEquals(List.of("completed:200"), heard.events());
    }

    @Test
    void anAsyncCallCancelledDuringAWaitSendsNoFurtherAttempt() throws Exception {
        HeldScheduler scheduler = new HeldScheduler();
        RetryRuntime.install(PolicyLoader.parse(POLICY, "test.yaml"), scheduler);
        server.statuses(503, 200);
        Heard heard = new Heard();
        try (CloseableHttpAsyncClient client = HttpAsyncClients.createDefault()) {
            client.start();
            Future<HttpResponse> future = async(client, new HttpGet(server.url()), host(), heard);
            HeldScheduler.Wait wait = scheduler.awaitWait(); // the 503 came: the loop waits for attempt 2
            assertTrue(wait.scheduledOn().startsWith("I/O dispatcher"), wait.scheduledOn());
            assertTrue(future.cancel(true));
            wait.end();
            assertThrows(CancellationException.class, () -> future.get(1, TimeUnit.SECONDS));
            assertEquals(0, scheduler.pending());
        }
        assertEquals(1, server.requests.get());
        assertEquals(List.of("cancelled"), heard.events());
    }

    @Test
    void aNonRepeatableAsyncBodyIsSentOnceUnmarked() throws Exception {
        server.statuses(503, 200);
        Heard heard = new Heard();
        try (CloseableHttpAsyncClient client = HttpAsyncClients.createDefault()) {
            client.start();
            HttpPost post = new HttpPost(server.url());
            post.addHeader("Idempotency-Key", "k");
            post.setEntity(new InputStreamEntity(new ByteArrayInputStream("once".getBytes(StandardCharsets.UTF_8)), 4));
            HttpResponse response = async(client, post, host(), heard).get(10, TimeUnit.SECONDS);
            assertEquals(503, response.getStatusLine().getStatusCode());
        }
        assertEquals(List.of("null"), server.markers);
        assertEquals(List.of("completed:503"), heard.events());
    }

    /** A retry whose producer cannot be rewound ends the call with that failure, once; nothing more is sent. */
    @Test
    void aRetryThatCannotStartEndsTheCallWithItsFailure() throws Exception {
        server.statuses(503, 200);
        Heard heard = new Heard();
        try (CloseableHttpAsyncClient client = HttpAsyncClients.createDefault()) {
            client.start();
            org.apache.http.nio.protocol.HttpAsyncRequestProducer real = HttpAsyncMethods.create(host(), new HttpGet(server.url()));
            org.apache.http.nio.protocol.HttpAsyncRequestProducer producer =
                    (org.apache.http.nio.protocol.HttpAsyncRequestProducer) java.lang.reflect.Proxy.newProxyInstance(
                            getClass().getClassLoader(),
                            new Class<?>[] {org.apache.http.nio.protocol.HttpAsyncRequestProducer.class}, (p, m, a) -> {
                                if (m.getName().equals("resetRequest")) {
                                    throw new java.io.IOException("cannot rewind");
                                }
                                try {
                                    return m.invoke(real, a);
                                } catch (java.lang.reflect.InvocationTargetException e) {
                                    throw e.getCause();
                                }
                            });
            @SuppressWarnings("unchecked")
            Future<HttpResponse> future = (Future<HttpResponse>) HttpClient4AsyncExchange.execute(client, producer,
                    HttpAsyncMethods.createConsumer(), null, heard);
            java.util.concurrent.ExecutionException failed = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> future.get(10, TimeUnit.SECONDS));
            assertEquals("cannot rewind", failed.getCause().getMessage());
        }
        assertEquals(1, server.requests.get());
        assertEquals(List.of("failed:IOException"), heard.events());
    }

    @Test
    void anAttemptOfTheLoopPassesTheHookUntouched() {
        HttpClient4AsyncAttempt<Object> attempt = new HttpClient4AsyncAttempt<>(null, null);
        assertSame(Hooks.PROCEED, HttpClient4AsyncExchange.execute(null, null, attempt, null, null));
        assertSame(Hooks.PROCEED, HttpClient4AsyncExchange.execute(null, null, null, null, attempt.result()));
    }
}
