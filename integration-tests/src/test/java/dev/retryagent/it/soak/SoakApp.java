package dev.retryagent.it.soak;

import dev.retryagent.it.apps.Report;
import dev.retryagent.it.clients.HttpClient5Kit;
import dev.retryagent.it.clients.HttpUrlConnectionKit;
import dev.retryagent.it.clients.KitRequest;
import dev.retryagent.it.clients.Kits;
import dev.retryagent.it.clients.OkHttpKit;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManager;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.util.Timeout;

/**
 * The soak's application, with no agent code: {@code THREADS} threads make {@code CALLS} calls, spread over five
 * client kinds (each through its client's kit), each kind to its own loopback server ({@code --okhttp URL --httpclient5 URL --httpclient5-async URL
 * --jdk URL --okhttp-async URL}). A tenth of each kind's calls are POSTs without an idempotency key carrying
 * {@code X-Call-Id}; the others are GETs. Every client reads with a {@code READ_TIMEOUT_MS} timeout.
 *
 * <p>Prints per kind {@code KIND kind=.. calls=.. ok=.. failedGets=.. failedPosts=..} (a failed call ended with a
 * failure or a 429/5xx status), {@code POOL ...} after the calls, {@code MBEAN name=.. attempts=.. ...} for each
 * MBean of the agent, {@code THREADS live=.. agent=NAMES} (the agent's threads) and {@code DONE elapsedMs=..}; exits 3 if any call did not end within
 * the overall limit (a hang).
 */
public final class SoakApp {
    static final int READ_TIMEOUT_MS = 400;
    static final String[] KINDS = {"okhttp", "okhttp-async", "httpclient5", "httpclient5-async", "jdk"};

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new TreeMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            args.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
        }
        int calls = Integer.parseInt(args.getOrDefault("calls", "20000"));
        int threads = Integer.parseInt(args.getOrDefault("threads", "64"));

        Dispatcher dispatcher = new Dispatcher();
        dispatcher.setMaxRequests(threads);
        dispatcher.setMaxRequestsPerHost(threads);
        OkHttpClient okhttp = new OkHttpClient.Builder().dispatcher(dispatcher)
                .readTimeout(READ_TIMEOUT_MS, TimeUnit.MILLISECONDS).build();
        PoolingHttpClientConnectionManager classicPool = PoolingHttpClientConnectionManagerBuilder.create()
                .setMaxConnTotal(threads).setMaxConnPerRoute(threads)
                .setDefaultSocketConfig(SocketConfig.custom().setSoTimeout(Timeout.ofMilliseconds(READ_TIMEOUT_MS)).build())
                .build();
        RequestConfig config = RequestConfig.custom().setResponseTimeout(Timeout.ofMilliseconds(READ_TIMEOUT_MS)).build();
        PoolingAsyncClientConnectionManager asyncPool = PoolingAsyncClientConnectionManagerBuilder.create()
                .setMaxConnTotal(threads).setMaxConnPerRoute(threads).build();
        HttpClient5Kit httpClient5 = HttpClient5Kit.pooled(classicPool, asyncPool, config);
        HttpUrlConnectionKit jdk = new HttpUrlConnectionKit(5000, READ_TIMEOUT_MS);
        Kits kits = new Kits().use("okhttp", () -> new OkHttpKit(okhttp)).use("httpclient5", () -> httpClient5)
                .use("jdk", () -> jdk);

        Map<String, LongAdder[]> tally = new ConcurrentHashMap<>(); // ok, failedGets, failedPosts, calls
        for (String kind : KINDS) {
            tally.put(kind, new LongAdder[] {new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder()});
        }
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            pool.execute(() -> {
                for (int n; (n = next.getAndIncrement()) < calls; ) {
                    String kind = KINDS[n % KINDS.length];
                    boolean post = (n / KINDS.length) % 10 == 7; // a tenth of each kind's calls
                    String url = args.get(kind) + (post ? "/orders/" : "/items/") + n;
                    LongAdder[] counts = tally.get(kind);
                    counts[3].increment();
                    boolean ok;
                    try {
                        ok = kits.call(kind, request(url, post, "call-" + n), 2, TimeUnit.MINUTES).status() < 400;
                    } catch (Exception e) {
                        ok = false;
                    }
                    counts[ok ? 0 : post ? 2 : 1].increment();
                }
            });
        }
        pool.shutdown();
        boolean ended = pool.awaitTermination(10, TimeUnit.MINUTES);
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        for (String kind : KINDS) {
            LongAdder[] c = tally.get(kind);
            Report.line("KIND", "kind", kind, "calls", c[3].sum(), "ok", c[0].sum(), "failedGets", c[1].sum(),
                    "failedPosts", c[2].sum());
        }
        dispatcher.executorService().shutdown();
        // HttpClient 5's async client completes a call's future before its I/O reactor hands the connection back to
        // the pool: a lease still out when the last call ends is awaited, for a while, before it counts as kept.
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (asyncPool.getTotalStats().getLeased() > 0 && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        Report.line("POOL", "okhttpConnections", okhttp.connectionPool().connectionCount(),
                "okhttpRunning", dispatcher.runningCallsCount(), "okhttpQueued", dispatcher.queuedCallsCount(),
                "classicLeased", classicPool.getTotalStats().getLeased(),
                "asyncLeased", asyncPool.getTotalStats().getLeased());
        printMBeans();
        httpClient5.close();
        TreeSet<String> agentThreads = new TreeSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("retry-agent")) {
                agentThreads.add(t.getName() + (t.isDaemon() ? "" : "(non-daemon)"));
            }
        }
        Report.line("THREADS", "live", ManagementFactory.getThreadMXBean().getThreadCount(), "agent",
                String.join(",", agentThreads));
        Report.line("DONE", "elapsedMs", elapsedMs, "ended", ended);
        System.exit(ended ? 0 : 3);
    }

    private static KitRequest request(String url, boolean post, String id) {
        if (!post) {
            return KitRequest.get(url);
        }
        return KitRequest.of("POST", url).header("X-Call-Id", id)
                .body(id.getBytes(StandardCharsets.UTF_8), "text/plain");
    }

    private static void printMBeans() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName total = new ObjectName("retry-agent:type=total");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!server.isRegistered(total) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        // Registered once a second by the agent: wait until every destination of the run has its MBean.
        while (server.queryNames(new ObjectName("retry-agent:type=destination,*"), null).size() < KINDS.length
                && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        for (ObjectName name : new TreeSet<>(server.queryNames(new ObjectName("retry-agent:*"), null))) {
            if ("agent".equals(name.getKeyProperty("type"))) {
                continue; // the agent's own MBean counts nothing
            }
            List<Object> kv = new ArrayList<>(List.of("name", name.toString()));
            for (String attribute : List.of("calls", "attempts", "retries", "successes_after_retry", "budget_refusals")) {
                kv.add(attribute);
                kv.add(server.getAttribute(name, attribute));
            }
            TabularData giveUps = (TabularData) server.getAttribute(name, "give_ups");
            for (Object row : giveUps.values()) {
                CompositeData c = (CompositeData) row;
                kv.add("give_ups." + c.get("reason"));
                kv.add(c.get("value"));
            }
            Report.line("MBEAN", kv.toArray());
        }
    }
}
