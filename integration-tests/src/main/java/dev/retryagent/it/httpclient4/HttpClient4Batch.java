package dev.retryagent.it.httpclient4;

import static dev.retryagent.it.apps.CallSpec.one;

import dev.retryagent.it.apps.ApacheBatch;
import dev.retryagent.it.apps.BatchApp;
import dev.retryagent.it.apps.BatchCalls;
import dev.retryagent.it.apps.BatchCalls.Seen;
import dev.retryagent.it.apps.CallSpec;
import dev.retryagent.it.apps.Signals;
import dev.retryagent.it.clients.HttpClient4Kit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.http.Header;
import org.apache.http.HttpHost;
import org.apache.http.HttpResponse;
import org.apache.http.client.ResponseHandler;
import org.apache.http.client.config.RequestConfig;
import org.apache.http.client.methods.RequestBuilder;
import org.apache.http.client.methods.HttpRequestBase;
import org.apache.http.client.methods.HttpUriRequest;
import org.apache.http.concurrent.FutureCallback;
import org.apache.http.entity.ContentType;
import org.apache.http.entity.InputStreamEntity;
import org.apache.http.impl.client.CloseableHttpClient;
import org.apache.http.impl.client.DefaultHttpRequestRetryHandler;
import org.apache.http.impl.client.DefaultServiceUnavailableRetryStrategy;
import org.apache.http.impl.client.HttpClients;
import org.apache.http.impl.conn.PoolingHttpClientConnectionManager;
import org.apache.http.impl.nio.client.CloseableHttpAsyncClient;
import org.apache.http.impl.nio.client.HttpAsyncClients;
import org.apache.http.impl.nio.conn.PoolingNHttpClientConnectionManager;
import org.apache.http.impl.nio.reactor.DefaultConnectingIOReactor;
import org.apache.http.impl.nio.reactor.IOReactorConfig;
import org.apache.http.pool.PoolStats;
import org.apache.http.util.EntityUtils;
import org.apache.http.util.VersionInfo;

/**
 * Apache HttpClient 4.5 and HttpAsyncClient 4.1's part of the batch application ({@link BatchApp}{@code  httpclient4}):
 * a "legacy" application (no agent code) that makes calls the ordinary way and prints what it saw. Compiled against
 * 4.5.6 and 4.1.3; runs unchanged on 4.5.14 and 4.1.5.
 *
 * <pre>
 * --call SPEC     SPEC is key=value pairs separated by ';':
 *   id=ID, url=URL (required)
 *   api=classic|async                            (default classic)
 *   client=KIND                                  one shared client per api and kind (default default):
 *       classic: default (createDefault), system (createSystem), custom (custom().build()), minimal
 *                (createMinimal), sure (a ServiceUnavailableRetryStrategy: 5 retries of a 503, 10 ms apart),
 *                sentretry (DefaultHttpRequestRetryHandler(3, true): resends requests already sent, POST too),
 *                noretries (disableAutomaticRetries()), pool5 (a pool of at most 5 connections)
 *       async:   default, system, custom, minimal, pool5, io1 (one I/O reactor thread)
 *   method=GET|POST|..., body=TEXT, stream=true  (a non-repeatable body: InputStreamEntity of unknown length)
 *   header=Name:value                            repeatable
 *   overload=NAME                                classic execute overload: req, req-ctx, host-req, host-req-ctx,
 *                                                req-handler (default), req-ctx-handler, host-req-handler,
 *                                                host-req-ctx-handler
 *   request=uri|host|producer                    async: execute(HttpUriRequest, ..) (default), execute(HttpHost,
 *                                                HttpRequest, ..), or HttpAsyncMethods' producer and consumer
 *   startAfterMs=N, cancelAfterMs=N              cancel: the async future (cancel(true))
 *   abortOn=SIGNAL                               async: abort() the application's request when SIGNAL arrives
 *   interruptAfterMs=N                           classic: interrupt the calling thread
 *   readTimeoutMs=N                              the request's own socket timeout (not with request=producer)
 *   repeat=N                                     N calls one after the other, summed up in one RESULT line
 * </pre>
 * Prints {@code APP .. version=.. asyncVersion=..}, per call {@code RESULT id=.. status=.. body=.. retryAfter=.. elapsedMs=.. thread=..} or
 * {@code RESULT id=.. failure=CLASS message=.. elapsedMs=..}, both with {@code interrupted=} and
 * {@code sinceInterruptUs=} (with {@code repeat}: {@code RESULT id=.. calls=.. ok=.. failures=.. firstFailure=..}),
 * then per async call {@code CALLBACKS id=.. count=.. kinds=..}, per pool5 client {@code POOL api=.. leased=..
 * available=.. max=..}, and {@code DONE}.
 */
public final class HttpClient4Batch extends ApacheBatch<CloseableHttpClient, CloseableHttpAsyncClient> {
    public HttpClient4Batch() {
        super(CloseableHttpAsyncClient::start);
    }

    @Override
    public List<Object> about() {
        VersionInfo classic = VersionInfo.loadVersionInfo("org.apache.http.client", HttpClients.class.getClassLoader());
        VersionInfo async = VersionInfo.loadVersionInfo("org.apache.http.nio.client",
                HttpAsyncClients.class.getClassLoader());
        return new ArrayList<>(Arrays.<Object>asList("version", classic == null ? "unknown" : classic.getRelease(),
                "asyncVersion", async == null ? "unknown" : async.getRelease()));
    }

    private static void pool(PoolStats stats, String api, String kind) {
        BatchCalls.pool(api, kind, stats.getLeased(), stats.getAvailable(), stats.getPending(), stats.getMax());
    }

    // ---- clients ----

    private static RequestConfig poolConfig() {
        // A leaked connection shows up as a failure within seconds, not as a hang of minutes.
        return RequestConfig.custom().setConnectionRequestTimeout(5000).build();
    }

    @Override
    protected CloseableHttpClient newClassic(String kind) {
        CloseableHttpClient client = ofEveryApi(kind, HttpClients::createDefault, HttpClients::createSystem,
                () -> HttpClients.custom().build(), HttpClients::createMinimal);
        if (client != null) {
            return client;
        }
        switch (kind) {
            case "sure":
                return HttpClients.custom()
                        .setServiceUnavailableRetryStrategy(new DefaultServiceUnavailableRetryStrategy(5, 10))
                        .build();
            case "sentretry":
                return HttpClients.custom().setRetryHandler(new DefaultHttpRequestRetryHandler(3, true)).build();
            case "noretries":
                return HttpClients.custom().disableAutomaticRetries().build();
            case "pool5":
                PoolingHttpClientConnectionManager pool = new PoolingHttpClientConnectionManager();
                pool.setMaxTotal(5);
                pool.setDefaultMaxPerRoute(5);
                classicPool(kind, () -> pool(pool.getTotalStats(), "classic", kind));
                return HttpClients.custom().setConnectionManager(pool).setDefaultRequestConfig(poolConfig()).build();
            default:
                throw new IllegalArgumentException("classic client " + kind);
        }
    }

    @Override
    protected CloseableHttpAsyncClient newAsync(String kind) {
        CloseableHttpAsyncClient client = ofEveryApi(kind, HttpAsyncClients::createDefault,
                HttpAsyncClients::createSystem, () -> HttpAsyncClients.custom().build(), HttpAsyncClients::createMinimal);
        if (client != null) {
            return client;
        }
        switch (kind) {
            case "io1":
                return HttpAsyncClients.custom()
                        .setDefaultIOReactorConfig(IOReactorConfig.custom().setIoThreadCount(1).build()).build();
            case "pool5":
                try {
                    PoolingNHttpClientConnectionManager pool = new PoolingNHttpClientConnectionManager(
                            new DefaultConnectingIOReactor(IOReactorConfig.DEFAULT));
                    pool.setMaxTotal(5);
                    pool.setDefaultMaxPerRoute(5);
                    asyncPool(kind, () -> pool(pool.getTotalStats(), "async", kind));
                    return HttpAsyncClients.custom().setConnectionManager(pool).setDefaultRequestConfig(poolConfig())
                            .build();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            default:
                throw new IllegalArgumentException("async client " + kind);
        }
    }

    // ---- calls ----

    private static final ResponseHandler<Seen> READ = HttpClient4Batch::read;

    private static Seen read(HttpResponse response) throws IOException {
        String body = response.getEntity() == null ? "" : EntityUtils.toString(response.getEntity());
        Header retryAfter = response.getFirstHeader("Retry-After");
        return new Seen(response.getStatusLine().getStatusCode(), body,
                retryAfter == null ? null : retryAfter.getValue());
    }

    /** The request the spec describes: method, URL, headers, body ({@code stream=true}: one-shot), socket timeout. */
    private static HttpUriRequest request(Map<String, List<String>> spec) {
        RequestBuilder builder = HttpClient4Kit.request(
                CallSpec.request(spec, ContentType.TEXT_PLAIN.toString(), "stream"));
        if (spec.containsKey("readTimeoutMs")) {
            builder.setConfig(RequestConfig.custom()
                    .setSocketTimeout(Integer.parseInt(one(spec, "readTimeoutMs", "0"))).build());
        }
        return builder.build();
    }

    private static HttpHost host(HttpUriRequest request) {
        return new HttpHost(request.getURI().getHost(), request.getURI().getPort(), request.getURI().getScheme());
    }

    @Override
    protected Seen classicCall(Map<String, List<String>> spec) throws Exception {
        HttpUriRequest request = request(spec);
        return HttpClient4Kit.execute(classic(spec), one(spec, "overload", "req-handler"), host(request), request,
                READ);
    }

    @Override
    protected Seen asyncCall(Map<String, List<String>> spec, String id) throws Exception {
        HttpUriRequest request = request(spec);
        BatchCalls.Callbacks callbacks = BatchCalls.Callbacks.of(id);
        FutureCallback<HttpResponse> callback = HttpClient4Kit.callback(
                response -> callbacks.completed(response.getStatusLine().getStatusCode()), callbacks::failed,
                callbacks::cancelled);
        Future<HttpResponse> future = HttpClient4Kit.Async.execute(async(spec), one(spec, "request", "uri"),
                host(request), request, callback);
        BatchCalls.cancelAfter(spec, future);
        if (spec.containsKey("abortOn") && request instanceof HttpRequestBase) {
            Signals.on(one(spec, "abortOn", null), ((HttpRequestBase) request)::abort);
        }
        HttpResponse response = future.get(60, TimeUnit.SECONDS);
        // the body is buffered by the consumer: reading it here is not on the I/O thread
        return read(response);
    }
}
