package dev.retryagent.examples;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * A "legacy" service with no retry code and no agent code: it fetches ten items over OkHttp from a
 * dependency that is having a bad day. The dependency, embedded here on loopback, answers two requests
 * out of three with 503. Run it once plain and once with {@code -javaagent:retry-agent.jar}.
 */
public final class LegacyDemo {
    private static final int ITEMS = 10;

    public static void main(String[] args) throws Exception {
        AtomicInteger received = new AtomicInteger();
        HttpServer flaky = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        flaky.createContext("/items/", exchange -> {
            int n = received.incrementAndGet();
            boolean fail = n % 3 != 0;
            byte[] body = (fail ? "busy" : "item " + exchange.getRequestURI().getPath()).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(fail ? 503 : 200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        flaky.start();
        try {
            OkHttpClient client = new OkHttpClient();
            String base = "http://127.0.0.1:" + flaky.getAddress().getPort() + "/items/";
            int ok = 0;
            for (int i = 1; i <= ITEMS; i++) {
                Request request = new Request.Builder().url(base + i).build();
                try (Response response = client.newCall(request).execute()) {
                    System.out.printf("GET /items/%-2d -> %d%n", i, response.code());
                    if (response.isSuccessful()) {
                        ok++;
                    }
                } catch (IOException e) {
                    System.out.printf("GET /items/%-2d -> %s%n", i, e);
                }
            }
            System.out.printf("%d of %d calls succeeded; the dependency received %d requests%n",
                    ok, ITEMS, received.get());
            client.dispatcher().executorService().shutdown();
            client.connectionPool().evictAll();
        } finally {
            flaky.stop(0);
        }
    }
}
