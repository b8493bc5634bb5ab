package dev.retryagent.it.apps;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.io.entity.EntityUtils;

/**
 * A long-running "legacy" service for {@code attach}: it builds its clients once, at start-up, and keeps using
 * the same objects, as a service does. Needs OkHttp and HttpClient 5 on its class path. Knows nothing of the
 * agent.
 *
 * <p>Prints {@code READY pid=N}, then reads commands from stdin, one per line:
 * <pre>
 * call ID CLIENT URL   one GET through the client object built at start-up; CLIENT is okhttp (execute),
 *                      okhttp-async (enqueue), httpclient5 (HttpClients.createDefault()), httpclient5-async
 *                      (HttpAsyncClients.createDefault()), httpclient4, httpclient4-async (HttpClient 4.5's
 *                      createDefault(), HttpAsyncClient 4.1's, built only when they are on the class path), or
 *                      httpurlconnection (a new connection, as always)
 * exit                 ends the application (so does the end of stdin)
 * </pre>
 * Each call prints {@code RESULT id=ID client=CLIENT status=N} or {@code RESULT id=ID client=CLIENT failure=CLASS}.
 */
public final class LongRunningClientsApp {
    private static OkHttpClient okHttp;
    private static CloseableHttpClient httpClient5;
    private static CloseableHttpAsyncClient httpClient5Async;

    private LongRunningClientsApp() {
    }

    public static void main(String[] args) throws Exception {
        okHttp = new OkHttpClient.Builder().build();
        httpClient5 = HttpClients.createDefault();
        httpClient5Async = HttpAsyncClients.createDefault();
        httpClient5Async.start();
        // Hc4 is loaded only when HttpClient 4 is there: verifying its code loads HttpClient 4's types.
        boolean hc4 = present("org.apache.http.impl.client.HttpClients");
        if (hc4) {
            Hc4.start();
        }
        Report.line("READY", "pid", pid(), "java", System.getProperty("java.version"));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split(" ");
            if (words[0].equals("exit")) {
                break;
            }
            if (words[0].equals("call") && words.length == 4) {
                call(words[1], words[2], words[3]);
            } else if (!line.trim().isEmpty()) {
                Report.line("UNKNOWN", "line", line);
            }
        }
        httpClient5.close();
        httpClient5Async.close();
        if (hc4) {
            Hc4.close();
        }
        okHttp.dispatcher().executorService().shutdown();
        okHttp.connectionPool().evictAll();
        Report.line("DONE");
    }

    private static void call(String id, String client, String url) {
        try {
            int status;
            switch (client) {
                case "okhttp":
                    try (Response response = okHttp.newCall(new Request.Builder().url(url).build()).execute()) {
                        response.body().string();
                        status = response.code();
                    }
                    break;
                case "okhttp-async":
                    status = okHttpAsync(url);
                    break;
                case "httpclient5":
                    status = httpClient5.execute(new HttpGet(url), response -> {
                        EntityUtils.consume(response.getEntity());
                        return response.getCode();
                    });
                    break;
                case "httpclient5-async":
                    SimpleHttpRequest request = SimpleRequestBuilder.get(url).build();
                    SimpleHttpResponse response = httpClient5Async.execute(request, null).get(60, TimeUnit.SECONDS);
                    status = response.getCode();
                    break;
                case "httpclient4":
                    status = Hc4.classic(url);
                    break;
                case "httpclient4-async":
                    status = Hc4.async(url);
                    break;
                case "httpurlconnection":
                    HttpURLConnection connection = (HttpURLConnection) new URL(url).openConnection();
                    status = connection.getResponseCode();
                    InputStream body = status < 400 ? connection.getInputStream() : connection.getErrorStream();
                    if (body != null) {
                        Report.drain(body);
                        body.close();
                    }
                    break;
                default:
                    Report.line("RESULT", "id", id, "client", client, "failure", "unknown-client");
                    return;
            }
            Report.line("RESULT", "id", id, "client", client, "status", status);
        } catch (Exception e) {
            Throwable cause = e.getCause() != null && !(e instanceof IOException) ? e.getCause() : e;
            Report.line("RESULT", "id", id, "client", client, "failure", cause.getClass().getName());
        }
    }

    /** This JVM's process id, from the runtime's name ("pid@host" on HotSpot and OpenJ9). */
    private static long pid() {
        String name = ManagementFactory.getRuntimeMXBean().getName();
        return Long.parseLong(name.substring(0, name.indexOf('@')));
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, LongRunningClientsApp.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** HttpClient 4.5 and HttpAsyncClient 4.1, when on the class path; types named in full (HttpClient 5's are imported). */
    private static final class Hc4 {
        private static org.apache.http.impl.client.CloseableHttpClient classic;
        private static org.apache.http.impl.nio.client.CloseableHttpAsyncClient async;

        static void start() {
            classic = org.apache.http.impl.client.HttpClients.createDefault();
            async = org.apache.http.impl.nio.client.HttpAsyncClients.createDefault();
            async.start();
        }

        static void close() throws IOException {
            classic.close();
            async.close();
        }

        static int classic(String url) throws IOException {
            return classic.execute(new org.apache.http.client.methods.HttpGet(url), response -> {
                org.apache.http.util.EntityUtils.consume(response.getEntity());
                return response.getStatusLine().getStatusCode();
            });
        }

        static int async(String url) throws Exception {
            org.apache.http.HttpResponse response = async.execute(new org.apache.http.client.methods.HttpGet(url), null)
                    .get(60, TimeUnit.SECONDS);
            return response.getStatusLine().getStatusCode();
        }
    }

    private static int okHttpAsync(String url) throws Exception {
        CompletableFuture<Integer> status = new CompletableFuture<>();
        okHttp.newCall(new Request.Builder().url(url).build()).enqueue(new Callback() {
            @Override
            public void onFailure(Call call, IOException e) {
                status.completeExceptionally(e);
            }

            @Override
            public void onResponse(Call call, Response response) throws IOException {
                try (Response r = response) {
                    r.body().string();
                    status.complete(r.code());
                }
            }
        });
        return status.get(60, TimeUnit.SECONDS);
    }
}
