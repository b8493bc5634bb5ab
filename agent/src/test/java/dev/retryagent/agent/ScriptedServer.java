package dev.retryagent.agent;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;

/**
 * A loopback HTTP server for the client adapters' in-process tests. It answers request n (0 for the first) with the
 * status the test scripts for it, 200 unless told otherwise, and the body {@code r<n>}; it keeps what each request
 * carried: its {@code Retry-Attempt} marker, its {@code Idempotency-Key}, its path and its body.
 */
public final class ScriptedServer {
    static {
        // The JDK's server writes head and body apart: without TCP_NODELAY each exchange waits for a delayed ACK.
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    /** Each request's {@code Retry-Attempt} header, {@code "null"} where it had none. */
    public final List<String> markers = new CopyOnWriteArrayList<>();
    /** Each request's {@code Idempotency-Key} header, {@code "null"} where it had none. */
    public final List<String> keys = new CopyOnWriteArrayList<>();
    public final List<String> paths = new CopyOnWriteArrayList<>();
    public final List<byte[]> bodies = new CopyOnWriteArrayList<>();
    /** How many requests have come in. */
    public final AtomicInteger requests = new AtomicInteger();

    private volatile IntUnaryOperator script = n -> 200;
    private HttpServer server;

    public void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            int n = requests.getAndIncrement();
            markers.add(String.valueOf(exchange.getRequestHeaders().getFirst("Retry-Attempt")));
            keys.add(String.valueOf(exchange.getRequestHeaders().getFirst("Idempotency-Key")));
            paths.add(exchange.getRequestURI().getPath());
            bodies.add(exchange.getRequestBody().readAllBytes());
            int status = script.applyAsInt(n);
            byte[] body = ("r" + n).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    public void stop() {
        server.stop(0);
    }

    /** The status for request n: {@code statusOfRequest.applyAsInt(n)}. */
    public void script(IntUnaryOperator statusOfRequest) {
        script = statusOfRequest;
    }

    /** The first requests get these statuses, in order; the ones after them 200. */
    public void statuses(int... codes) {
        script = n -> n < codes.length ? codes[n] : 200;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** {@code http://127.0.0.1:<port>/items}. */
    public String url() {
        return "http://127.0.0.1:" + port() + "/items";
    }

    /** The request bodies as UTF-8 text. */
    public List<String> bodyTexts() {
        List<String> texts = new ArrayList<>();
        for (byte[] body : bodies) {
            texts.add(new String(body, StandardCharsets.UTF_8));
        }
        return texts;
    }
}
