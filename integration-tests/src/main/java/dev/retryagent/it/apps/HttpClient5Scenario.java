package dev.retryagent.it.apps;

import static dev.retryagent.it.apps.CallSpec.one;

import dev.retryagent.it.apps.BatchCalls.Seen;
import dev.retryagent.it.clients.HttpClient5Kit;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.async.methods.SimpleResponseConsumer;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManager;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.io.HttpClientResponseHandler;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.InputStreamEntity;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.http.message.BasicHttpRequest;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;
import org.apache.hc.core5.http.nio.support.BasicRequestProducer;
import org.apache.hc.core5.pool.PoolStats;
import org.apache.hc.core5.reactor.IOReactorConfig;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import org.apache.hc.core5.util.VersionInfo;

/**
 * A "legacy" Apache HttpClient 5 application: it makes calls the ordinary way (classic, async and fluent) and
 * prints what it saw. It knows nothing about the agent. Compiled against HttpClient 5.2; runs unchanged on 5.6.
 * Several independent calls run at once (one thread each), so that one forked JVM covers many scenarios.
 *
 * <pre>
 * --await-go      print READY, then wait for a line on stdin before calling
 * --sequential    one call after the other (default: all at once)
 * --call SPEC     repeatable; SPEC is key=value pairs separated by ';':
 *   id=ID, url=URL (required)
 *   api=classic|async|fluent                     (default classic)
 *   client=KIND                                  one shared client per api and kind (default default):
 *       classic: default (createDefault), system (createSystem), custom (custom().build()), minimal
 *                (createMinimal), strategy (custom().setRetryStrategy(5 retries, 10 ms)), noretries
 *                (custom().disableAutomaticRetries()), pool5 (a pool of at most 5 connections)
 *       async:   default, system, custom, strategy, noretries, pool5, io1 (one I/O reactor thread)
 *   method=GET|POST|..., body=TEXT, stream=true  (a non-repeatable body: InputStreamEntity of unknown
 *                                                length, a non-repeatable producer, fluent bodyStream)
 *   header=Name:value                            repeatable
 *   overload=NAME                                classic execute overload: req, req-ctx, host-req, host-req-ctx,
 *                                                open (executeOpen), req-handler (default), req-ctx-handler,
 *                                                host-req-handler, host-req-ctx-handler
 *   request=simple|producer                      async: SimpleHttpRequest (default) or producer and consumer
 *   startAfterMs=N, cancelAfterMs=N              cancel: the async future (cancel(true))
 *   interruptAfterMs=N                           classic, fluent: interrupt the calling thread
 *   readTimeoutMs=N                              the request's own response timeout (not with request=producer)
 *   repeat=N                                     N calls one after the other, summed up in one RESULT line
 * </pre>
 * Prints {@code APP ...}, per call {@code RESULT id=.. status=.. body=.. retryAfter=.. elapsedMs=.. thread=..} or
 * {@code RESULT id=.. failure=CLASS message=.. elapsedMs=..}, both with {@code interrupted=} (the caller's flag)
 * and {@code sinceInterruptUs=} (from the interrupt to the call's return, or null) (with {@code repeat}: {@code RESULT id=.. calls=..
 * ok=.. failures=.. firstFailure=..}), then per async call {@code CALLBACKS id=.. count=.. kinds=..}, per pool5
 * client {@code POOL api=.. leased=.. available=.. max=..}, and {@code DONE}.
 */
public final class HttpClient5Scenario {
    private static final Map<String, CloseableHttpClient> CLASSIC = new ConcurrentHashMap<>();
    private static final Map<String, CloseableHttpAsyncClient> ASYNC = new ConcurrentHashMap<>();
    private static final Map<String, PoolingHttpClientConnectionManager> CLASSIC_POOLS = new ConcurrentHashMap<>();
    private static final Map<String, PoolingAsyncClientConnectionManager> ASYNC_POOLS = new ConcurrentHashMap<>();

    private HttpClient5Scenario() {
    }

    public static void main(String[] argv) throws Exception {
        BatchCalls.Options options = BatchCalls.Options.parse(argv);
        VersionInfo version = VersionInfo.loadVersionInfo("org.apache.hc.client5", HttpClients.class.getClassLoader());
        Report.line("APP", "client", "apache-httpclient5", "version", version == null ? "unknown" : version.getRelease(),
                "java", System.getProperty("java.version"));
        // Clients are made before the calls start, as a service makes them at start-up.
        for (Map<String, List<String>> call : options.calls()) {
            String api = one(call, "api", "classic");
            if (api.equals("classic")) {
                classic(one(call, "client", "default"));
            } else if (api.equals("async")) {
                async(one(call, "client", "default"));
            }
        }
        BatchCalls.runAllAndExit(options, HttpClient5Scenario::once, () -> {
            CLASSIC_POOLS.forEach((kind, pool) -> pool(pool.getTotalStats(), "classic", kind));
            ASYNC_POOLS.forEach((kind, pool) -> pool(pool.getTotalStats(), "async", kind));
        });
    }

    private static void pool(PoolStats stats, String api, String kind) {
        BatchCalls.pool(api, kind, stats.getLeased(), stats.getAvailable(), stats.getPending(), stats.getMax());
    }

    // ---- clients ----

    private static RequestConfig poolConfig() {
        // A leaked connection shows up as a failure within seconds, not as a hang of minutes.
        return RequestConfig.custom().setConnectionRequestTimeout(Timeout.ofSeconds(5)).build();
    }

    private static CloseableHttpClient classic(String kind) {
        return CLASSIC.computeIfAbsent(kind, k -> {
            switch (k) {
                case "default":
                    return HttpClients.createDefault();
                case "system":
                    return HttpClients.createSystem();
                case "custom":
                    return HttpClients.custom().build();
                case "minimal":
                    return HttpClients.createMinimal();
                case "strategy":
                    return HttpClients.custom()
                            .setRetryStrategy(new DefaultHttpRequestRetryStrategy(5, TimeValue.ofMilliseconds(10)))
                            .build();
                case "noretries":
                    return HttpClients.custom().disableAutomaticRetries().build();
                case "pool5":
                    PoolingHttpClientConnectionManager pool = PoolingHttpClientConnectionManagerBuilder.create()
                            .setMaxConnTotal(5).setMaxConnPerRoute(5).build();
                    CLASSIC_POOLS.put(k, pool);
                    return HttpClients.custom().setConnectionManager(pool).setDefaultRequestConfig(poolConfig())
                            .build();
                default:
                    throw new IllegalArgumentException("classic client " + k);
            }
        });
    }

    private static CloseableHttpAsyncClient async(String kind) {
        return ASYNC.computeIfAbsent(kind, k -> {
            CloseableHttpAsyncClient client;
            switch (k) {
                case "default":
                    client = HttpAsyncClients.createDefault();
                    break;
                case "system":
                    client = HttpAsyncClients.createSystem();
                    break;
                case "custom":
                    client = HttpAsyncClients.custom().build();
                    break;
                case "strategy":
                    client = HttpAsyncClients.custom()
                            .setRetryStrategy(new DefaultHttpRequestRetryStrategy(5, TimeValue.ofMilliseconds(10)))
                            .build();
                    break;
                case "noretries":
                    client = HttpAsyncClients.custom().disableAutomaticRetries().build();
                    break;
                case "io1":
                    client = HttpAsyncClients.custom()
                            .setIOReactorConfig(IOReactorConfig.custom().setIoThreadCount(1).build()).build();
                    break;
                case "pool5":
                    PoolingAsyncClientConnectionManager pool = PoolingAsyncClientConnectionManagerBuilder.create()
                            .setMaxConnTotal(5).setMaxConnPerRoute(5).build();
                    ASYNC_POOLS.put(k, pool);
                    client = HttpAsyncClients.custom().setConnectionManager(pool)
                            .setDefaultRequestConfig(poolConfig()).build();
                    break;
                default:
                    throw new IllegalArgumentException("async client " + k);
            }
            client.start();
            return client;
        });
    }

    // ---- calls ----

    private static Seen once(Map<String, List<String>> spec, String id) throws Exception {
        switch (one(spec, "api", "classic")) {
            case "classic":
                return classicCall(spec);
            case "async":
                return asyncCall(spec, id);
            case "fluent":
                return fluentCall(spec);
            default:
                throw new IllegalArgumentException("api " + one(spec, "api", null));
        }
    }

    private static final HttpClientResponseHandler<Seen> READ = HttpClient5Scenario::read;

    private static Seen read(ClassicHttpResponse response) throws IOException, org.apache.hc.core5.http.ParseException {
        String body = response.getEntity() == null ? "" : EntityUtils.toString(response.getEntity());
        return new Seen(response.getCode(), body, header(response, "Retry-After"));
    }

    private static String header(HttpResponse response, String name) {
        Header h = response.getFirstHeader(name);
        return h == null ? null : h.getValue();
    }

    private static byte[] bodyBytes(Map<String, List<String>> spec) {
        String text = CallSpec.body(spec);
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    private static boolean stream(Map<String, List<String>> spec) {
        return Boolean.parseBoolean(one(spec, "stream", "false"));
    }

    private static void headers(Map<String, List<String>> spec, org.apache.hc.core5.http.HttpMessage message) {
        for (String[] header : CallSpec.headers(spec)) {
            message.addHeader(header[0], header[1]);
        }
    }

    private static Seen classicCall(Map<String, List<String>> spec) throws Exception {
        CloseableHttpClient client = classic(one(spec, "client", "default"));
        URI uri = URI.create(one(spec, "url", null));
        HttpUriRequestBase request = new HttpUriRequestBase(one(spec, "method", "GET"), uri);
        request.setConfig(ownConfig(spec));
        headers(spec, request);
        byte[] body = bodyBytes(spec);
        if (body != null) {
            request.setEntity(stream(spec)
                    ? new InputStreamEntity(new ByteArrayInputStream(body), -1, ContentType.TEXT_PLAIN)
                    : new StringEntity(new String(body, StandardCharsets.UTF_8), ContentType.TEXT_PLAIN));
        }
        HttpHost host = HttpHost.create(uri);
        return HttpClient5Kit.execute(client, one(spec, "overload", "req-handler"), host, request, READ);
    }

    /** The request's own {@code RequestConfig}: a response timeout of {@code readTimeoutMs}, or none (null). */
    private static RequestConfig ownConfig(Map<String, List<String>> spec) {
        return spec.containsKey("readTimeoutMs") ? RequestConfig.custom()
                .setResponseTimeout(Timeout.ofMilliseconds(Long.parseLong(one(spec, "readTimeoutMs", "0")))).build()
                : null;
    }

    private static Seen fluentCall(Map<String, List<String>> spec) throws IOException {
        org.apache.hc.client5.http.fluent.Request request =
                org.apache.hc.client5.http.fluent.Request.create(one(spec, "method", "GET"), one(spec, "url", null));
        if (spec.containsKey("readTimeoutMs")) {
            request.responseTimeout(Timeout.ofMilliseconds(Long.parseLong(one(spec, "readTimeoutMs", "0"))));
        }
        for (String[] header : CallSpec.headers(spec)) {
            request.addHeader(header[0], header[1]);
        }
        byte[] body = bodyBytes(spec);
        if (body != null) {
            if (stream(spec)) {
                request.bodyStream(new ByteArrayInputStream(body), ContentType.TEXT_PLAIN);
            } else {
                request.bodyByteArray(body, ContentType.TEXT_PLAIN);
            }
        }
        return request.execute().handleResponse(READ);
    }

    private static Seen asyncCall(Map<String, List<String>> spec, String id) throws Exception {
        CloseableHttpAsyncClient client = async(one(spec, "client", "default"));
        String method = one(spec, "method", "GET");
        URI uri = URI.create(one(spec, "url", null));
        byte[] body = bodyBytes(spec);
        BatchCalls.Callbacks callbacks = BatchCalls.Callbacks.of(id);
        FutureCallback<SimpleHttpResponse> callback = new FutureCallback<SimpleHttpResponse>() {
            @Override
            public void completed(SimpleHttpResponse result) {
                callbacks.completed(result.getCode());
            }

            @Override
            public void failed(Exception ex) {
                callbacks.failed(ex);
            }

            @Override
            public void cancelled() {
                callbacks.cancelled();
            }
        };
        Future<SimpleHttpResponse> future;
        if (stream(spec) || "producer".equals(one(spec, "request", "simple"))) {
            BasicHttpRequest request = new BasicHttpRequest(method, uri);
            headers(spec, request);
            AsyncEntityProducer entity = body == null ? null
                    : HttpClient5Kit.textProducer(new String(body, StandardCharsets.UTF_8), !stream(spec));
            future = client.execute(new BasicRequestProducer(request, entity), SimpleResponseConsumer.create(),
                    callback);
        } else {
            SimpleRequestBuilder builder = SimpleRequestBuilder.create(method).setUri(uri);
            if (body != null) {
                builder.setBody(body, ContentType.TEXT_PLAIN);
            }
            SimpleHttpRequest request = builder.build();
            request.setConfig(ownConfig(spec));
            headers(spec, request);
            future = client.execute(request, callback);
        }
        BatchCalls.cancelAfter(spec, future);
        SimpleHttpResponse response = future.get(60, TimeUnit.SECONDS);
        return new Seen(response.getCode(), response.getBodyText() == null ? "" : response.getBodyText(),
                header(response, "Retry-After"));
    }
}
