package dev.retryagent.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.Executors;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The reference loop for comparing agents per call: OkHttp GETs one after the other over one keep-alive loopback
 * connection to a server in the same JVM. No agent code. After {@code warmup} calls, {@code rounds} rounds of
 * {@code calls} calls each are timed; prints {@code LOOP ns_per_call=<median of the rounds> failures=N}.
 *
 * <pre>KeepAliveLoop [warmup] [calls] [rounds]</pre>
 */
public final class KeepAliveLoop {
    public static void main(String[] args) throws Exception {
        // the JDK server writes a response's head and body separately: without TCP_NODELAY each response waits for
        // the client's delayed ACK (about 40 ms)
        System.setProperty("sun.net.httpserver.nodelay", "true");
        int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int calls = args.length > 1 ? Integer.parseInt(args[1]) : 5_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        byte[] ok = "ok".getBytes(StandardCharsets.ISO_8859_1);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.createContext("/", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                in.readAllBytes();
            }
            exchange.sendResponseHeaders(200, ok.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(ok);
            }
        });
        server.setExecutor(Executors.newSingleThreadExecutor());
        server.start();
        OkHttpClient client = new OkHttpClient();
        Request request = new Request.Builder()
                .url("http://127.0.0.1:" + server.getAddress().getPort() + "/items/1").build();
        long failures = 0;
        for (int i = 0; i < warmup; i++) {
            failures += call(client, request);
        }
        long[] perCall = new long[rounds];
        for (int r = 0; r < rounds; r++) {
            long start = System.nanoTime();
            for (int i = 0; i < calls; i++) {
                failures += call(client, request);
            }
            perCall[r] = (System.nanoTime() - start) / calls;
        }
        Arrays.sort(perCall);
        System.out.println("LOOP ns_per_call=" + perCall[rounds / 2] + " failures=" + failures);
        System.out.flush();
        System.exit(0);
    }

    private static int call(OkHttpClient client, Request request) {
        try (Response response = client.newCall(request).execute()) {
            response.body().string();
            return response.code() == 200 ? 0 : 1;
        } catch (Exception e) {
            return 1;
        }
    }
}
