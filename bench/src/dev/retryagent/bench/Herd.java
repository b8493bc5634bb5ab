package dev.retryagent.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The thundering herd, once per jitter kind: {@link HerdClient} in a forked JVM with the built agent makes
 * {@code CALLS} calls at once to a loopback server of this JVM that answers everything with 503 for {@code DOWN_MS}
 * after its first request, then serves at most {@code CAPACITY} requests at a time (each takes {@code SERVICE_MS}),
 * 503 above that. The policy: maxAttempts 10, backoff base 100 ms, cap 5 s, the jitter under test; a deadline and a
 * budget that never stop a retry, so that the jitter alone shapes the load.
 *
 * <p>Writes {@code herd.md} (a markdown table with the targets) and {@code herd.svg} (server hits per 100 ms over
 * time, one line per jitter kind) into OUT, and prints one {@code HERD} line per kind.
 *
 * <pre>Herd JAVA AGENT_JAR CLIENT_CLASSPATH WORK_DIR OUT_MD OUT_SVG</pre>
 */
public final class Herd {
    static final String[] JITTERS = {"none", "full", "equal", "decorrelated"};
    static final String[] COLORS = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd"};
    static final int CALLS = 200;
    static final long DOWN_MS = 2_000;
    static final int CAPACITY = 10;
    static final long SERVICE_MS = 50;
    static final int BUCKET_MS = 100;

    record Run(String jitter, long hits, long served, int peakAfterRecovery, long finishMs, int ok, int calls,
               int[] buckets) {
    }

    public static void main(String[] args) throws Exception {
        // the JDK server writes a response's head and body separately: without TCP_NODELAY each response waits for
        // the client's delayed ACK (about 40 ms)
        System.setProperty("sun.net.httpserver.nodelay", "true");
        String java = args[0];
        String agentJar = args[1];
        String classpath = args[2];
        Path work = Path.of(args[3]);
        Path outMd = Path.of(args[4]);
        Path outSvg = Path.of(args[5]);
        Files.createDirectories(work);
        List<Run> runs = new ArrayList<>();
        for (String jitter : args.length > 6 ? args[6].split(",") : JITTERS) {
            Run run = run(java, agentJar, classpath, work, jitter);
            System.out.println("HERD jitter=" + jitter + " hits=" + run.hits + " served=" + run.served
                    + " peakPer100msAfterRecovery=" + run.peakAfterRecovery + " finishMs=" + run.finishMs
                    + " ok=" + run.ok + "/" + run.calls);
            runs.add(run);
        }
        Files.writeString(outMd, markdown(runs), StandardCharsets.UTF_8);
        Files.createDirectories(outSvg.toAbsolutePath().getParent());
        Files.writeString(outSvg, svg(runs), StandardCharsets.UTF_8);
    }

    static Run run(String java, String agentJar, String classpath, Path work, String jitter) throws Exception {
        Path policy = work.resolve("herd-" + jitter + ".yaml");
        Files.writeString(policy, String.join("\n",
                "version: 1",
                "defaults:",
                "  maxAttempts: 10",
                "  backoff: { base: 100ms, cap: 5s, jitter: " + jitter + " }",
                "  deadline: 120s",
                "  budget: { ratio: 1.0, minPerSecond: 100000 }",
                ""), StandardCharsets.UTF_8);
        AtomicLong firstNanos = new AtomicLong();
        ConcurrentLinkedQueue<Long> hitMillis = new ConcurrentLinkedQueue<>();
        AtomicLong served = new AtomicLong();
        Semaphore capacity = new Semaphore(CAPACITY);
        byte[] ok = "ok".getBytes(StandardCharsets.ISO_8859_1);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
        // /warm is for this JVM's own warm-up calls: not counted, not the start of the outage
        server.createContext("/warm", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        server.createContext("/", exchange -> {
            long now = System.nanoTime();
            firstNanos.compareAndSet(0, now);
            long at = (now - firstNanos.get()) / 1_000_000;
            hitMillis.add(at);
            try (InputStream in = exchange.getRequestBody()) {
                in.readAllBytes();
            }
            if (at >= DOWN_MS && capacity.tryAcquire()) {
                try {
                    Thread.sleep(SERVICE_MS);
                    served.incrementAndGet();
                    exchange.sendResponseHeaders(200, ok.length);
                    exchange.getResponseBody().write(ok);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    capacity.release();
                }
            } else {
                exchange.sendResponseHeaders(503, -1);
            }
            exchange.close();
        });
        // one thread per request in flight, so that only the capacity limits what is served at once
        ExecutorService pool = Executors.newCachedThreadPool();
        server.setExecutor(pool);
        server.start();
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/orders";
            warmUp(new java.net.URL("http://127.0.0.1:" + server.getAddress().getPort() + "/warm"));
            List<String> command = List.of(java, "-javaagent:" + agentJar + "=policy=" + policy + ",log=warn",
                    "-cp", classpath, HerdClient.class.getName(), url, Integer.toString(CALLS));
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(work.resolve("herd-" + jitter + ".out").toFile()).start();
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException("herd client for jitter " + jitter + " did not finish in 5 minutes");
            }
            String result = Files.readAllLines(work.resolve("herd-" + jitter + ".out")).stream()
                    .filter(l -> l.startsWith("HERD-CLIENT ")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no HERD-CLIENT line; see " + work));
            Map<String, String> fields = fields(result);
            List<Long> hits = new ArrayList<>(hitMillis);
            long last = hits.stream().mapToLong(Long::longValue).max().orElse(0);
            int[] buckets = new int[(int) (last / BUCKET_MS) + 1];
            for (long at : hits) {
                buckets[(int) (at / BUCKET_MS)]++;
            }
            StringBuilder csv = new StringBuilder("ms,hits\n");
            for (int i = 0; i < buckets.length; i++) {
                csv.append(i * BUCKET_MS).append(',').append(buckets[i]).append('\n');
            }
            Files.writeString(work.resolve("herd-" + jitter + ".csv"), csv.toString(), StandardCharsets.UTF_8);
            int peak = 0;
            for (int i = (int) (DOWN_MS / BUCKET_MS); i < buckets.length; i++) {
                peak = Math.max(peak, buckets[i]);
            }
            return new Run(jitter, hits.size(), served.get(), peak, Long.parseLong(fields.get("finishMs")),
                    Integer.parseInt(fields.get("ok")), Integer.parseInt(fields.get("calls")), buckets);
        } finally {
            server.stop(0);
            pool.shutdownNow();
        }
    }

    /** Warms the server's request path (a JIT-cold server would spread the herd's first wave by itself). */
    static void warmUp(java.net.URL url) throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(20);
        List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            futures.add(callers.submit(() -> {
                java.net.HttpURLConnection connection = (java.net.HttpURLConnection) url.openConnection();
                connection.getResponseCode();
                connection.getInputStream().readAllBytes();
                return null;
            }));
        }
        for (java.util.concurrent.Future<?> future : futures) {
            future.get();
        }
        callers.shutdown();
    }

    static Map<String, String> fields(String line) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String token : line.split(" ")) {
            int eq = token.indexOf('=');
            if (eq > 0) {
                fields.put(token.substring(0, eq), token.substring(eq + 1));
            }
        }
        return fields;
    }

    static String markdown(List<Run> runs) {
        StringBuilder md = new StringBuilder();
        md.append("| jitter | server hits | peak hits per 100 ms after recovery | all calls finished | success |\n");
        md.append("|---|---|---|---|---|\n");
        for (Run run : runs) {
            md.append(String.format(Locale.ROOT, "| %s | %d (%.2f per call) | %d | %.1f s | %d/%d (%.1f%%) |%n",
                    run.jitter, run.hits, run.hits / (double) run.calls, run.peakAfterRecovery,
                    run.finishMs / 1000.0, run.ok, run.calls, 100.0 * run.ok / run.calls));
        }
        Run none = runs.stream().filter(r -> r.jitter.equals("none")).findFirst().orElse(null);
        Run full = runs.stream().filter(r -> r.jitter.equals("full")).findFirst().orElse(null);
        if (none == null || full == null) {
            return md.toString();
        }
        double peakRatio = full.peakAfterRecovery / (double) Math.max(1, none.peakAfterRecovery);
        double finishRatio = full.finishMs / (double) Math.max(1, none.finishMs);
        md.append(String.format(Locale.ROOT, "%nTargets (full jitter against none): peak %.2fx (at most 0.33x: %s), "
                        + "finish %.2fx (at most 0.6x: %s), success %d/%d (100%%: %s).%n",
                peakRatio, met(peakRatio <= 1.0 / 3), finishRatio, met(finishRatio <= 0.6), full.ok, full.calls,
                met(full.ok == full.calls)));
        return md.toString();
    }

    static String met(boolean met) {
        return met ? "met" : "**missed**";
    }

    /** A line chart of server hits per 100 ms, one polyline per jitter kind, with axes, a legend and the recovery. */
    static String svg(List<Run> runs) {
        int width = 900;
        int height = 420;
        int left = 60;
        int right = 20;
        int top = 40;
        int bottom = 50;
        int plotW = width - left - right;
        int plotH = height - top - bottom;
        int maxBuckets = runs.stream().mapToInt(r -> r.buckets.length).max().orElse(1);
        int maxHits = runs.stream().flatMapToInt(r -> java.util.Arrays.stream(r.buckets)).max().orElse(1);
        double seconds = Math.max(1, Math.ceil(maxBuckets * BUCKET_MS / 1000.0));
        int yMax = niceCeiling(maxHits);
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", width, height, width, height));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"22\" font-size=\"15\">The herd: server hits per "
                        + "100 ms, %d calls at once, server down for %.0f s then %d at a time</text>%n",
                left, CALLS, DOWN_MS / 1000.0, CAPACITY));
        // axes, grid and ticks
        int xStep = seconds > 30 ? 10 : seconds > 10 ? 5 : 1;
        for (int s = 0; s <= seconds; s += xStep) {
            double x = left + plotW * s / seconds;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d s</text>%n",
                    x, top, x, top + plotH, x, top + plotH + 18, s));
        }
        int yStep = Math.max(1, yMax / 5);
        for (int v = 0; v <= yMax; v += yStep) {
            double y = top + plotH - plotH * (double) v / yMax;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d</text>%n",
                    left, y, left + plotW, y, left - 6, y + 4, v));
        }
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
                left, top + plotH, left + plotW, top + plotH));
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
                left, top, left, top + plotH));
        double recoveryX = left + plotW * (DOWN_MS / 1000.0) / seconds;
        svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\" "
                        + "stroke-dasharray=\"4 3\"/><text x=\"%.1f\" y=\"%d\" fill=\"#555\">recovery</text>%n",
                recoveryX, top, recoveryX, top + plotH, recoveryX + 4, top + 12));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time since the first "
                + "request</text>%n", left + plotW / 2, height - 8));
        svg.append(String.format(Locale.ROOT, "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" "
                + "text-anchor=\"middle\">hits per 100 ms</text>%n", top + plotH / 2, top + plotH / 2));
        for (int k = 0; k < runs.size(); k++) {
            Run run = runs.get(k);
            String color = COLORS[k % COLORS.length];
            StringBuilder points = new StringBuilder();
            for (int i = 0; i < run.buckets.length; i++) {
                double x = left + plotW * (i * BUCKET_MS / 1000.0) / seconds;
                double y = top + plotH - plotH * (double) run.buckets[i] / yMax;
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
            }
            svg.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
                    + "points=\"%s\"/>%n", color, points.toString().trim()));
            int ly = top + 10 + 18 * k;
            int lx = left + plotW - 190;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                            + "stroke-width=\"3\"/><text x=\"%d\" y=\"%d\">%s (%d hits, done in %.1f s)</text>%n",
                    lx, ly, lx + 20, ly, color, lx + 26, ly + 4, run.jitter, run.hits, run.finishMs / 1000.0));
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    static int niceCeiling(int value) {
        int[] steps = {10, 20, 25, 50};
        int scale = 1;
        while (true) {
            for (int step : steps) {
                if (step * scale >= value) {
                    return step * scale;
                }
            }
            scale *= 10;
        }
    }
}
