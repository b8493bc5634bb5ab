package dev.retryagent.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URL;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The clients of the herd: {@code calls} threads, each making one GET through HttpURLConnection, all released at
 * once. Before the release each thread makes one call to a loopback server of this JVM that answers 200, so that the
 * herd meets a warm client (a running service whose dependency goes down), not class loading and a cold JIT. No
 * agent code: the retries are the agent's. Prints
 * {@code HERD-CLIENT calls=N ok=N failed=N finishMs=<first release to last call's end>}.
 *
 * <pre>HerdClient URL CALLS</pre>
 */
public final class HerdClient {
    public static void main(String[] args) throws Exception {
        // the JDK server writes a response's head and body separately: without TCP_NODELAY each response waits for
        // the client's delayed ACK (about 40 ms)
        System.setProperty("sun.net.httpserver.nodelay", "true");
        URL url = new URL(args[0]);
        int calls = Integer.parseInt(args[1]);
        HttpServer warm = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
        warm.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        warm.setExecutor(Executors.newCachedThreadPool());
        warm.start();
        URL warmUrl = new URL("http://127.0.0.1:" + warm.getAddress().getPort() + "/warm");
        CountDownLatch ready = new CountDownLatch(calls);
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(calls);
        AtomicInteger ok = new AtomicInteger();
        AtomicLong lastEnd = new AtomicLong();
        for (int i = 0; i < calls; i++) {
            Thread thread = new Thread(() -> {
                try {
                    call(warmUrl);
                } finally {
                    ready.countDown();
                }
                try {
                    go.await();
                    if (call(url) == 200) {
                        ok.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    lastEnd.accumulateAndGet(System.nanoTime(), Math::max);
                    done.countDown();
                }
            }, "herd-" + i);
            thread.start();
        }
        ready.await();
        long start = System.nanoTime();
        go.countDown();
        done.await();
        System.out.println("HERD-CLIENT calls=" + calls + " ok=" + ok.get() + " failed=" + (calls - ok.get())
                + " finishMs=" + (lastEnd.get() - start) / 1_000_000);
        System.out.flush();
        System.exit(0);
    }

    private static int call(URL url) {
        try {
            HttpURLConnection connection = (HttpURLConnection) url.openConnection();
            connection.setConnectTimeout(30_000);
            connection.setReadTimeout(30_000);
            int status = connection.getResponseCode();
            InputStream body = status < 400 ? connection.getInputStream() : connection.getErrorStream();
            if (body != null) {
                try (InputStream in = body) {
                    in.readAllBytes();
                }
            }
            return status;
        } catch (IOException e) {
            return -1;
        }
    }
}
