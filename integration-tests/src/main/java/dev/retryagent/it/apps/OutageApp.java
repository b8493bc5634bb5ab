package dev.retryagent.it.apps;

import dev.retryagent.it.clients.HttpUrlConnectionKit;
import dev.retryagent.it.clients.KitRequest;
import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A plain application (no agent code, JDK only) that calls one destination through HttpURLConnection (its kit)
 * many times: a burst, or a steady rate, as a service does while its dependency is down.
 *
 * <pre>
 * --url URL          the destination; without it, a loopback server of the app's own that answers every
 *                    request with 503 (printed as SERVING url=.. ; its requests are counted)
 * --calls N          how many calls (default 20)
 * --rate R           calls per second, started on a pool of --threads (default 0: one after the other)
 * --seconds S        with --rate: calls = R * S
 * --threads T        default 200
 * --await-line       when the calls are done, print CALLS-DONE and wait for a line on stdin before exiting
 * --linger-ms M      when the calls are done, stay M ms before exiting (a log window's end comes meanwhile)
 * </pre>
 *
 * Prints {@code CALLS-DONE calls=N ok=N failed=N elapsedMs=N served=N}; exits 0.
 */
public final class OutageApp {
    public static void main(String[] argv) throws Exception {
        String url = null;
        long calls = 20;
        double rate = 0;
        double seconds = 0;
        int threads = 200;
        boolean awaitLine = false;
        long lingerMillis = 0;
        for (int i = 0; i < argv.length; i++) {
            switch (argv[i]) {
                case "--url":
                    url = argv[++i];
                    break;
                case "--calls":
                    calls = Long.parseLong(argv[++i]);
                    break;
                case "--rate":
                    rate = Double.parseDouble(argv[++i]);
                    break;
                case "--seconds":
                    seconds = Double.parseDouble(argv[++i]);
                    break;
                case "--threads":
                    threads = Integer.parseInt(argv[++i]);
                    break;
                case "--await-line":
                    awaitLine = true;
                    break;
                case "--linger-ms":
                    lingerMillis = Long.parseLong(argv[++i]);
                    break;
                default:
                    throw new IllegalArgumentException("unknown argument " + argv[i]);
            }
        }
        AtomicLong served = new AtomicLong();
        HttpServer server = null;
        if (url == null) {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 512);
            server.createContext("/", exchange -> {
                served.incrementAndGet();
                try (InputStream in = exchange.getRequestBody()) {
                    Report.drain(in);
                }
                exchange.sendResponseHeaders(503, -1);
                exchange.close();
            });
            server.setExecutor(Executors.newFixedThreadPool(4));
            server.start();
            url = "http://127.0.0.1:" + server.getAddress().getPort() + "/items";
            System.out.println("SERVING url=" + url);
        }
        if (rate > 0 && seconds > 0) {
            calls = Math.round(rate * seconds);
        }
        AtomicLong ok = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        KitRequest target = KitRequest.get(url);
        HttpUrlConnectionKit kit = new HttpUrlConnectionKit(5_000, 5_000);
        long start = System.nanoTime();
        if (rate <= 0) {
            for (long i = 0; i < calls; i++) {
                call(kit, target, ok, failed);
            }
        } else {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor();
            long periodNanos = Math.round(1e9 / rate);
            AtomicLong started = new AtomicLong();
            long total = calls;
            ticks.scheduleAtFixedRate(() -> {
                if (started.getAndIncrement() < total) {
                    pool.execute(() -> call(kit, target, ok, failed));
                }
            }, 0, periodNanos, TimeUnit.NANOSECONDS);
            while (started.get() < total) {
                Thread.sleep(50);
            }
            ticks.shutdown();
            pool.shutdown();
            pool.awaitTermination(5, TimeUnit.MINUTES);
        }
        System.out.println("CALLS-DONE calls=" + calls + " ok=" + ok.get() + " failed=" + failed.get()
                + " elapsedMs=" + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " served=" + served.get());
        System.out.flush();
        if (awaitLine) {
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        }
        Thread.sleep(lingerMillis);
        if (server != null) {
            server.stop(0);
        }
        System.exit(0);
    }

    private static void call(HttpUrlConnectionKit kit, KitRequest target, AtomicLong ok, AtomicLong failed) {
        try {
            (kit.call(target).status() < 400 ? ok : failed).incrementAndGet();
        } catch (IOException e) {
            failed.incrementAndGet();
        }
    }
}
