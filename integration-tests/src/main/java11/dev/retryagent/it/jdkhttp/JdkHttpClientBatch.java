package dev.retryagent.it.jdkhttp;

import static dev.retryagent.it.apps.BatchCalls.elapsedMs;
import static dev.retryagent.it.apps.BatchCalls.sinceInterruptUs;
import static dev.retryagent.it.apps.CallSpec.one;

import dev.retryagent.it.apps.BatchApp;
import dev.retryagent.it.apps.BatchCalls;
import dev.retryagent.it.apps.CallSpec;
import dev.retryagent.it.apps.Report;
import dev.retryagent.it.clients.JdkHttpClientKit;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * {@code java.net.http}'s part of the batch application ({@link BatchApp}{@code  jdk-httpclient}, Java 11 and up): a
 * plain application using the JDK's {@code java.net.http.HttpClient} (no agent code).
 *
 * <pre>
 * --call-parts "k=v;..."   parts added to every call that has none of those keys
 * --all-method-retry   sets jdk.httpclient.enableAllMethodRetry=true before the client is made (the client then
 *              resends any method, POST included, after a pooled connection failed)
 * --call "id=ID;url=URL;mode=sync|async;method=GET;body=TEXT;header=Name: value;
 *         publisher=string|bytes|file|inputstream|custom (how body is sent; default string);
 *         handler=string|bytes|stream|lines|discarding|file (the BodyHandler; default string);
 *         client=default|h1|h2|exec1 (newHttpClient(), HTTP/1.1 only, HTTP/2 preferred, HTTP/1.1 on an executor
 *         of one thread named client-exec1);
 *         startAfterMs=N (wait before calling); readTimeoutMs=N (the request's timeout; default 30 s);
 *         cancelAfterMs=N, cancelOn=SIGNAL (async: future.cancel(true)); interruptAfterMs=N (sync: interrupt the caller);
 *         repeat=N (N calls one after the other on the same client; the last one is reported)"
 * </pre>
 * Per call {@code RESULT id=.. status=.. body=.. h.Retry-After=.. version=.. elapsedMs=.. interrupted=..
 * sinceInterruptUs=.. thread=..}, or {@code RESULT id=.. failure=CLASS message=.. cancelled=..}.
 */
public final class JdkHttpClientBatch implements BatchApp.Client {
    private final Map<String, HttpClient> clients = new ConcurrentHashMap<>();
    private final Map<String, List<String>> common = new LinkedHashMap<>();

    @Override
    public int take(String[] argv, int i) {
        switch (argv[i]) {
            case "--all-method-retry":
                System.setProperty("jdk.httpclient.enableAllMethodRetry", "true");
                return i;
            case "--call-parts":
                common.putAll(CallSpec.parse(argv[i + 1]));
                return i + 1;
            default:
                return -1;
        }
    }

    /** Adds the common parts to every call, makes the calls' clients and warms them up. */
    @Override
    public void prepare(List<Map<String, List<String>>> calls) throws Exception {
        for (Map<String, List<String>> call : calls) {
            common.forEach(call::putIfAbsent);
        }
        for (Map<String, List<String>> call : calls) {
            client(one(call, "client", "default"));
        }
        warmUp();
    }

    /**
     * One sync and one async call through each client to a loopback server of the app's own, before the calls: the
     * client's first exchange loads most of java.net.http (hundreds of ms on a loaded machine), which the contract's
     * time bounds are not about. A service that has been up for a while has done that long ago.
     */
    private void warmUp() throws Exception {
        com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, 2);
            exchange.getResponseBody().write("ok".getBytes(StandardCharsets.UTF_8));
            exchange.close();
        });
        server.start();
        try {
            URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/warm-up");
            for (HttpClient client : clients.values()) {
                client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
                // several at once, so that the client's executor has its threads when the calls start together
                List<CompletableFuture<HttpResponse<String>>> warming = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    warming.add(client.sendAsync(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()));
                }
                for (CompletableFuture<HttpResponse<String>> f : warming) {
                    f.get(30, TimeUnit.SECONDS);
                }
            }
        } finally {
            server.stop(0);
        }
    }

    private HttpClient client(String kind) {
        return clients.computeIfAbsent(kind, JdkHttpClientBatch::newClient);
    }

    private static HttpClient newClient(String kind) {
        switch (kind) {
            case "h1":
                return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            case "h2":
                return HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
            case "exec1":
                return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                        .executor(Executors.newSingleThreadExecutor(r -> {
                            Thread t = new Thread(r, "client-exec1");
                            t.setDaemon(true);
                            return t;
                        })).build();
            default:
                return HttpClient.newHttpClient();
        }
    }

    @Override
    public void call(Map<String, List<String>> spec, String id) {
        if (spec.containsKey("startAfterMs")) {
            try {
                Thread.sleep(Long.parseLong(one(spec, "startAfterMs", "0")));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        int repeat = Integer.parseInt(one(spec, "repeat", "1"));
        for (int i = 1; i < repeat; i++) {
            call(spec, id, false);
        }
        call(spec, id, true);
    }

    private void call(Map<String, List<String>> spec, String id, boolean report) {
        long start = System.nanoTime();
        HttpClient client = client(one(spec, "client", "default"));
        try {
            HttpRequest request = JdkHttpClientKit.request(CallSpec.requestAsGiven(spec, "text/plain; charset=utf-8"),
                    one(spec, "publisher", "string"),
                    Duration.ofMillis(Long.parseLong(one(spec, "readTimeoutMs", "30000"))));
            String handlerKind = one(spec, "handler", "string");
            Path file = handlerKind.equals("file") ? Files.createTempFile("jdkhttp-body", ".txt") : null;
            HttpResponse.BodyHandler<?> handler = JdkHttpClientKit.handler(handlerKind, file);
            HttpResponse<?> response;
            if (one(spec, "mode", "sync").equals("async")) {
                CompletableFuture<? extends HttpResponse<?>> future = client.sendAsync(request, handler);
                BatchCalls.cancelAfter(spec, future);
                try {
                    response = future.get(60, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    throw e.getCause();
                }
            } else {
                BatchCalls.interruptAfter(spec, id);
                response = client.send(request, handler);
            }
            String body = JdkHttpClientKit.text(response.body(), file);
            if (report) {
                Report.line("RESULT", "id", id, "status", response.statusCode(), "body", body,
                        "h.Retry-After", response.headers().firstValue("Retry-After").orElse(null),
                        "version", response.version(), "elapsedMs", elapsedMs(start),
                        "interrupted", Thread.currentThread().isInterrupted(), "sinceInterruptUs", sinceInterruptUs(id),
                        "thread", Thread.currentThread().getName());
            }
        } catch (Throwable e) {
            if (report) {
                Report.line("RESULT", "id", id, "failure", e.getClass().getName(), "message", e.getMessage(),
                        "cancelled", e instanceof CancellationException, "elapsedMs", elapsedMs(start),
                        "interrupted", Thread.currentThread().isInterrupted(), "sinceInterruptUs", sinceInterruptUs(id));
            }
        }
    }
}
