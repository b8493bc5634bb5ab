package dev.retryagent.it.faults;

import dev.retryagent.it.apps.Report;
import dev.retryagent.it.clients.HttpClient5Kit;
import dev.retryagent.it.clients.HttpUrlConnectionKit;
import dev.retryagent.it.clients.KitReply;
import dev.retryagent.it.clients.KitRequest;
import dev.retryagent.it.clients.Kits;
import dev.retryagent.it.clients.OkHttpKit;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManager;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.util.Timeout;

/**
 * The faults' application, with no agent code: one GET per argument {@code ID=KIND=URL} (KIND one of
 * {@link #KINDS}), one after the other, each through its client's kit, each client reading with a
 * {@link #READ_TIMEOUT_MS} timeout. Prints {@code RESULT id=.. status=.. bytes=.. elapsedMs=..} or
 * {@code RESULT id=.. failure=CLASS elapsedMs=..}, then {@code POOL ...} (connections still in use) and
 * {@code DONE}.
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
        PoolingAsyncClientConnectionManager asyncPool = PoolingAsyncClientConnectionManagerBuilder.create().build();
        HttpClient5Kit httpClient5 = HttpClient5Kit.pooled(classicPool, asyncPool, config);
        HttpUrlConnectionKit jdk = new HttpUrlConnectionKit(5000, READ_TIMEOUT_MS);
        Kits kits = new Kits().use("okhttp", () -> new OkHttpKit(okhttp)).use("httpclient5", () -> httpClient5)
                .use("jdk", () -> jdk);

        for (String arg : argv) {
            String[] parts = arg.split("=", 3);
            String id = parts[0];
            long start = System.nanoTime();
            try {
                KitReply reply = kits.call(parts[1], KitRequest.get(parts[2]), 1, TimeUnit.MINUTES);
                Report.line("RESULT", "id", id, "status", reply.status(), "bytes", reply.body().length,
                        "elapsedMs", since(start));
            } catch (Exception e) {
                Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
                Report.line("RESULT", "id", id, "failure", cause.getClass().getName(), "elapsedMs", since(start));
            }
        }
        Report.line("POOL", "okhttpInUse", okhttp.connectionPool().connectionCount()
                        - okhttp.connectionPool().idleConnectionCount(),
                "classicLeased", classicPool.getTotalStats().getLeased(),
                "asyncLeased", asyncPool.getTotalStats().getLeased());
        httpClient5.close();
        Report.line("DONE");
        System.exit(0);
    }

    private static long since(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
}
