package dev.retryagent.it.httpclient5;

import static dev.retryagent.it.apps.CallSpec.one;

import dev.retryagent.it.apps.ApacheBatch;
import dev.retryagent.it.apps.BatchApp;
import dev.retryagent.it.apps.BatchCalls;
import dev.retryagent.it.apps.BatchCalls.Seen;
import dev.retryagent.it.apps.CallSpec;
import dev.retryagent.it.clients.HttpClient5Kit;
import dev.retryagent.it.clients.KitRequest;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
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
import org.apache.hc.core5.pool.PoolStats;
import org.apache.hc.core5.reactor.IOReactorConfig;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import org.apache.hc.core5.util.VersionInfo;

/**
 * Apache HttpClient 5's part of the batch application ({@link BatchApp}{@code  httpclient5}): a "legacy" application
 * (no agent code) that makes calls the ordinary way (classic, async and fluent) and prints what it saw. Compiled
 * against HttpClient 5.2; runs unchanged on 5.6.
 *
 * <pre>
 * --call SPEC     SPEC is key=value pairs separated by ';':
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
 * Prints {@code APP .. version=..}, per call {@code RESULT id=.. status=.. body=.. retryAfter=.. elapsedMs=.. thread=..} or
 * {@code RESULT id=.. failure=CLASS message=.. elapsedMs=..}, both with {@code interrupted=} (the caller's flag)
 * and {@code sinceInterruptUs=} (from the interrupt to the call's return, or null) (with {@code repeat}: {@code RESULT id=.. calls=..
 * ok=.. failures=.. firstFailure=..}), then per async call {@code CALLBACKS id=.. count=.. kinds=..}, per pool5
 * client {@code POOL api=.. leased=.. available=.. max=..}, and {@code DONE}.
 */
public final class HttpClient5Batch extends ApacheBatch<CloseableHttpClient, CloseableHttpAsyncClient> {
    public HttpClient5Batch() {
        super(CloseableHttpAsyncClient::start);
    }

    @Override
    public List<Object> about() {
        VersionInfo version = VersionInfo.loadVersionInfo("org.apache.hc.client5", HttpClients.class.getClassLoader());
        return new ArrayList<>(Arrays.<Object>asList("version", version == null ? "unknown" : version.getRelease()));
    }

    private static void pool(PoolStats stats, String api, String kind) {
        BatchCalls.pool(api, kind, stats.getLeased(), stats.getAvailable(), stats.getPending(), stats.getMax());
    }

    // ---- clients ----

    private static RequestConfig poolConfig() {
        // A leaked connection shows up as a failure within seconds, not as a hang of minutes.
        return RequestConfig.custom().setConnectionRequestTimeout(Timeout.ofSeconds(5)).build();
    }

    @Override
    protected CloseableHttpClient newClassic(String kind) {
        CloseableHttpClient client = ofEveryApi(kind, HttpClients::createDefault, HttpClients::createSystem,
                () -> HttpClients.custom().build(), HttpClients::createMinimal);
        if (client != null) {
            return client;
        }
        switch (kind) {
            case "strategy":
                return HttpClients.custom()
                        .setRetryStrategy(new DefaultHttpRequestRetryStrategy(5, TimeValue.ofMilliseconds(10)))
                        .build();
            case "noretries":
                return HttpClients.custom().disableAutomaticRetries().build();
            case "pool5":
                PoolingHttpClientConnectionManager pool = PoolingHttpClientConnectionManagerBuilder.create()
                        .setMaxConnTotal(5).setMaxConnPerRoute(5).build();
                classicPool(kind, () -> pool(pool.getTotalStats(), "classic", kind));
                return HttpClients.custom().setConnectionManager(pool).setDefaultRequestConfig(poolConfig()).build();
            default:
                throw new IllegalArgumentException("classic client " + kind);
        }
    }

    @Override
    protected CloseableHttpAsyncClient newAsync(String kind) {
        CloseableHttpAsyncClient client = ofEveryApi(kind, HttpAsyncClients::createDefault,
                HttpAsyncClients::createSystem, () -> HttpAsyncClients.custom().build(), null);
        if (client != null) {
            return client;
        }
        switch (kind) {
            case "strategy":
                return HttpAsyncClients.custom()
                        .setRetryStrategy(new DefaultHttpRequestRetryStrategy(5, TimeValue.ofMilliseconds(10)))
                        .build();
            case "noretries":
                return HttpAsyncClients.custom().disableAutomaticRetries().build();
            case "io1":
                return HttpAsyncClients.custom()
                        .setIOReactorConfig(IOReactorConfig.custom().setIoThreadCount(1).build()).build();
            case "pool5":
                PoolingAsyncClientConnectionManager pool = PoolingAsyncClientConnectionManagerBuilder.create()
                        .setMaxConnTotal(5).setMaxConnPerRoute(5).build();
                asyncPool(kind, () -> pool(pool.getTotalStats(), "async", kind));
                return HttpAsyncClients.custom().setConnectionManager(pool).setDefaultRequestConfig(poolConfig())
                        .build();
            default:
                throw new IllegalArgumentException("async client " + kind);
        }
    }

    // ---- calls ----

    private static final HttpClientResponseHandler<Seen> READ = HttpClient5Batch::read;

    private static Seen read(ClassicHttpResponse response) throws IOException, org.apache.hc.core5.http.ParseException {
        String body = response.getEntity() == null ? "" : EntityUtils.toString(response.getEntity());
        return new Seen(response.getCode(), body, retryAfter(response));
    }

    private static String retryAfter(HttpResponse response) {
        Header h = response.getFirstHeader("Retry-After");
        return h == null ? null : h.getValue();
    }

    /** The request the spec describes: method, URL, headers, body ({@code stream=true}: one-shot). */
    private static KitRequest request(Map<String, List<String>> spec) {
        return CallSpec.request(spec, ContentType.TEXT_PLAIN.toString(), "stream");
    }

    /** The request's own response timeout: {@code readTimeoutMs}, or none (null). */
    private static Timeout responseTimeout(Map<String, List<String>> spec) {
        return spec.containsKey("readTimeoutMs")
                ? Timeout.ofMilliseconds(Long.parseLong(one(spec, "readTimeoutMs", "0"))) : null;
    }

    /** The request's own {@code RequestConfig}: the {@link #responseTimeout}, or none (null). */
    private static RequestConfig ownConfig(Map<String, List<String>> spec) {
        Timeout timeout = responseTimeout(spec);
        return timeout == null ? null : RequestConfig.custom().setResponseTimeout(timeout).build();
    }

    @Override
    protected Seen classicCall(Map<String, List<String>> spec) throws Exception {
        HttpUriRequestBase request = HttpClient5Kit.classicRequest(request(spec));
        request.setConfig(ownConfig(spec));
        HttpHost host = HttpHost.create(URI.create(one(spec, "url", null)));
        return HttpClient5Kit.execute(classic(spec), one(spec, "overload", "req-handler"), host, request, READ);
    }

    @Override
    protected Seen otherCall(String api, Map<String, List<String>> spec) throws Exception {
        if (!api.equals("fluent")) {
            return super.otherCall(api, spec);
        }
        return HttpClient5Kit.fluent(request(spec), responseTimeout(spec), READ);
    }

    @Override
    protected Seen asyncCall(Map<String, List<String>> spec, String id) throws Exception {
        BatchCalls.Callbacks callbacks = BatchCalls.Callbacks.of(id);
        FutureCallback<SimpleHttpResponse> callback = HttpClient5Kit.callback(
                response -> callbacks.completed(response.getCode()), callbacks::failed, callbacks::cancelled);
        Future<SimpleHttpResponse> future = HttpClient5Kit.executeAsync(async(spec), one(spec, "request", "simple"),
                request(spec), ownConfig(spec), callback);
        BatchCalls.cancelAfter(spec, future);
        SimpleHttpResponse response = future.get(60, TimeUnit.SECONDS);
        return new Seen(response.getCode(), response.getBodyText() == null ? "" : response.getBodyText(),
                retryAfter(response));
    }
}
