package dev.retryagent.it.springboot;

import dev.retryagent.it.apps.BatchApp;
import dev.retryagent.it.apps.Report;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.security.CodeSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.netty.http.client.HttpClient;

/**
 * A plain Spring Boot application (no agent code), run as a repackaged executable jar: a command-line runner that
 * hands its arguments to the client contract's batch application ({@link BatchApp}), packed in the same jar.
 *
 * <pre>
 * java -jar spring-boot-app.jar okhttp|httpclient5|httpurlconnection|reactor-netty|reactor-netty-webclient
 *     BATCH-APP-ARGS...
 * </pre>
 * Prints {@code BOOT app=.. loader=.. source=..} for the batch application's class and for the client's, then
 * whatever the batch application prints; the batch application ends the JVM.
 *
 * <p>Before it hands over, the runner makes one call in each of the client's modes to a loopback server of its own,
 * as a service warms up: the first call of a JVM loads the client's classes from the nested jars, which on a loaded
 * machine takes longer than the contract's earliest cancel (300 ms after the call starts). Prints
 * {@code WARMUP client=.. ms=..}. Reactor Netty's batch part warms up every way of calling its specs name itself
 * (WebClient's and {@code HttpClient}'s), so the runner makes no call of its own there.
 */
@SpringBootApplication
public class BootBatchApp implements CommandLineRunner {

    public static void main(String[] args) {
        SpringApplication.run(BootBatchApp.class, args);
    }

    @Override
    public void run(String... args) throws Exception {
        warmUp(args[0]);
        where("app", BatchApp.class);
        where("client", clientClass(args[0]));
        BatchApp.main(args);
    }

    /** The class an application of {@code client} starts from. */
    private static Class<?> clientClass(String client) {
        switch (client) {
            case "okhttp":
                return OkHttpClient.class;
            case "httpclient5":
                return HttpClients.class;
            case "httpurlconnection":
                return HttpURLConnection.class;
            case "reactor-netty":
                return HttpClient.class;
            case "reactor-netty-webclient":
                return WebClient.class;
            default:
                throw new IllegalArgumentException("unknown client " + client);
        }
    }

    private static void warmUp(String client) throws Exception {
        if (client.startsWith("reactor-netty")) {
            return;
        }
        long start = System.nanoTime();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            Report.drain(exchange.getRequestBody());
            byte[] body = "warm".getBytes(StandardCharsets.UTF_8);
            // HttpClient 5.2's fluent Content.asString() needs a content type
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/warm-up";
        try {
            switch (client) {
                case "okhttp": {
                    OkHttpClient ok = new OkHttpClient();
                    Request request = new Request.Builder().url(url).build();
                    try (Response response = ok.newCall(request).execute()) {
                        response.body().string();
                    }
                    CompletableFuture<String> async = new CompletableFuture<>();
                    ok.newCall(request).enqueue(new Callback() {
                        @Override
                        public void onFailure(Call call, IOException e) {
                            async.completeExceptionally(e);
                        }

                        @Override
                        public void onResponse(Call call, Response response) throws IOException {
                            try (Response closed = response) {
                                async.complete(closed.body().string());
                            }
                        }
                    });
                    async.get(30, TimeUnit.SECONDS);
                    ok.dispatcher().executorService().shutdown();
                    ok.connectionPool().evictAll();
                    break;
                }
                case "httpclient5": {
                    try (CloseableHttpClient classic = HttpClients.createDefault()) {
                        classic.execute(new HttpGet(url), response -> EntityUtils.toString(response.getEntity()));
                    }
                    try (CloseableHttpAsyncClient async = HttpAsyncClients.createDefault()) {
                        async.start();
                        async.execute(SimpleRequestBuilder.get(url).build(), null).get(30, TimeUnit.SECONDS);
                    }
                    org.apache.hc.client5.http.fluent.Request.get(url).execute().returnContent().asString();
                    break;
                }
                case "httpurlconnection": {
                    HttpURLConnection connection = (HttpURLConnection) new URL(url).openConnection();
                    try (InputStream in = connection.getInputStream()) {
                        Report.drain(in);
                    }
                    break;
                }
                default:
                    throw new IllegalArgumentException("unknown client " + client);
            }
        } finally {
            server.stop(0);
        }
        Report.line("WARMUP", "client", client, "ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    /** Which class loader defined {@code type}, and from where (null for the JDK's own classes). */
    private static void where(String what, Class<?> type) {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        URL location = source == null ? null : source.getLocation();
        ClassLoader loader = type.getClassLoader();
        Report.line("BOOT", "what", what, "class", type.getName(),
                "loader", loader == null ? "bootstrap" : loader.getClass().getName(), "source", location);
    }
}
