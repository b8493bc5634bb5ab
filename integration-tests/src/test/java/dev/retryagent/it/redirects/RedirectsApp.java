package dev.retryagent.it.redirects;

import static dev.retryagent.it.apps.CallSpec.one;
import static dev.retryagent.it.apps.CallSpec.parse;

import dev.retryagent.it.apps.Report;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.TabularData;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;

/**
 * A plain application (no agent code) that makes GET calls one after the other, each with the client it names and
 * each following the redirects its client follows by default, then reads the {@code retry-agent} MBeans of its own
 * platform MBeanServer and prints them.
 *
 * <pre>
 * --call "id=ID;client=okhttp|okhttp-async|jdk|hc5|hc5-async|hc4|hc4-async|jdk-httpclient|jdk-httpclient-async;
 *         url=URL;method=GET|POST"   repeatable, run in order (a POST carries the body "payload", no idempotency key;
 *                       jdk is HttpURLConnection, jdk-httpclient java.net.http with followRedirects(NORMAL))
 * --expect-calls N      wait (up to 20 s) until retry-agent:type=total shows N calls (MBeans appear off the call path)
 * </pre>
 * Prints {@code RESULT id=.. status=..} (or {@code failure=CLASS}) per call, {@code WAITED totalCalls=..}, per MBean
 * {@code MBEAN name=OBJECTNAME ATTRIBUTE=VALUE ...}, then {@code DONE}.
 */
public final class RedirectsApp {
    private static final byte[] PAYLOAD = "payload".getBytes(StandardCharsets.UTF_8);

    public static void main(String[] argv) throws Exception {
        List<Map<String, List<String>>> calls = new ArrayList<>();
        long expectCalls = -1;
        for (int i = 0; i < argv.length; i++) {
            switch (argv[i]) {
                case "--call" -> calls.add(parse(argv[++i]));
                case "--expect-calls" -> expectCalls = Long.parseLong(argv[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + argv[i]);
            }
        }
        OkHttpClient okhttp = new OkHttpClient.Builder().build();
        try (CloseableHttpClient classic = HttpClients.createDefault();
             CloseableHttpAsyncClient async = HttpAsyncClients.createDefault()) {
            async.start();
            for (Map<String, List<String>> call : calls) {
                String id = one(call, "id", "call");
                String url = one(call, "url", null);
                String client = one(call, "client", "okhttp");
                boolean post = "POST".equals(one(call, "method", "GET"));
                try {
                    int status = switch (client) {
                        case "okhttp" -> okhttp(okhttp, url, post);
                        case "okhttp-async" -> okhttpAsync(okhttp, url);
                        case "jdk" -> jdk(url, post);
                        case "hc5" -> classic.execute(post ? hc5Post(url) : new HttpGet(url), response -> {
                            EntityUtils.consume(response.getEntity());
                            return response.getCode();
                        });
                        case "hc5-async" -> hc5Async(async, url);
                        case "hc4" -> Hc4.classic(url);
                        case "hc4-async" -> Hc4.async(url);
                        case "jdk-httpclient" -> JdkHttpClient.send(url, post);
                        case "jdk-httpclient-async" -> await(JdkHttpClient.sendAsync(url));
                        default -> throw new IllegalArgumentException("client " + client);
                    };
                    Report.line("RESULT", "id", id, "status", status);
                } catch (IOException e) {
                    Report.line("RESULT", "id", id, "failure", e.getClass().getName());
                }
            }
        }
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName total = new ObjectName("retry-agent:type=total");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        long seen = -1;
        while (System.nanoTime() < deadline) {
            seen = server.isRegistered(total) ? (Long) server.getAttribute(total, "calls") : -1;
            if (expectCalls < 0 ? seen >= 0 : seen == expectCalls) {
                break;
            }
            Thread.sleep(50);
        }
        // The totals count a call at once; a destination's MBean is registered by the agent's next housekeeping
        // tick (once a second): read them once a tick has passed without a new one.
        ObjectName destinations = new ObjectName("retry-agent:type=destination,*");
        Set<ObjectName> names = server.queryNames(destinations, null);
        while (System.nanoTime() < deadline) {
            Thread.sleep(1_100);
            Set<ObjectName> now = server.queryNames(destinations, null);
            if (now.equals(names)) {
                break;
            }
            names = now;
        }
        Report.line("WAITED", "totalCalls", seen);
        for (ObjectName name : new TreeSet<>(server.queryNames(destinations, null))) {
            List<Object> kv = new ArrayList<>(List.of("name", name.toString()));
            for (MBeanAttributeInfo info : server.getMBeanInfo(name).getAttributes()) {
                Object value = server.getAttribute(name, info.getName());
                if (!(value instanceof TabularData)) {
                    kv.add(info.getName());
                    kv.add(value);
                }
            }
            Report.line("MBEAN", kv.toArray());
        }
        Report.line("DONE");
        System.exit(0);
    }

    private static int okhttp(OkHttpClient client, String url, boolean post) throws IOException {
        Request.Builder request = new Request.Builder().url(url);
        if (post) {
            request.post(RequestBody.create(PAYLOAD, MediaType.get("text/plain")));
        }
        try (Response response = client.newCall(request.build()).execute()) {
            response.body().string();
            return response.code();
        }
    }

    private static int okhttpAsync(OkHttpClient client, String url) throws Exception {
        CompletableFuture<Integer> status = new CompletableFuture<>();
        client.newCall(new Request.Builder().url(url).build()).enqueue(new Callback() {
            @Override
            public void onFailure(Call call, IOException e) {
                status.completeExceptionally(e);
            }

            @Override
            public void onResponse(Call call, Response response) throws IOException {
                try (response) {
                    response.body().string();
                    status.complete(response.code());
                }
            }
        });
        return await(status);
    }

    private static int hc5Async(CloseableHttpAsyncClient client, String url) throws Exception {
        CompletableFuture<Integer> status = new CompletableFuture<>();
        client.execute(SimpleRequestBuilder.get(URI.create(url)).build(), new FutureCallback<SimpleHttpResponse>() {
            @Override
            public void completed(SimpleHttpResponse result) {
                status.complete(result.getCode());
            }

            @Override
            public void failed(Exception e) {
                status.completeExceptionally(e);
            }

            @Override
            public void cancelled() {
                status.cancel(false);
            }
        });
        return await(status);
    }

    /** Apache HttpClient 4.5 and HttpAsyncClient 4.1, made at their first call (a class of their own: loaded then). */
    private static final class Hc4 {
        private static org.apache.http.impl.client.CloseableHttpClient classic;
        private static org.apache.http.impl.nio.client.CloseableHttpAsyncClient async;

        static synchronized int classic(String url) throws IOException {
            if (classic == null) {
                classic = org.apache.http.impl.client.HttpClients.createDefault();
            }
            return classic.execute(new org.apache.http.client.methods.HttpGet(url), response -> {
                org.apache.http.util.EntityUtils.consume(response.getEntity());
                return response.getStatusLine().getStatusCode();
            });
        }

        static int async(String url) throws Exception {
            synchronized (Hc4.class) {
                if (async == null) {
                    async = org.apache.http.impl.nio.client.HttpAsyncClients.createDefault();
                    async.start();
                }
            }
            CompletableFuture<Integer> status = new CompletableFuture<>();
            async.execute(new org.apache.http.client.methods.HttpGet(url),
                    new org.apache.http.concurrent.FutureCallback<org.apache.http.HttpResponse>() {
                        @Override
                        public void completed(org.apache.http.HttpResponse result) {
                            status.complete(result.getStatusLine().getStatusCode());
                        }

                        @Override
                        public void failed(Exception e) {
                            status.completeExceptionally(e);
                        }

                        @Override
                        public void cancelled() {
                            status.cancel(false);
                        }
                    });
            return await(status);
        }
    }

    /** java.net.http, following redirects as {@code followRedirects(NORMAL)} says, made at its first call. */
    private static final class JdkHttpClient {
        private static final java.net.http.HttpClient CLIENT = java.net.http.HttpClient.newBuilder()
                .followRedirects(java.net.http.HttpClient.Redirect.NORMAL).build();

        static int send(String url, boolean post) throws IOException, InterruptedException {
            java.net.http.HttpRequest.Builder request = java.net.http.HttpRequest.newBuilder(URI.create(url));
            if (post) {
                request.POST(java.net.http.HttpRequest.BodyPublishers.ofByteArray(PAYLOAD));
            }
            return CLIENT.send(request.build(), java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode();
        }

        static CompletableFuture<Integer> sendAsync(String url) {
            return CLIENT.sendAsync(java.net.http.HttpRequest.newBuilder(URI.create(url)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).thenApply(java.net.http.HttpResponse::statusCode);
        }
    }

    private static int await(CompletableFuture<Integer> status) throws Exception {
        try {
            return status.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw e;
        }
    }

    private static HttpPost hc5Post(String url) {
        HttpPost post = new HttpPost(url);
        post.setEntity(new ByteArrayEntity(PAYLOAD, ContentType.TEXT_PLAIN));
        return post;
    }

    private static int jdk(String url, boolean post) throws IOException {
        HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
        if (post) {
            c.setRequestMethod("POST");
            c.setDoOutput(true);
            try (OutputStream out = c.getOutputStream()) {
                out.write(PAYLOAD);
            }
        }
        int status = c.getResponseCode();
        InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
        if (in != null) {
            try (InputStream body = in) {
                body.readAllBytes();
            }
        }
        return status;
    }
}
