import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The per-call cost of a client on a warm keep-alive loopback connection: starts a keep-alive HTTP/1.1 server of its
 * own on 127.0.0.1, makes warm-up calls for WARMUP_MS with one client, then ROUNDS rounds of CALLS calls each, and
 * prints the median of the rounds' nanoseconds per call. No agent code: per-call.sh runs it with and without
 * -javaagent. Each client's code is in its own nested class, so that only the chosen client's jars are needed.
 *
 * <pre>java -cp CLASSES:CLIENT-JARS PerCallApp CLIENT STYLE WARMUP_MS ROUNDS CALLS</pre>
 * CLIENT: okhttp, httpclient5, httpclient4, huc, jdkhttp; STYLE: sync or async (httpclient5 and httpclient4: classic
 * or async; huc: sync only; jdkhttp: send or async).
 * Prints {@code per-call ns=MEDIAN min=MIN cpu_ns=MEAN thread_cpu_ns=MEAN alloc_b=MEAN rounds=R calls=N
 * connections=C} (per call: wall time, process CPU time, CPU time of the Java threads, bytes allocated by the Java
 * threads; the means over all rounds); exits non-zero on any failed call (status, body or exception).
 */
public final class PerCallApp {
    interface Driver {
        /** One call: status 200 and body "ok", or an exception. */
        void call() throws Exception;

        void close() throws Exception;
    }

    private static final byte[] RESPONSE =
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.ISO_8859_1);

    public static void main(String[] args) throws Exception {
        String client = args[0];
        String style = args[1];
        long warmupMillis = Long.parseLong(args[2]);
        int rounds = Integer.parseInt(args[3]);
        int calls = Integer.parseInt(args[4]);

        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> accept(server), "per-call-server");
        acceptor.setDaemon(true);
        acceptor.start();
        String url = "http://127.0.0.1:" + server.getLocalPort() + "/items/42";

        Driver driver = driver(client, style, url);
        long warmEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(warmupMillis);
        while (System.nanoTime() < warmEnd) {
            for (int i = 0; i < 200; i++) {
                driver.call();
            }
        }
        long[] nsPerCall = new long[rounds];
        long cpuStart = processCpuNanos(); // over all rounds: the OS counts it in ticks of up to 10 ms
        java.util.Map<Long, Long> threadCpuStart = javaThreadsCpuNanos();
        java.util.Map<Long, Long> allocStart = javaThreadsAllocatedBytes();
        for (int r = 0; r < rounds; r++) {
            long start = System.nanoTime();
            for (int i = 0; i < calls; i++) {
                driver.call();
            }
            nsPerCall[r] = (System.nanoTime() - start) / calls;
        }
        long totalCalls = (long) rounds * calls;
        long cpuPerCall = (processCpuNanos() - cpuStart) / totalCalls;
        long threadCpuPerCall = sumOfDeltas(threadCpuStart, javaThreadsCpuNanos()) / totalCalls;
        long allocPerCall = sumOfDeltas(allocStart, javaThreadsAllocatedBytes()) / totalCalls;
        driver.close();
        long median = median(nsPerCall);
        System.out.println("per-call ns=" + median + " min=" + nsPerCall[0] + " cpu_ns=" + cpuPerCall + " thread_cpu_ns=" + threadCpuPerCall
                + " alloc_b=" + allocPerCall + " rounds=" + rounds + " calls=" + calls
                + " connections=" + CONNECTIONS.get());
        System.exit(0);
    }

    /** Sorts {@code values} and returns their median. */
    static long median(long[] values) {
        Arrays.sort(values);
        int n = values.length;
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }

    /** CPU time of the whole process (client, server and agent threads): less sensitive to other load than wall time. */
    static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean
                ? ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime() : 0;
    }

    /**
     * CPU time of each Java thread alive now, by id: the calls' own work (caller, server, the client's threads)
     * without the JIT compiler's and the GC's, and, unlike wall time, not the time spent waiting for a core that
     * other processes hold.
     */
    static java.util.Map<Long, Long> javaThreadsCpuNanos() {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        java.util.Map<Long, Long> cpu = new java.util.HashMap<>();
        for (long id : threads.getAllThreadIds()) {
            long t = threads.getThreadCpuTime(id);
            if (t >= 0) {
                cpu.put(id, t);
            }
        }
        return cpu;
    }

    /**
     * Bytes allocated so far by each Java thread alive now, by id: unlike time, the same work allocates the same bytes
     * however loaded the machine is. Empty where the JVM cannot tell.
     */
    static java.util.Map<Long, Long> javaThreadsAllocatedBytes() {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        java.util.Map<Long, Long> bytes = new java.util.HashMap<>();
        if (threads instanceof com.sun.management.ThreadMXBean) {
            long[] ids = threads.getAllThreadIds();
            long[] allocated = ((com.sun.management.ThreadMXBean) threads).getThreadAllocatedBytes(ids);
            for (int i = 0; i < ids.length; i++) {
                if (allocated[i] >= 0) {
                    bytes.put(ids[i], allocated[i]);
                }
            }
        }
        return bytes;
    }

    /** The sum over the threads in {@code end} of their growth since {@code start} (a thread started since: all of it). */
    static long sumOfDeltas(java.util.Map<Long, Long> start, java.util.Map<Long, Long> end) {
        long sum = 0;
        for (java.util.Map.Entry<Long, Long> e : end.entrySet()) {
            Long before = start.get(e.getKey());
            sum += e.getValue() - (before == null ? 0 : before);
        }
        return sum;
    }

    static Driver driver(String client, String style, String url) throws Exception {
        switch (client + ":" + style) {
            case "okhttp:sync":
                return new OkHttpDriver(url, false);
            case "okhttp:async":
                return new OkHttpDriver(url, true);
            case "httpclient5:classic":
            case "httpclient5:sync":
                return new HttpClient5ClassicDriver(url);
            case "httpclient5:async":
                return new HttpClient5AsyncDriver(url);
            case "httpclient4:classic":
            case "httpclient4:sync":
                return new HttpClient4ClassicDriver(url);
            case "httpclient4:async":
                return new HttpClient4AsyncDriver(url);
            case "huc:sync":
                return new HucDriver(url);
            case "jdkhttp:send":
            case "jdkhttp:sync":
                return new JdkHttpDriver(url, false);
            case "jdkhttp:async":
                return new JdkHttpDriver(url, true);
            default:
                throw new IllegalArgumentException("unknown client/style " + client + ":" + style);
        }
    }

    static void check(int status, String body) {
        if (status != 200 || !"ok".equals(body)) {
            System.out.println("failed call: status=" + status + " body=" + body);
            System.exit(1);
        }
    }

    // ---- the server: one thread per connection, keep-alive, requests without body ----

    /** Connections accepted: a client that keeps its connection alive opens one. */
    private static final java.util.concurrent.atomic.AtomicInteger CONNECTIONS = new java.util.concurrent.atomic.AtomicInteger();

    private static void accept(ServerSocket server) {
        try {
            while (true) {
                Socket socket = server.accept();
                CONNECTIONS.incrementAndGet();
                socket.setTcpNoDelay(true);
                Thread t = new Thread(() -> serve(socket), "per-call-connection");
                t.setDaemon(true);
                t.start();
            }
        } catch (Exception e) {
            e.printStackTrace();
        }
    }

    private static void serve(Socket socket) {
        try (Socket s = socket) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            byte[] buf = new byte[16384];
            int len = 0;
            while (true) {
                int end = headEnd(buf, len);
                while (end < 0) {
                    if (len == buf.length) {
                        return; // a head larger than the buffer: not a request of this app
                    }
                    int n = in.read(buf, len, buf.length - len);
                    if (n < 0) {
                        return;
                    }
                    len += n;
                    end = headEnd(buf, len);
                }
                out.write(RESPONSE);
                out.flush();
                System.arraycopy(buf, end, buf, 0, len - end);
                len -= end;
            }
        } catch (Exception e) {
            // the client closed the connection
        }
    }

    /** The index just after the first "\r\n\r\n" in buf[0, len), or -1. */
    private static int headEnd(byte[] buf, int len) {
        for (int i = 3; i < len; i++) {
            if (buf[i] == '\n' && buf[i - 1] == '\r' && buf[i - 2] == '\n' && buf[i - 3] == '\r') {
                return i + 1;
            }
        }
        return -1;
    }

    // ---- the clients ----

    static final class OkHttpDriver implements Driver {
        private final okhttp3.OkHttpClient client = new okhttp3.OkHttpClient();
        private final okhttp3.Request request;
        private final boolean async;

        OkHttpDriver(String url, boolean async) {
            this.request = new okhttp3.Request.Builder().url(url).build();
            this.async = async;
        }

        @Override
        public void call() throws Exception {
            okhttp3.Response response;
            if (async) {
                CompletableFuture<okhttp3.Response> done = new CompletableFuture<>();
                client.newCall(request).enqueue(new okhttp3.Callback() {
                    @Override
                    public void onFailure(okhttp3.Call call, java.io.IOException e) {
                        done.completeExceptionally(e);
                    }

                    @Override
                    public void onResponse(okhttp3.Call call, okhttp3.Response r) {
                        done.complete(r);
                    }
                });
                response = done.get(30, TimeUnit.SECONDS);
            } else {
                response = client.newCall(request).execute();
            }
            try (okhttp3.Response r = response) {
                check(r.code(), r.body().string());
            }
        }

        @Override
        public void close() {
            client.dispatcher().executorService().shutdown();
            client.connectionPool().evictAll();
        }
    }

    static final class HttpClient5ClassicDriver implements Driver {
        private final org.apache.hc.client5.http.impl.classic.CloseableHttpClient client =
                org.apache.hc.client5.http.impl.classic.HttpClients.createDefault();
        private final String url;

        HttpClient5ClassicDriver(String url) {
            this.url = url;
        }

        @Override
        public void call() throws Exception {
            client.execute(new org.apache.hc.client5.http.classic.methods.HttpGet(url), response -> {
                check(response.getCode(), org.apache.hc.core5.http.io.entity.EntityUtils.toString(response.getEntity()));
                return null;
            });
        }

        @Override
        public void close() throws Exception {
            client.close();
        }
    }

    static final class HttpClient5AsyncDriver implements Driver {
        private final org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient client =
                org.apache.hc.client5.http.impl.async.HttpAsyncClients.createDefault();
        private final String url;

        HttpClient5AsyncDriver(String url) {
            this.url = url;
            client.start();
        }

        @Override
        public void call() throws Exception {
            org.apache.hc.client5.http.async.methods.SimpleHttpRequest request =
                    org.apache.hc.client5.http.async.methods.SimpleRequestBuilder.get(url).build();
            org.apache.hc.client5.http.async.methods.SimpleHttpResponse response =
                    client.execute(request, null).get(30, TimeUnit.SECONDS);
            check(response.getCode(), response.getBodyText());
        }

        @Override
        public void close() throws Exception {
            client.close();
        }
    }

    static final class HucDriver implements Driver {
        private final URL url;
        private final byte[] buf = new byte[256];

        HucDriver(String url) throws Exception {
            this.url = new URL(url);
        }

        @Override
        public void call() throws Exception {
            HttpURLConnection conn = (HttpURLConnection) url.openConnection();
            int status = conn.getResponseCode();
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            try (InputStream in = conn.getInputStream()) { // read to the end and closed: the connection is kept alive
                for (int n; (n = in.read(buf)) >= 0; ) {
                    body.write(buf, 0, n);
                }
            }
            check(status, new String(body.toByteArray(), StandardCharsets.ISO_8859_1));
        }

        @Override
        public void close() {
        }
    }

    static final class HttpClient4ClassicDriver implements Driver {
        private final org.apache.http.impl.client.CloseableHttpClient client =
                org.apache.http.impl.client.HttpClients.createDefault();
        private final String url;

        HttpClient4ClassicDriver(String url) {
            this.url = url;
        }

        @Override
        public void call() throws Exception {
            client.execute(new org.apache.http.client.methods.HttpGet(url), response -> {
                check(response.getStatusLine().getStatusCode(),
                        org.apache.http.util.EntityUtils.toString(response.getEntity()));
                return null;
            });
        }

        @Override
        public void close() throws Exception {
            client.close();
        }
    }

    static final class HttpClient4AsyncDriver implements Driver {
        private final org.apache.http.impl.nio.client.CloseableHttpAsyncClient client =
                org.apache.http.impl.nio.client.HttpAsyncClients.createDefault();
        private final String url;

        HttpClient4AsyncDriver(String url) {
            this.url = url;
            client.start();
        }

        @Override
        public void call() throws Exception {
            org.apache.http.HttpResponse response = client.execute(new org.apache.http.client.methods.HttpGet(url), null)
                    .get(30, TimeUnit.SECONDS);
            check(response.getStatusLine().getStatusCode(), org.apache.http.util.EntityUtils.toString(response.getEntity()));
        }

        @Override
        public void close() throws Exception {
            client.close();
        }
    }

    static final class JdkHttpDriver implements Driver {
        private final java.net.http.HttpClient client = java.net.http.HttpClient.newBuilder()
                .version(java.net.http.HttpClient.Version.HTTP_1_1).build();
        private final java.net.http.HttpRequest request;
        private final boolean async;

        JdkHttpDriver(String url, boolean async) {
            this.request = java.net.http.HttpRequest.newBuilder(java.net.URI.create(url)).build();
            this.async = async;
        }

        @Override
        public void call() throws Exception {
            java.net.http.HttpResponse<String> response = async
                    ? client.sendAsync(request, java.net.http.HttpResponse.BodyHandlers.ofString()).get(30, TimeUnit.SECONDS)
                    : client.send(request, java.net.http.HttpResponse.BodyHandlers.ofString());
            check(response.statusCode(), response.body());
        }

        @Override
        public void close() {
        }
    }
}
