package dev.retryagent.it.faults;

import dev.retryagent.it.apps.Completions;
import dev.retryagent.it.apps.Report;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManager;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.util.Timeout;

/**
 * The faults' application, with no agent code: one GET per argument {@code ID=KIND=URL} (KIND one of
 * {@link #KINDS}), one after the other, each client reading with a {@link #READ_TIMEOUT_MS} timeout. Prints
 * {@code RESULT id=.. status=.. bytes=.. elapsedMs=..} or {@code RESULT id=.. failure=CLASS elapsedMs=..}, then
 * {@code POOL ...} (connections still in use) and {@code DONE}.
 */
public final class FaultsApp {
    static final int READ_TIMEOUT_MS = 500;
    public static final String[] KINDS = {"okhttp", "okhttp-async", "httpclient5", "httpclient5-async", "jdk"};

    public static void main(String[] argv) throws Exception {
        OkHttpClient okhttp = new OkHttpClient.Builder().readTimeout(READ_TIMEOUT_MS, TimeUnit.MILLISECONDS).build();
        PoolingHttpClientConnectionManager classicPool = PoolingHttpClientConnectionManagerBuilder.create()
                .setDefaultSocketConfig(SocketConfig.custom().setSoTimeout(Timeout.ofMilliseconds(READ_TIMEOUT_MS)).build())
                .build();
        RequestConfig config = RequestConfig.custom().setResponseTimeout(Timeout.ofMilliseconds(READ_TIMEOUT_MS)).build();
        CloseableHttpClient classic = HttpClients.custom().setConnectionManager(classicPool)
                .setDefaultRequestConfig(config).build();
        PoolingAsyncClientConnectionManager asyncPool = PoolingAsyncClientConnectionManagerBuilder.create().build();
        CloseableHttpAsyncClient async = HttpAsyncClients.custom().setConnectionManager(asyncPool)
                .setDefaultRequestConfig(config).build();
        async.start();

        for (String arg : argv) {
            String[] parts = arg.split("=", 3);
            String id = parts[0];
            long start = System.nanoTime();
            try {
                int[] result = call(parts[1], parts[2], okhttp, classic, async);
                Report.line("RESULT", "id", id, "status", result[0], "bytes", result[1], "elapsedMs", since(start));
            } catch (Exception e) {
                Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
                Report.line("RESULT", "id", id, "failure", cause.getClass().getName(), "elapsedMs", since(start));
            }
        }
        Report.line("POOL", "okhttpInUse", okhttp.connectionPool().connectionCount()
                        - okhttp.connectionPool().idleConnectionCount(),
                "classicLeased", classicPool.getTotalStats().getLeased(),
                "asyncLeased", asyncPool.getTotalStats().getLeased());
        classic.close();
        async.close();
        Report.line("DONE");
        System.exit(0);
    }

    private static long since(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    /** The status and the number of body bytes read. */
    private static int[] call(String kind, String url, OkHttpClient okhttp, CloseableHttpClient classic,
                              CloseableHttpAsyncClient async) throws Exception {
        switch (kind) {
            case "okhttp": {
                try (Response response = okhttp.newCall(new Request.Builder().url(url).build()).execute()) {
                    return new int[] {response.code(), response.body().bytes().length};
                }
            }
            case "okhttp-async": {
                try (Response response = Completions.enqueue(okhttp.newCall(new Request.Builder().url(url).build()))
                        .get(1, TimeUnit.MINUTES)) {
                    return new int[] {response.code(), response.body().bytes().length};
                }
            }
            case "httpclient5":
                return classic.execute(new HttpGet(url), r -> new int[] {r.getCode(),
                        r.getEntity() == null ? 0 : EntityUtils.toByteArray(r.getEntity()).length});
            case "httpclient5-async": {
                SimpleHttpResponse result = Completions.execute(async, SimpleRequestBuilder.get(url).build())
                        .get(1, TimeUnit.MINUTES);
                byte[] body = result.getBodyBytes();
                return new int[] {result.getCode(), body == null ? 0 : body.length};
            }
            default: {
                HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
                c.setConnectTimeout(5000);
                c.setReadTimeout(READ_TIMEOUT_MS);
                int status = c.getResponseCode();
                try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
                    return new int[] {status, in == null ? 0 : in.readAllBytes().length};
                }
            }
        }
    }
}
