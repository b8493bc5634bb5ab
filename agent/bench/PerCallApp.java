import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The per-call cost of a client on a warm keep-alive loopback connection, for every path a call can take (a GET that
 * succeeds at once, GETs the policy will not retry, POST and PUT with and without a key, a body that cannot be
 * replayed, HTTPS, a followed redirect). It starts keep-alive HTTP/1.1 servers of its own on 127.0.0.1 (plain, and
 * TLS when given a key store) and warms the client up on every path in turn: for WARMUP_MS, then on until the JIT
 * compiler has been idle for two windows of 250 ms running, or WARMUP_MAX_MS have passed. On a loaded 2-core machine
 * the compiler needs several seconds to settle, longer with the agent, and a path measured before it has settled
 * pays for it. Then for each path, in the order given: calls for PATH_WARMUP_MS, then ROUNDS rounds of ROUND_MS each,
 * and it prints the median of the rounds' nanoseconds per call. No agent code: per-call.sh runs it with and without
 * -javaagent. Each client's code is in its own nested class, so that only the chosen client's jars are needed.
 *
 * <pre>java [-Dpercall.tls.keystore=P12 -Dpercall.tls.password=PW] -cp CLASSES:CLIENT-JARS PerCallApp CLIENT STYLE \
 *      WARMUP_MS WARMUP_MAX_MS PATH_WARMUP_MS ROUNDS ROUND_MS [PATHS]</pre>
 * CLIENT: okhttp, httpclient5, httpclient4, reactor-netty, huc, jdkhttp; STYLE: sync or async (httpclient5 and
 * httpclient4: classic or async; huc: sync only; jdkhttp: send or async; reactor-netty: sync, {@code block()}, or
 * async, subscribed). PATHS: comma-separated path names ({@link Path}), all by
 * default. Rounds are timed rather than counted, so that a client at 30 us a call and one at 600 us both get rounds
 * of the same length.
 *
 * <p>Prints {@code per-call warmup_ms=W jit_settled=true|false jit_ms=T} (T: the JIT compiler's time so far), then per path {@code per-call path=NAME ns=MEDIAN
 * min=MIN cpu_ns=MEAN thread_cpu_ns=MEAN alloc_b=MEAN rounds=R calls=N connections=C jit_ms=J} (per call: wall
 * time, process CPU time, CPU time of the Java threads, bytes allocated by the Java threads, the means over the
 * path's rounds; C the connections its calls opened, J the JIT compiler's time during its rounds), or
 * {@code per-call path=NAME skipped=REASON}. Exits non-zero at the first wrong answer (status, body, exception) and
 * when the servers did not see exactly the requests the calls should have sent: a client or an agent that resends a
 * request silently, or sends one to the wrong place, fails the run.
 */
public final class PerCallApp {
    /** The header the agent marks its attempts with by default; a request that already carries it is nested. */
    static final String MARKER = "Retry-Attempt";
    static final String KEY_HEADER = "Idempotency-Key";
    static final String KEY = "per-call-bench-key";
    static final String CONTENT_TYPE = "application/json";
    static final byte[] BODY = "{\"item\":42,\"name\":\"a small request body\",\"count\":3}".getBytes(StandardCharsets.ISO_8859_1);

    enum Body { NONE, BUFFERED, STREAM }

    /**
     * One path a call takes: what the call sends, and where. The policy file of per-call.sh selects the rule of the
     * {@code /once}, {@code /observe}, {@code /off} and {@code /bounded} paths by their first segment.
     */
    enum Path {
        GET("get", "GET", "/items/42", Body.NONE),
        GET_ONCE("get-once", "GET", "/once/items/42", Body.NONE),
        GET_OBSERVE("get-observe", "GET", "/observe/items/42", Body.NONE),
        GET_OFF("get-off", "GET", "/off/items/42", Body.NONE),
        GET_NESTED("get-nested", "GET", "/nested/items/42", Body.NONE),
        GET_BOUNDED("get-bounded", "GET", "/bounded/items/42", Body.NONE),
        POST("post", "POST", "/post/items", Body.BUFFERED),
        POST_KEY("post-key", "POST", "/post-key/items", Body.BUFFERED),
        PUT("put", "PUT", "/put/items/42", Body.BUFFERED),
        POST_STREAM("post-stream", "POST", "/stream/items", Body.STREAM),
        HTTPS("https", "GET", "/items/42", Body.NONE),
        REDIRECT("redirect", "GET", "/redirect/items/42", Body.NONE);

        final String label;
        final String method;
        final String target;
        final Body body;

        Path(String label, String method, String target, Body body) {
            this.label = label;
            this.method = method;
            this.target = target;
            this.body = body;
        }

        boolean nested() {
            return this == GET_NESTED;
        }

        boolean keyed() {
            return this == POST_KEY;
        }

        boolean tls() {
            return this == HTTPS;
        }

        static Path named(String label) {
            for (Path p : values()) {
                if (p.label.equals(label)) {
                    return p;
                }
            }
            throw new IllegalArgumentException("unknown path " + label);
        }
    }

    /** One call of one path: status 200 and body "ok" (after the redirect, if any), or an exception. */
    interface Call {
        void run() throws Exception;
    }

    interface Driver {
        /** The call of {@code path} to {@code url}; UnsupportedOperationException with the reason for a path the style cannot take. */
        Call call(Path path, String url) throws Exception;

        void close() throws Exception;
    }

    /** What the app is doing: named in the line of a failure. */
    static String phase = "start";

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Exception e) {
            e.printStackTrace();
            fail(e.toString());
        }
        System.exit(0);
    }

    static void run(String[] args) throws Exception {
        String client = args[0];
        String style = args[1];
        long warmupMillis = Long.parseLong(args[2]);
        long warmupMaxMillis = Long.parseLong(args[3]);
        long pathWarmupMillis = Long.parseLong(args[4]);
        int rounds = Integer.parseInt(args[5]);
        long roundNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[6]));
        List<Path> paths = new ArrayList<>();
        if (args.length > 7 && !args[7].equals("all")) {
            for (String name : args[7].split(",")) {
                paths.add(Path.named(name.trim()));
            }
        } else {
            paths.addAll(Arrays.asList(Path.values()));
        }

        String plain = "http://127.0.0.1:" + start(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), PLAIN);
        String keyStore = System.getProperty("percall.tls.keystore");
        String tls = keyStore == null ? null : "https://127.0.0.1:" + start(tlsServerSocket(keyStore), TLS);

        Driver driver = driver(client, style);
        List<Path> taken = new ArrayList<>();
        List<Call> calls = new ArrayList<>();
        for (Path p : paths) {
            if (p.tls() && tls == null) {
                System.out.println("per-call path=" + p.label + " skipped=no TLS key store (-Dpercall.tls.keystore)");
                continue;
            }
            try {
                calls.add(driver.call(p, (p.tls() ? tls : plain) + p.target));
                taken.add(p);
            } catch (UnsupportedOperationException e) {
                System.out.println("per-call path=" + p.label + " skipped=" + e.getMessage());
            }
        }

        // every path in turn first, so that the code the paths share is compiled before any path is measured
        Expected expected = new Expected();
        phase = "warm-up";
        long warmStart = System.nanoTime();
        long warmMin = warmStart + TimeUnit.MILLISECONDS.toNanos(warmupMillis);
        long warmMax = warmStart + TimeUnit.MILLISECONDS.toNanos(Math.max(warmupMillis, warmupMaxMillis));
        long windowEnd = warmMin;
        long jitAtWindowStart = jitMillis();
        int idleWindows = 0;
        boolean settled = false;
        while (true) {
            for (int i = 0; i < taken.size(); i++) {
                for (int n = 0; n < 5; n++) {
                    calls.get(i).run();
                }
                expected.add(taken.get(i), 5);
            }
            long now = System.nanoTime();
            if (now >= windowEnd) {
                long jit = jitMillis();
                idleWindows = jit >= 0 && jit - jitAtWindowStart <= JIT_IDLE_MILLIS ? idleWindows + 1 : 0;
                jitAtWindowStart = jit;
                windowEnd = now + JIT_WINDOW_NANOS;
                settled = idleWindows >= 2;
                if (settled || now >= warmMax || jit < 0) {
                    break;
                }
            }
        }
        expected.verify();
        System.out.println("per-call warmup_ms=" + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - warmStart) + " jit_settled=" + settled
                + " jit_ms=" + jitMillis());

        for (int i = 0; i < taken.size(); i++) {
            Path p = taken.get(i);
            Call call = calls.get(i);
            phase = p.label;
            int connectionsBefore = CONNECTIONS.get();
            long made = 0;
            long pathWarmEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pathWarmupMillis);
            do {
                call.run();
                made++;
            } while (System.nanoTime() < pathWarmEnd);
            long[] nsPerCall = new long[rounds];
            long measured = 0;
            long jitBefore = jitMillis();
            long cpuStart = processCpuNanos(); // over all rounds: the OS counts it in ticks of up to 10 ms
            java.util.Map<Long, Long> threadCpuStart = javaThreadsCpuNanos();
            java.util.Map<Long, Long> allocStart = javaThreadsAllocatedBytes();
            for (int r = 0; r < rounds; r++) {
                long start = System.nanoTime();
                long n = 0;
                long elapsed;
                do {
                    call.run();
                    n++;
                } while ((elapsed = System.nanoTime() - start) < roundNanos);
                nsPerCall[r] = elapsed / n;
                measured += n;
            }
            long jitDuring = jitMillis() - jitBefore;
            long cpuPerCall = (processCpuNanos() - cpuStart) / measured;
            long threadCpuPerCall = sumOfDeltas(threadCpuStart, javaThreadsCpuNanos()) / measured;
            long allocPerCall = sumOfDeltas(allocStart, javaThreadsAllocatedBytes()) / measured;
            expected.add(p, made + measured);
            expected.verify();
            long min = Arrays.stream(nsPerCall).min().getAsLong();
            System.out.println("per-call path=" + p.label + " ns=" + median(nsPerCall) + " min=" + min + " cpu_ns=" + cpuPerCall
                    + " thread_cpu_ns=" + threadCpuPerCall + " alloc_b=" + allocPerCall + " rounds=" + rounds
                    + " calls=" + measured + " connections=" + (CONNECTIONS.get() - connectionsBefore)
                    + " jit_ms=" + jitDuring);
        }
        driver.close();
    }

    /** A warm-up window in which the JIT compiler spent at most this long is idle (a late compilation now and then stays). */
    static final long JIT_IDLE_MILLIS = 2;
    static final long JIT_WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    /** The JIT compiler's total time so far, or -1 where the JVM does not tell. */
    static long jitMillis() {
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
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

    static Driver driver(String client, String style) {
        switch (client + ":" + style) {
            case "okhttp:sync":
                return new OkHttpDriver(false);
            case "okhttp:async":
                return new OkHttpDriver(true);
            case "httpclient5:classic":
            case "httpclient5:sync":
                return new HttpClient5ClassicDriver();
            case "httpclient5:async":
                return new HttpClient5AsyncDriver();
            case "httpclient4:classic":
            case "httpclient4:sync":
                return new HttpClient4ClassicDriver();
            case "httpclient4:async":
                return new HttpClient4AsyncDriver();
            case "huc:sync":
                return new HucDriver();
            case "jdkhttp:send":
            case "jdkhttp:sync":
                return new JdkHttpDriver(false);
            case "jdkhttp:async":
                return new JdkHttpDriver(true);
            case "reactor-netty:sync":
                return new ReactorNettyDriver(false);
            case "reactor-netty:async":
                return new ReactorNettyDriver(true);
            default:
                throw new IllegalArgumentException("unknown client/style " + client + ":" + style);
        }
    }

    static void check(int status, String body) {
        if (status != 200 || !"ok".equals(body)) {
            fail("status=" + status + " body=" + body);
        }
    }

    static void fail(String message) {
        System.out.println("failed: " + phase + ": " + message);
        System.exit(1);
    }

    // ---- the servers: one thread per connection, keep-alive; they count the requests of each path ----

    static final int PLAIN = 0;
    static final int TLS = 1;
    /** The request targets the servers answer, each with the method and body its path sends. */
    static final String[] TARGETS;
    static final byte[][] TARGET_BYTES;
    static final String[] TARGET_METHODS;
    static final Body[] TARGET_BODIES;
    static final String REDIRECT_TO = Path.GET.target;

    static {
        List<Path> distinct = new ArrayList<>();
        for (Path p : Path.values()) {
            boolean seen = false;
            for (Path d : distinct) {
                seen |= d.target.equals(p.target);
            }
            if (!seen) {
                distinct.add(p);
            }
        }
        int n = distinct.size();
        TARGETS = new String[n];
        TARGET_BYTES = new byte[n][];
        TARGET_METHODS = new String[n];
        TARGET_BODIES = new Body[n];
        for (int i = 0; i < n; i++) {
            TARGETS[i] = distinct.get(i).target;
            TARGET_BYTES[i] = TARGETS[i].getBytes(StandardCharsets.ISO_8859_1);
            TARGET_METHODS[i] = distinct.get(i).method;
            TARGET_BODIES[i] = distinct.get(i).body;
        }
    }

    static int targetIndex(String target) {
        for (int i = 0; i < TARGETS.length; i++) {
            if (TARGETS[i].equals(target)) {
                return i;
            }
        }
        throw new IllegalArgumentException(target);
    }

    /** Requests received per server and target ({@code server * TARGETS.length + target}); the last slot: unknown targets. */
    static final AtomicLongArray HITS = new AtomicLongArray(2 * TARGETS.length + 1);
    /** Connections accepted: a client that keeps its connection alive opens one per server. */
    static final AtomicInteger CONNECTIONS = new AtomicInteger();

    /** The requests the servers should have seen since the last {@link #verify}, from the calls made. */
    static final class Expected {
        private final long[] hits = new long[HITS.length()];

        void add(Path p, long calls) {
            hits[(p.tls() ? TLS : PLAIN) * TARGETS.length + targetIndex(p.target)] += calls;
            if (p == Path.REDIRECT) {
                hits[PLAIN * TARGETS.length + targetIndex(REDIRECT_TO)] += calls;
            }
        }

        /** Fails unless the servers saw exactly the expected requests; then starts counting again from zero. */
        void verify() {
            for (int i = 0; i < hits.length; i++) {
                long seen = HITS.getAndSet(i, 0);
                if (seen != hits[i]) {
                    String where = i == hits.length - 1 ? "unknown targets"
                            : (i / TARGETS.length == TLS ? "https " : "http ") + TARGETS[i % TARGETS.length];
                    fail("the server saw " + seen + " requests to " + where + ", the calls made " + hits[i]);
                }
                hits[i] = 0;
            }
        }
    }

    static int start(ServerSocket server, int kind) {
        Thread acceptor = new Thread(() -> accept(server, kind), kind == TLS ? "per-call-tls-server" : "per-call-server");
        acceptor.setDaemon(true);
        acceptor.start();
        return server.getLocalPort();
    }

    /** A TLS server socket on the loopback address with the key in the PKCS12 store {@code file}. */
    static ServerSocket tlsServerSocket(String file) throws Exception {
        char[] password = System.getProperty("percall.tls.password", "changeit").toCharArray();
        java.security.KeyStore keys = java.security.KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(file)) {
            keys.load(in, password);
        }
        javax.net.ssl.KeyManagerFactory kmf = javax.net.ssl.KeyManagerFactory.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, password);
        javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
        context.init(kmf.getKeyManagers(), null, null);
        return context.getServerSocketFactory().createServerSocket(0, 50, InetAddress.getLoopbackAddress());
    }

    private static void accept(ServerSocket server, int kind) {
        try {
            while (true) {
                Socket socket = server.accept();
                CONNECTIONS.incrementAndGet();
                socket.setTcpNoDelay(true);
                Thread t = new Thread(() -> serve(socket, kind), "per-call-connection");
                t.setDaemon(true);
                t.start();
            }
        } catch (Exception e) {
            e.printStackTrace();
        }
    }

    private static final byte[] OK =
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.ISO_8859_1);
    private static final byte[] FOUND =
            ("HTTP/1.1 302 Found\r\nLocation: " + REDIRECT_TO + "\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);

    private static void serve(Socket socket, int kind) {
        try (Socket s = socket) {
            RequestReader in = new RequestReader(s.getInputStream());
            OutputStream out = s.getOutputStream();
            while (in.next()) {
                int target = in.target;
                HITS.incrementAndGet(target < 0 ? HITS.length() - 1 : kind * TARGETS.length + target);
                String problem = target < 0 ? "unknown target" : in.problem(target);
                if (problem != null) {
                    byte[] reason = problem.getBytes(StandardCharsets.ISO_8859_1);
                    out.write(("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: " + reason.length + "\r\n\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
                    out.write(reason);
                } else {
                    out.write(TARGETS[target].equals(Path.REDIRECT.target) ? FOUND : OK);
                }
                out.flush();
            }
        } catch (Exception e) {
            // the client closed the connection
        }
    }

    /**
     * Reads the requests of one connection: the head, and the body by Content-Length or chunked. Allocates nothing
     * per request, so that the server adds the same few bytes per call with and without the agent.
     */
    static final class RequestReader {
        private final InputStream in;
        private byte[] buf = new byte[16384];
        private int pos;
        private int len;
        private final byte[] body = new byte[4 * BODY.length];
        private int bodyLength;
        private boolean bodyTooLong;

        int target;
        private boolean methodMatches;
        private long contentLength;
        private boolean chunked;
        private int markers;
        private boolean markerIsOne;

        RequestReader(InputStream in) {
            this.in = in;
        }

        /** Reads the next request; false at the end of the connection. */
        boolean next() throws java.io.IOException {
            int headLength = find(HEAD_END);
            if (headLength < 0) {
                return false;
            }
            parseHead(pos, pos + headLength);
            pos += headLength + HEAD_END.length;
            bodyLength = 0;
            bodyTooLong = false;
            if (chunked) {
                while (true) {
                    int line = find(CRLF);
                    if (line < 0) {
                        return false;
                    }
                    long size = hex(pos, pos + line);
                    pos += line + 2;
                    if (size == 0) {
                        int trailer;
                        while ((trailer = find(CRLF)) > 0) {
                            pos += trailer + 2;
                        }
                        if (trailer < 0) {
                            return false;
                        }
                        pos += 2;
                        break;
                    }
                    if (size < 0 || !readBody(size) || !skipCrlf()) {
                        return false;
                    }
                }
            } else if (contentLength > 0 && !readBody(contentLength)) {
                return false;
            }
            return true;
        }

        /** Why this request is not the one its target's path sends, or null. */
        String problem(int target) {
            if (!methodMatches) {
                return "not a " + TARGET_METHODS[target] + " request";
            }
            boolean bodySent = chunked || contentLength > 0;
            if (TARGET_BODIES[target] == Body.NONE) {
                if (bodySent) {
                    return "a body on a request without one";
                }
            } else if (bodyTooLong || bodyLength != BODY.length || !Arrays.equals(body, 0, bodyLength, BODY, 0, BODY.length)) {
                return "not the request body sent";
            }
            if (TARGETS[target].equals(Path.GET_NESTED.target) && (markers != 1 || !markerIsOne)) {
                return "the application's " + MARKER + ": 1 did not arrive as sent";
            }
            return null;
        }

        private void parseHead(int from, int to) {
            int sp1 = indexOf(from, to, (byte) ' ');
            int sp2 = sp1 < 0 ? -1 : indexOf(sp1 + 1, to, (byte) ' ');
            int query = sp2 < 0 ? -1 : indexOf(sp1 + 1, sp2, (byte) '?');
            int pathEnd = query < 0 ? sp2 : query;
            target = -1;
            methodMatches = false;
            if (sp2 > 0) {
                for (int t = 0; t < TARGETS.length; t++) {
                    if (regionEquals(sp1 + 1, pathEnd, TARGET_BYTES[t])) {
                        target = t;
                        methodMatches = regionEquals(from, sp1, TARGET_METHOD_BYTES[t]);
                        break;
                    }
                }
            }
            contentLength = 0;
            chunked = false;
            markers = 0;
            markerIsOne = false;
            int line = indexOf(from, to, (byte) '\n') + 1;
            while (line > 0 && line < to) {
                int end = indexOf(line, to, (byte) '\r');
                if (end < 0) {
                    end = to;
                }
                int colon = indexOf(line, end, (byte) ':');
                if (colon > 0) {
                    int value = colon + 1;
                    while (value < end && buf[value] == ' ') {
                        value++;
                    }
                    int valueEnd = end;
                    while (valueEnd > value && buf[valueEnd - 1] == ' ') {
                        valueEnd--;
                    }
                    if (nameIs(line, colon, CONTENT_LENGTH)) {
                        contentLength = decimal(value, valueEnd);
                    } else if (nameIs(line, colon, TRANSFER_ENCODING)) {
                        chunked = nameIs(value, valueEnd, CHUNKED);
                    } else if (nameIs(line, colon, MARKER_NAME)) {
                        markers++;
                        markerIsOne = valueEnd - value == 1 && buf[value] == '1';
                    }
                }
                line = end + 2;
            }
        }

        private boolean readBody(long size) throws java.io.IOException {
            while (size > 0) {
                if (pos == len && !fill()) {
                    return false;
                }
                int n = (int) Math.min(size, len - pos);
                int room = body.length - bodyLength;
                if (n > room) {
                    bodyTooLong = true;
                }
                System.arraycopy(buf, pos, body, bodyLength, Math.min(n, room));
                bodyLength += Math.min(n, room);
                pos += n;
                size -= n;
            }
            return true;
        }

        private boolean skipCrlf() throws java.io.IOException {
            int line = find(CRLF);
            if (line < 0) {
                return false;
            }
            pos += line + 2;
            return line == 0;
        }

        /** The offset from pos of the first {@code pattern} in the stream, reading more as needed; -1 at the end. */
        private int find(byte[] pattern) throws java.io.IOException {
            int from = 0;
            while (true) {
                for (int i = pos + from; i + pattern.length <= len; i++) {
                    if (regionEquals(i, i + pattern.length, pattern)) {
                        return i - pos;
                    }
                }
                from = Math.max(0, len - pos - pattern.length + 1);
                if (!fill()) {
                    return -1;
                }
            }
        }

        /** Reads more bytes after len, first moving what is left to the front; false at the end of the stream. */
        private boolean fill() throws java.io.IOException {
            if (pos > 0) {
                System.arraycopy(buf, pos, buf, 0, len - pos);
                len -= pos;
                pos = 0;
            }
            if (len == buf.length) {
                if (buf.length >= 1 << 20) {
                    return false; // a head larger than this is not a request of this app
                }
                buf = Arrays.copyOf(buf, buf.length * 2);
            }
            int n = in.read(buf, len, buf.length - len);
            if (n < 0) {
                return false;
            }
            len += n;
            return true;
        }

        private int indexOf(int from, int to, byte b) {
            for (int i = from; i < to; i++) {
                if (buf[i] == b) {
                    return i;
                }
            }
            return -1;
        }

        private boolean regionEquals(int from, int to, byte[] bytes) {
            if (to - from != bytes.length) {
                return false;
            }
            for (int i = 0; i < bytes.length; i++) {
                if (buf[from + i] != bytes[i]) {
                    return false;
                }
            }
            return true;
        }

        /** Whether buf[from, to) is {@code lowerCase}, ignoring the case of ASCII letters. */
        private boolean nameIs(int from, int to, byte[] lowerCase) {
            if (to - from != lowerCase.length) {
                return false;
            }
            for (int i = 0; i < lowerCase.length; i++) {
                byte b = buf[from + i];
                if ((b >= 'A' && b <= 'Z' ? b + 32 : b) != lowerCase[i]) {
                    return false;
                }
            }
            return true;
        }

        private long decimal(int from, int to) {
            long v = 0;
            for (int i = from; i < to; i++) {
                if (buf[i] < '0' || buf[i] > '9') {
                    return -1;
                }
                v = v * 10 + (buf[i] - '0');
            }
            return v;
        }

        /** A chunk size (hex digits, a chunk extension after ';' ignored); -1 if there is none. */
        private long hex(int from, int to) {
            long v = 0;
            int digits = 0;
            for (int i = from; i < to && buf[i] != ';'; i++) {
                int d = Character.digit(buf[i], 16);
                if (d < 0) {
                    return -1;
                }
                v = v * 16 + d;
                digits++;
            }
            return digits == 0 ? -1 : v;
        }

        private static final byte[] HEAD_END = {'\r', '\n', '\r', '\n'};
        private static final byte[] CRLF = {'\r', '\n'};
        private static final byte[] CONTENT_LENGTH = bytes("content-length");
        private static final byte[] TRANSFER_ENCODING = bytes("transfer-encoding");
        private static final byte[] CHUNKED = bytes("chunked");
        private static final byte[] MARKER_NAME = bytes(MARKER.toLowerCase(java.util.Locale.ROOT));
        private static final byte[][] TARGET_METHOD_BYTES = new byte[TARGETS.length][];

        static {
            for (int t = 0; t < TARGETS.length; t++) {
                TARGET_METHOD_BYTES[t] = bytes(TARGET_METHODS[t]);
            }
        }

        private static byte[] bytes(String s) {
            return s.getBytes(StandardCharsets.ISO_8859_1);
        }
    }

    /** A request body that the client can send once only: it reads a stream of its own. */
    static InputStream bodyStream() {
        return new ByteArrayInputStream(BODY);
    }

    // ---- the clients ----

    static final class OkHttpDriver implements Driver {
        private static final okhttp3.MediaType JSON = okhttp3.MediaType.get(CONTENT_TYPE);
        private final okhttp3.OkHttpClient client = new okhttp3.OkHttpClient();
        private final boolean async;

        OkHttpDriver(boolean async) {
            this.async = async;
        }

        @Override
        public Call call(Path path, String url) {
            okhttp3.Request.Builder builder = new okhttp3.Request.Builder().url(url);
            if (path.nested()) {
                builder.header(MARKER, "1");
            }
            if (path.keyed()) {
                builder.header(KEY_HEADER, KEY);
            }
            if (path.body == Body.STREAM) {
                okhttp3.Request base = builder.build();
                return () -> execute(base.newBuilder().method(path.method, new OneShotBody()).build());
            }
            if (path.body == Body.BUFFERED) {
                builder.method(path.method, okhttp3.RequestBody.create(BODY, JSON));
            }
            okhttp3.Request request = builder.build();
            return () -> execute(request);
        }

        private void execute(okhttp3.Request request) throws Exception {
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

        /** A body of unknown length (sent chunked) that OkHttp must not send twice. */
        static final class OneShotBody extends okhttp3.RequestBody {
            private final InputStream stream = bodyStream();

            @Override
            public okhttp3.MediaType contentType() {
                return JSON;
            }

            @Override
            public boolean isOneShot() {
                return true;
            }

            @Override
            public void writeTo(okio.BufferedSink sink) throws java.io.IOException {
                byte[] chunk = new byte[256];
                for (int n; (n = stream.read(chunk)) >= 0; ) {
                    sink.write(chunk, 0, n);
                }
            }
        }

        @Override
        public void close() {
            client.dispatcher().executorService().shutdown();
            client.connectionPool().evictAll();
        }
    }

    static final class HttpClient5ClassicDriver implements Driver {
        private static final org.apache.hc.core5.http.ContentType JSON = org.apache.hc.core5.http.ContentType.APPLICATION_JSON;
        private final org.apache.hc.client5.http.impl.classic.CloseableHttpClient client =
                org.apache.hc.client5.http.impl.classic.HttpClients.createDefault();

        @Override
        public Call call(Path path, String url) {
            return () -> {
                org.apache.hc.client5.http.classic.methods.HttpUriRequestBase request = path.method.equals("POST")
                        ? new org.apache.hc.client5.http.classic.methods.HttpPost(url)
                        : path.method.equals("PUT") ? new org.apache.hc.client5.http.classic.methods.HttpPut(url)
                        : new org.apache.hc.client5.http.classic.methods.HttpGet(url);
                if (path.nested()) {
                    request.setHeader(MARKER, "1");
                }
                if (path.keyed()) {
                    request.setHeader(KEY_HEADER, KEY);
                }
                if (path.body == Body.BUFFERED) {
                    request.setEntity(new org.apache.hc.core5.http.io.entity.ByteArrayEntity(BODY, JSON));
                } else if (path.body == Body.STREAM) {
                    request.setEntity(new org.apache.hc.core5.http.io.entity.InputStreamEntity(bodyStream(), -1, JSON));
                }
                client.execute(request, response -> {
                    check(response.getCode(), org.apache.hc.core5.http.io.entity.EntityUtils.toString(response.getEntity()));
                    return null;
                });
            };
        }

        @Override
        public void close() throws Exception {
            client.close();
        }
    }

    static final class HttpClient5AsyncDriver implements Driver {
        private static final org.apache.hc.core5.http.ContentType JSON = org.apache.hc.core5.http.ContentType.APPLICATION_JSON;
        private final org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient client =
                org.apache.hc.client5.http.impl.async.HttpAsyncClients.createDefault();

        HttpClient5AsyncDriver() {
            client.start();
        }

        @Override
        public Call call(Path path, String url) {
            if (path.body == Body.STREAM) {
                java.net.URI uri = java.net.URI.create(url);
                return () -> {
                    org.apache.hc.core5.http.message.BasicHttpRequest request =
                            new org.apache.hc.core5.http.message.BasicHttpRequest(path.method, uri);
                    request.setHeader("Content-Type", CONTENT_TYPE);
                    check(client.execute(new org.apache.hc.core5.http.nio.support.BasicRequestProducer(request, new OneShotProducer()),
                            org.apache.hc.client5.http.async.methods.SimpleResponseConsumer.create(), null).get(30, TimeUnit.SECONDS));
                };
            }
            return () -> {
                org.apache.hc.client5.http.async.methods.SimpleRequestBuilder builder = path.method.equals("POST")
                        ? org.apache.hc.client5.http.async.methods.SimpleRequestBuilder.post(url)
                        : path.method.equals("PUT") ? org.apache.hc.client5.http.async.methods.SimpleRequestBuilder.put(url)
                        : org.apache.hc.client5.http.async.methods.SimpleRequestBuilder.get(url);
                if (path.nested()) {
                    builder.addHeader(MARKER, "1");
                }
                if (path.keyed()) {
                    builder.addHeader(KEY_HEADER, KEY);
                }
                if (path.body == Body.BUFFERED) {
                    builder.setBody(BODY, JSON);
                }
                check(client.execute(builder.build(), null).get(30, TimeUnit.SECONDS));
            };
        }

        private static void check(org.apache.hc.client5.http.async.methods.SimpleHttpResponse response) {
            PerCallApp.check(response.getCode(), response.getBodyText());
        }

        /** A body of unknown length (sent chunked) from a stream read once: not repeatable. */
        static final class OneShotProducer extends org.apache.hc.core5.http.nio.entity.AbstractBinAsyncEntityProducer {
            private final java.nio.ByteBuffer data = java.nio.ByteBuffer.wrap(BODY);

            OneShotProducer() {
                super(0, JSON);
            }

            @Override
            protected int availableData() {
                return data.remaining();
            }

            @Override
            protected void produceData(org.apache.hc.core5.http.nio.StreamChannel<java.nio.ByteBuffer> channel) throws java.io.IOException {
                channel.write(data);
                if (!data.hasRemaining()) {
                    channel.endStream();
                }
            }

            @Override
            public boolean isRepeatable() {
                return false;
            }

            @Override
            public void failed(Exception cause) {
            }
        }

        @Override
        public void close() throws Exception {
            client.close();
        }
    }

    static final class HucDriver implements Driver {
        private final byte[] buf = new byte[256];

        @Override
        public Call call(Path path, String url) throws Exception {
            URL u = new URL(url);
            return () -> {
                HttpURLConnection conn = (HttpURLConnection) u.openConnection();
                if (path.body != Body.NONE) {
                    conn.setRequestMethod(path.method);
                    conn.setDoOutput(true);
                    conn.setRequestProperty("Content-Type", CONTENT_TYPE);
                }
                if (path.nested()) {
                    conn.setRequestProperty(MARKER, "1");
                }
                if (path.keyed()) {
                    conn.setRequestProperty(KEY_HEADER, KEY);
                }
                if (path.body == Body.STREAM) {
                    conn.setFixedLengthStreamingMode(BODY.length);
                }
                if (path.body != Body.NONE) {
                    try (OutputStream out = conn.getOutputStream()) {
                        out.write(BODY);
                    }
                }
                int status = conn.getResponseCode();
                ByteArrayOutputStream body = new ByteArrayOutputStream();
                // read to the end and closed: the connection is kept alive
                try (InputStream in = status < 400 ? conn.getInputStream() : conn.getErrorStream()) {
                    for (int n; (n = in.read(buf)) >= 0; ) {
                        body.write(buf, 0, n);
                    }
                }
                check(status, new String(body.toByteArray(), StandardCharsets.ISO_8859_1));
            };
        }

        @Override
        public void close() {
        }
    }

    static final class HttpClient4ClassicDriver implements Driver {
        private final org.apache.http.impl.client.CloseableHttpClient client =
                org.apache.http.impl.client.HttpClients.createDefault();

        @Override
        public Call call(Path path, String url) {
            return () -> client.execute(HttpClient4AsyncDriver.request(path, url), response -> {
                check(response.getStatusLine().getStatusCode(), org.apache.http.util.EntityUtils.toString(response.getEntity()));
                return null;
            });
        }

        @Override
        public void close() throws Exception {
            client.close();
        }
    }

    static final class HttpClient4AsyncDriver implements Driver {
        private static final org.apache.http.entity.ContentType JSON = org.apache.http.entity.ContentType.APPLICATION_JSON;
        private final org.apache.http.impl.nio.client.CloseableHttpAsyncClient client =
                org.apache.http.impl.nio.client.HttpAsyncClients.createDefault();

        HttpClient4AsyncDriver() {
            client.start();
        }

        /** The request of {@code path}, for HttpClient 4 classic and HttpAsyncClient 4 alike. */
        static org.apache.http.client.methods.HttpUriRequest request(Path path, String url) {
            org.apache.http.client.methods.HttpRequestBase request;
            if (path.body == Body.NONE) {
                request = new org.apache.http.client.methods.HttpGet(url);
            } else {
                org.apache.http.client.methods.HttpEntityEnclosingRequestBase withBody = path.method.equals("PUT")
                        ? new org.apache.http.client.methods.HttpPut(url) : new org.apache.http.client.methods.HttpPost(url);
                withBody.setEntity(path.body == Body.BUFFERED ? new org.apache.http.entity.ByteArrayEntity(BODY, JSON)
                        : new org.apache.http.entity.InputStreamEntity(bodyStream(), -1, JSON));
                request = withBody;
            }
            if (path.nested()) {
                request.setHeader(MARKER, "1");
            }
            if (path.keyed()) {
                request.setHeader(KEY_HEADER, KEY);
            }
            return request;
        }

        @Override
        public Call call(Path path, String url) {
            return () -> {
                org.apache.http.HttpResponse response = client.execute(request(path, url), null).get(30, TimeUnit.SECONDS);
                check(response.getStatusLine().getStatusCode(), org.apache.http.util.EntityUtils.toString(response.getEntity()));
            };
        }

        @Override
        public void close() throws Exception {
            client.close();
        }
    }

    static final class JdkHttpDriver implements Driver {
        private final java.net.http.HttpClient client = java.net.http.HttpClient.newBuilder()
                .version(java.net.http.HttpClient.Version.HTTP_1_1)
                .followRedirects(java.net.http.HttpClient.Redirect.NORMAL)
                .build();
        private final boolean async;

        JdkHttpDriver(boolean async) {
            this.async = async;
        }

        @Override
        public Call call(Path path, String url) {
            java.net.http.HttpRequest.Builder builder = java.net.http.HttpRequest.newBuilder(java.net.URI.create(url));
            if (path.nested()) {
                builder.header(MARKER, "1");
            }
            if (path.keyed()) {
                builder.header(KEY_HEADER, KEY);
            }
            if (path.body != Body.NONE) {
                builder.header("Content-Type", CONTENT_TYPE);
            }
            if (path.body == Body.STREAM) {
                return () -> {
                    InputStream stream = bodyStream();
                    send(builder.copy().method(path.method, java.net.http.HttpRequest.BodyPublishers.ofInputStream(() -> stream)).build());
                };
            }
            if (path.body == Body.BUFFERED) {
                builder.method(path.method, java.net.http.HttpRequest.BodyPublishers.ofByteArray(BODY));
            }
            java.net.http.HttpRequest request = builder.build();
            return () -> send(request);
        }

        private void send(java.net.http.HttpRequest request) throws Exception {
            java.net.http.HttpResponse<String> response = async
                    ? client.sendAsync(request, java.net.http.HttpResponse.BodyHandlers.ofString()).get(30, TimeUnit.SECONDS)
                    : client.send(request, java.net.http.HttpResponse.BodyHandlers.ofString());
            check(response.statusCode(), response.body());
        }

        @Override
        public void close() {
        }
    }

    /**
     * Reactor Netty's HttpClient (1.0 to 1.3; only API that 1.0 has): one {@code HttpClient.create()}, the shared
     * default pool and event loops, from which each path derives its client once (its headers, TLS, redirects) and
     * assembles its request on every call, as an application does: {@code connect()}, which the agent hooks, runs per
     * call. {@code sync} blocks on the call's Mono; {@code async} subscribes and waits on a future.
     */
    static final class ReactorNettyDriver implements Driver {
        private final reactor.netty.http.client.HttpClient client = reactor.netty.http.client.HttpClient.create();
        private final boolean async;

        ReactorNettyDriver(boolean async) {
            this.async = async;
        }

        @Override
        public Call call(Path path, String url) throws Exception {
            reactor.netty.http.client.HttpClient derived = client.headers(h -> {
                if (path.nested()) {
                    h.set(MARKER, "1");
                }
                if (path.keyed()) {
                    h.set(KEY_HEADER, KEY);
                }
                if (path.body != Body.NONE) {
                    h.set("Content-Type", CONTENT_TYPE);
                }
            });
            if (path.tls()) {
                io.netty.handler.ssl.SslContext tls = io.netty.handler.ssl.SslContextBuilder.forClient()
                        .trustManager(defaultTrustManagers()).build();
                derived = derived.secure(spec -> spec.sslContext(tls));
            }
            if (path == Path.REDIRECT) {
                derived = derived.followRedirect(true);
            }
            io.netty.handler.codec.http.HttpMethod method = io.netty.handler.codec.http.HttpMethod.valueOf(path.method);
            reactor.netty.http.client.HttpClient pathClient = derived;
            if (path.body == Body.NONE) {
                return () -> execute(pathClient.request(method).uri(url));
            }
            if (path.body == Body.BUFFERED) {
                // a cold Mono: each subscription gets a buffer of its own, sent with a Content-Length
                return () -> execute(pathClient.request(method).uri(url)
                        .send(reactor.core.publisher.Mono.fromSupplier(() -> io.netty.buffer.Unpooled.wrappedBuffer(BODY))));
            }
            return () -> execute(pathClient.request(method).uri(url).send(oneShotBody()));
        }

        /** A body of unknown length (sent chunked) from a unicast sink: a second subscriber is refused. */
        private static org.reactivestreams.Publisher<io.netty.buffer.ByteBuf> oneShotBody() {
            reactor.core.publisher.Sinks.Many<byte[]> once = reactor.core.publisher.Sinks.many().unicast().onBackpressureBuffer();
            once.tryEmitNext(BODY);
            once.tryEmitComplete();
            return once.asFlux().map(io.netty.buffer.Unpooled::wrappedBuffer);
        }

        /** The trust managers of the JDK's default trust store (javax.net.ssl.trustStore), as the other clients use. */
        private static javax.net.ssl.TrustManagerFactory defaultTrustManagers() throws Exception {
            javax.net.ssl.TrustManagerFactory tmf =
                    javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
            tmf.init((java.security.KeyStore) null);
            return tmf;
        }

        private void execute(reactor.netty.http.client.HttpClient.ResponseReceiver<?> request) throws Exception {
            reactor.core.publisher.Mono<Reply> reply = request.responseSingle((response, body) -> body.asString(StandardCharsets.ISO_8859_1)
                    .defaultIfEmpty("").map(text -> new Reply(response.status().code(), text)));
            Reply r;
            if (async) {
                CompletableFuture<Reply> done = new CompletableFuture<>();
                reply.subscribe(done::complete, done::completeExceptionally);
                r = done.get(30, TimeUnit.SECONDS);
            } else {
                r = reply.block();
            }
            check(r.status, r.body);
        }

        static final class Reply {
            final int status;
            final String body;

            Reply(int status, String body) {
                this.status = status;
                this.body = body;
            }
        }

        @Override
        public void close() {
            reactor.netty.http.HttpResources.disposeLoopsAndConnections();
        }
    }
}
