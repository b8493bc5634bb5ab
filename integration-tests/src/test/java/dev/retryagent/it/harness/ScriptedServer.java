package dev.retryagent.it.harness;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.AbstractMap;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * A loopback HTTP/1.1 server on a raw {@link ServerSocket} that records every request and answers from a
 * script.
 *
 * <p>Requests take script steps in the order they arrive (complete request received, or, for a step that answers
 * in place of {@code 100 Continue}, its head); when one step is
 * left it answers every further request; with no step at all the answer is {@code 200 ok}. Steps can be
 * added while the server runs ({@link #enqueue}). Connections are kept alive unless the client asks
 * otherwise or a step closes them. Thread-safe.
 *
 * <pre>{@code
 * try (ScriptedServer server = ScriptedServer.start(Step.status(503), Step.ok())) {
 *     ... call server.url("/items") ...
 *     List<RecordedRequest> seen = server.awaitRequests(2, Duration.ofSeconds(5));
 * }
 * }</pre>
 */
public final class ScriptedServer implements AutoCloseable {

    private static final int MAX_LINE = 64 * 1024;
    private static final int MAX_HEADERS = 200;
    private static final Step DEFAULT_STEP = Step.ok();

    private final ServerSocket serverSocket;
    private final SSLContext tls;
    /** The TLS versions the server accepts; null: its context's defaults. */
    private final String[] tlsProtocols;
    private final Thread acceptor;
    private final Set<Socket> openSockets = ConcurrentHashMap.newKeySet();
    private final Set<Thread> handlers = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connections = new AtomicInteger();
    /** Released when the server has closed its first connection. */
    private final CountDownLatch firstClose = new CountDownLatch(1);

    private final Object lock = new Object();
    private final Deque<Step> script = new ArrayDeque<>();
    private Step defaultStep = DEFAULT_STEP;
    private final List<RecordedRequest> recorded = new ArrayList<>();
    private final List<Throwable> serverErrors = new ArrayList<>();
    private volatile boolean closed;

    private ScriptedServer(InetAddress address, SSLContext tls, String[] tlsProtocols, Step... steps)
            throws IOException {
        this.tls = tls;
        this.tlsProtocols = tlsProtocols;
        this.script.addAll(Arrays.asList(steps));
        this.serverSocket = new ServerSocket();
        this.serverSocket.setReuseAddress(true);
        this.serverSocket.bind(new InetSocketAddress(address, 0), 50);
        this.acceptor = new Thread(this::acceptLoop, "scripted-server-accept-" + serverSocket.getLocalPort());
        this.acceptor.setDaemon(true);
        this.acceptor.start();
    }

    /** A plain-HTTP server on 127.0.0.1 and an ephemeral port, answering with {@code steps}. */
    public static ScriptedServer start(Step... steps) {
        return startAt(InetAddress.getLoopbackAddress(), steps);
    }

    /** A plain-HTTP server on {@code address} (a loopback one, such as 127.0.0.2) and an ephemeral port. */
    public static ScriptedServer startAt(InetAddress address, Step... steps) {
        try {
            return new ScriptedServer(address, null, null, steps);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the scripted server", e);
        }
    }

    /** An HTTPS server presenting the self-signed certificate of {@code material}. */
    public static ScriptedServer startTls(TlsMaterial material, Step... steps) {
        return startTls(material, null, steps);
    }

    /** An HTTPS server as {@link #startTls(TlsMaterial, Step...)} that accepts only the TLS versions {@code protocols}. */
    public static ScriptedServer startTls(TlsMaterial material, List<String> protocols, Step... steps) {
        try {
            return new ScriptedServer(InetAddress.getLoopbackAddress(), material.serverContext(),
                    protocols == null ? null : protocols.toArray(new String[0]), steps);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the scripted TLS server", e);
        }
    }

    /**
     * A loopback port on which nothing listens (bound once, then closed): connecting to it is refused.
     * Another process could take it in between, which is unlikely enough for tests.
     */
    public static int refusingPort() {
        // Held by a bound socket that never listens: connections to it are refused, and no server started later in
        // this JVM can be given the same port (a port merely found free could be, and the "refused" call would then
        // reach that server). LateServer releases the hold when it binds the port itself.
        try {
            Socket hold = new Socket();
            hold.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            REFUSING.put(hold.getLocalPort(), hold);
            return hold.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Ends the hold {@link #refusingPort()} keeps on {@code port}, so that a server may bind it. */
    static void releaseRefusingPort(int port) {
        Socket hold = REFUSING.remove(port);
        if (hold != null) {
            try {
                hold.close();
            } catch (IOException ignored) {
                // closing an unconnected socket
            }
        }
    }

    private static final java.util.concurrent.ConcurrentHashMap<Integer, Socket> REFUSING =
            new java.util.concurrent.ConcurrentHashMap<>();

    // ---- script ----

    /** Appends steps to the script. */
    public ScriptedServer enqueue(Step... steps) {
        synchronized (lock) {
            script.addAll(Arrays.asList(steps));
        }
        return this;
    }

    /** Replaces the steps not consumed yet. */
    public ScriptedServer script(Step... steps) {
        synchronized (lock) {
            script.clear();
            script.addAll(Arrays.asList(steps));
        }
        return this;
    }

    /** The answer once the script is empty (default {@code 200 ok}). */
    public ScriptedServer defaultStep(Step step) {
        synchronized (lock) {
            defaultStep = Objects.requireNonNull(step);
        }
        return this;
    }

    // ---- addresses ----

    public String host() {
        return serverSocket.getInetAddress().getHostAddress();
    }

    public int port() {
        return serverSocket.getLocalPort();
    }

    public String scheme() {
        return tls == null ? "http" : "https";
    }

    /** {@code http://127.0.0.1:PORT} + path (a path not starting with '/' gets one). */
    public String url(String path) {
        return scheme() + "://" + host() + ":" + port() + (path.startsWith("/") ? "" : "/") + path;
    }

    public URI uri(String path) {
        return URI.create(url(path));
    }

    // ---- what was received ----

    /** A snapshot of the recorded requests, in arrival order. */
    public List<RecordedRequest> requests() {
        synchronized (lock) {
            return Collections.unmodifiableList(new ArrayList<>(recorded));
        }
    }

    public int requestCount() {
        synchronized (lock) {
            return recorded.size();
        }
    }

    /**
     * Checks what a bounded pool does with the requests this server received: never more than {@code poolSize}
     * connections in use at the same time (a connection is in use from its first request to its last, in the order
     * they arrived; a pool may close one and open another over a long run), and at least 90% of the requests on a
     * reused connection (a response kept or closed instead of handed back would take its connection with it).
     */
    public void assertPoolBound(int poolSize) {
        List<RecordedRequest> seen = requests();
        Map<Integer, Integer> first = new HashMap<>();
        Map<Integer, Integer> last = new HashMap<>();
        for (RecordedRequest request : seen) {
            first.putIfAbsent(request.connectionId(), request.sequence());
            last.put(request.connectionId(), request.sequence());
        }
        int most = 0;
        for (RecordedRequest request : seen) {
            int inUse = 0;
            for (Map.Entry<Integer, Integer> connection : first.entrySet()) {
                if (connection.getValue() <= request.sequence() && last.get(connection.getKey()) >= request.sequence()) {
                    inUse++;
                }
            }
            most = Math.max(most, inUse);
        }
        if (most > poolSize) {
            throw new AssertionError("at most " + poolSize + " connections in use at once, saw " + most);
        }
        long reused = seen.stream().filter(r -> r.indexOnConnection() > 0).count();
        if (reused < seen.size() * 9L / 10) {
            throw new AssertionError("connections handed back to the pool: only " + reused + " of " + seen.size()
                    + " requests on a reused connection");
        }
    }

    /** How many TCP connections have been accepted. */
    /** Released once this server has closed its first connection (both its sockets closed). */
    public CountDownLatch firstConnectionClosed() {
        return firstClose;
    }

    public int connectionsAccepted() {
        return connections.get();
    }

    /**
     * Waits until at least {@code n} requests have been recorded and returns them all.
     *
     * @throws AssertionError if fewer arrived within {@code timeout}
     */
    public List<RecordedRequest> awaitRequests(int n, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (recorded.size() < n) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("expected at least " + n + " requests within " + timeout.toMillis()
                            + " ms, the server received " + recorded.size() + ": " + recorded);
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted while waiting for requests", e);
                }
            }
            return Collections.unmodifiableList(new ArrayList<>(recorded));
        }
    }

    /** Unexpected errors inside the server (not client disconnects); empty in a healthy run. */
    public List<Throwable> serverErrors() {
        synchronized (lock) {
            return new ArrayList<>(serverErrors);
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            serverSocket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Socket s : openSockets) {
            closeQuietly(s);
        }
        for (Thread t : handlers) {
            t.interrupt();
        }
        joinQuietly(acceptor);
        for (Thread t : handlers) {
            joinQuietly(t);
        }
    }

    @Override
    public String toString() {
        return "ScriptedServer[" + url("") + "]";
    }

    // ---- server internals ----

    private void acceptLoop() {
        while (!closed) {
            Socket raw;
            try {
                raw = serverSocket.accept();
            } catch (IOException e) {
                if (!closed) {
                    recordError(e);
                }
                return;
            }
            int id = connections.incrementAndGet();
            openSockets.add(raw);
            Thread handler = new Thread(() -> serve(raw, id), "scripted-server-conn-" + id);
            handler.setDaemon(true);
            handlers.add(handler);
            if (closed) {
                closeQuietly(raw);
            }
            handler.start();
        }
    }

    private void serve(Socket raw, int connectionId) {
        Socket io = raw;
        try {
            raw.setTcpNoDelay(true);
            if (tls != null) {
                SSLSocket ssl = (SSLSocket) tls.getSocketFactory().createSocket(raw,
                        raw.getInetAddress().getHostAddress(), raw.getPort(), true);
                ssl.setUseClientMode(false);
                if (tlsProtocols != null) {
                    ssl.setEnabledProtocols(tlsProtocols);
                }
                io = ssl;
                openSockets.add(ssl);
            }
            InputStream in = new BufferedInputStream(io.getInputStream());
            OutputStream out = io.getOutputStream();
            int index = 0;
            while (!closed) {
                boolean keepOpen = handleOne(raw, io, in, out, connectionId, index++);
                if (!keepOpen) {
                    break;
                }
            }
        } catch (SocketException | EOFException e) {
            // the client went away, or close() closed the socket
        } catch (IOException e) {
            if (!closed && !(e instanceof javax.net.ssl.SSLException)) {
                recordError(e);
            }
        } catch (InterruptedException e) {
            // close() interrupted a delay
        } catch (RuntimeException | Error e) {
            recordError(e);
        } finally {
            closeQuietly(io);
            closeQuietly(raw);
            openSockets.remove(io);
            openSockets.remove(raw);
            handlers.remove(Thread.currentThread());
            firstClose.countDown();
        }
    }

    /** Reads and answers one request; returns whether the connection stays open. */
    private boolean handleOne(Socket raw, Socket io, InputStream in, OutputStream out, int connectionId, int index)
            throws IOException, InterruptedException {
        String requestLine = readLine(in);
        while (requestLine != null && requestLine.isEmpty()) {
            requestLine = readLine(in); // tolerate stray CRLF between requests
        }
        if (requestLine == null) {
            return false; // clean end of the connection
        }
        long arrivalNanos = System.nanoTime();
        Instant arrivedAt = Instant.now();
        String[] parts = requestLine.split(" ", 3);
        if (parts.length != 3) {
            throw new IOException("malformed request line: " + requestLine);
        }
        String method = parts[0];
        String target = parts[1];
        String version = parts[2];

        List<Map.Entry<String, String>> fields = new ArrayList<>();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        boolean chunked = false;
        boolean complete = false;
        try {
            readHeaders(in, fields);
            HttpHeaders headers = new HttpHeaders(fields);
            if ("100-continue".equalsIgnoreCase(headers.get("Expect"))) {
                Step refusing = takeIfRefusesContinue(sequence -> new RecordedRequest(sequence, connectionId, index,
                        arrivalNanos, arrivedAt, method, target, version, headers, new byte[0], false, true));
                if (refusing != null) {
                    if (refusing.action == Step.Action.REFUSE_CONTINUE) {
                        writeResponse(out, refusing, method, true);
                    }
                    finWithoutResponse(raw);
                    return false;
                }
                out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            }
            String transferEncoding = headers.get("Transfer-Encoding");
            if (transferEncoding != null && transferEncoding.toLowerCase(Locale.ROOT).contains("chunked")) {
                chunked = true;
                readChunked(in, body);
            } else if (headers.get("Content-Length") != null) {
                long length = Long.parseLong(headers.get("Content-Length").trim());
                readFully(in, body, length);
            }
            complete = true;
        } catch (EOFException | SocketException e) {
            // recorded below as incomplete
        }

        HttpHeaders headers = new HttpHeaders(fields);
        Step step;
        synchronized (lock) {
            step = takeStep();
            recorded.add(new RecordedRequest(recorded.size(), connectionId, index, arrivalNanos, arrivedAt, method,
                    target, version, headers, body.toByteArray(), chunked, complete));
            lock.notifyAll();
        }
        if (!complete) {
            return false;
        }

        if (!step.delay.isZero()) {
            Thread.sleep(step.delay.toMillis(), step.delay.toNanosPart() % 1_000_000);
        }
        if (step.gate != null && !step.gate.await(30, TimeUnit.SECONDS)) {
            throw new IOException("the step's gate was not released in 30 s");
        }

        switch (step.action) {
            case DROP:
            case DROP_BEFORE_CONTINUE:
                finWithoutResponse(raw);
                return false;
            case RAW:
                out.write(step.body);
                out.flush();
                finWithoutResponse(raw);
                return false;
            case RESET_MID_BODY:
            case CLOSE_MID_BODY:
                writePartial(out, step);
                if (step.action == Step.Action.RESET_MID_BODY) {
                    raw.setSoLinger(true, 0);
                    raw.close();
                } else {
                    finWithoutResponse(raw);
                }
                return false;
            case REFUSE_CONTINUE:
                writeResponse(out, step, method, true);
                finWithoutResponse(raw);
                return false;
            case RESPOND:
            default:
                boolean clientCloses = "close".equalsIgnoreCase(headers.get("Connection"))
                        || ("HTTP/1.0".equals(version) && !"keep-alive".equalsIgnoreCase(headers.get("Connection")));
                writeResponse(out, step, method, clientCloses);
                if (clientCloses || step.closeAfterResponse || hasConnectionClose(step)) {
                    finWithoutResponse(raw);
                    return false;
                }
                return true;
        }
    }

    /** The step the next request takes: the script's head, or the default once the script is empty. */
    private Step peekStep() {
        return script.isEmpty() ? defaultStep : script.peek();
    }

    /** {@link #peekStep}, taken off the script unless it is the last step (which answers every request after). */
    private Step takeStep() {
        return script.size() > 1 ? script.poll() : peekStep();
    }

    /**
     * The next step, taken and {@code head} recorded, if it answers the head of a request that expects
     * {@code 100 Continue} ({@link Step.Action#REFUSE_CONTINUE}, {@link Step.Action#DROP_BEFORE_CONTINUE});
     * otherwise null, and the script is left as it was.
     */
    private Step takeIfRefusesContinue(IntFunction<RecordedRequest> head) {
        synchronized (lock) {
            Step.Action action = peekStep().action;
            if (action != Step.Action.REFUSE_CONTINUE && action != Step.Action.DROP_BEFORE_CONTINUE) {
                return null;
            }
            Step step = takeStep();
            recorded.add(head.apply(recorded.size()));
            lock.notifyAll();
            return step;
        }
    }

    private static boolean hasConnectionClose(Step step) {
        for (Map.Entry<String, String> h : step.headers) {
            if (h.getKey().equalsIgnoreCase("Connection") && h.getValue().equalsIgnoreCase("close")) {
                return true;
            }
        }
        return false;
    }

    private static boolean bodyAllowed(int status, String method) {
        return !"HEAD".equalsIgnoreCase(method) && status >= 200 && status != 204 && status != 304;
    }

    private static StringBuilder head(Step step) {
        StringBuilder head = new StringBuilder();
        head.append("HTTP/1.1 ").append(step.status).append(' ')
                .append(step.reason != null ? step.reason : Step.reasonPhrase(step.status)).append("\r\n");
        for (Map.Entry<String, String> h : step.headers) {
            head.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n");
        }
        return head;
    }

    private static boolean stepSets(Step step, String name) {
        for (Map.Entry<String, String> h : step.headers) {
            if (h.getKey().equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    private static void writeResponse(OutputStream out, Step step, String method, boolean announceClose)
            throws IOException {
        StringBuilder head = head(step);
        boolean withBody = bodyAllowed(step.status, method);
        boolean framingGiven = stepSets(step, "Content-Length") || stepSets(step, "Transfer-Encoding");
        if (!framingGiven && (step.status >= 200 && step.status != 204 && step.status != 304)) {
            if (step.chunkedResponse) {
                head.append("Transfer-Encoding: chunked\r\n");
            } else {
                head.append("Content-Length: ").append(step.body.length).append("\r\n");
            }
        }
        if (announceClose && !stepSets(step, "Connection")) {
            head.append("Connection: close\r\n");
        }
        head.append("\r\n");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        if (withBody) {
            if (step.chunkedResponse && !framingGiven) {
                if (step.body.length > 0) {
                    bytes.write((Integer.toHexString(step.body.length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    bytes.write(step.body);
                    bytes.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
                }
                bytes.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            } else {
                bytes.write(step.body);
            }
        }
        out.write(bytes.toByteArray());
        out.flush();
    }

    private static void writePartial(OutputStream out, Step step) throws IOException {
        StringBuilder head = head(step);
        if (!stepSets(step, "Content-Length")) {
            head.append("Content-Length: ").append(step.body.length).append("\r\n");
        }
        head.append("\r\n");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        bytes.write(step.body, 0, Math.min(step.bodyBytesBeforeCut, step.body.length));
        out.write(bytes.toByteArray());
        out.flush();
    }

    /** FIN, no TLS close_notify, no response bytes. */
    private static void finWithoutResponse(Socket raw) throws IOException {
        try {
            raw.shutdownOutput();
        } finally {
            raw.close();
        }
    }

    // The request readers below are RollingServer's too.

    static void readHeaders(InputStream in, List<Map.Entry<String, String>> fields) throws IOException {
        while (true) {
            String line = readLine(in);
            if (line == null) {
                throw new EOFException("connection ended inside the request head");
            }
            if (line.isEmpty()) {
                return;
            }
            if (fields.size() >= MAX_HEADERS) {
                throw new IOException("too many header fields");
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new IOException("malformed header line: " + line);
            }
            fields.add(new AbstractMap.SimpleImmutableEntry<>(line.substring(0, colon).trim(),
                    line.substring(colon + 1).trim()));
        }
    }

    static void readChunked(InputStream in, ByteArrayOutputStream body) throws IOException {
        while (true) {
            String sizeLine = readLine(in);
            if (sizeLine == null) {
                throw new EOFException("connection ended inside a chunked body");
            }
            int semicolon = sizeLine.indexOf(';');
            String hex = (semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim();
            long size = Long.parseLong(hex, 16);
            if (size == 0) {
                // trailers, up to the empty line
                String trailer;
                do {
                    trailer = readLine(in);
                    if (trailer == null) {
                        throw new EOFException("connection ended inside chunked trailers");
                    }
                } while (!trailer.isEmpty());
                return;
            }
            readFully(in, body, size);
            String crlf = readLine(in);
            if (crlf == null) {
                throw new EOFException("connection ended after a chunk");
            }
        }
    }

    static void readFully(InputStream in, ByteArrayOutputStream body, long length) throws IOException {
        byte[] buffer = new byte[8192];
        long left = length;
        while (left > 0) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (n < 0) {
                throw new EOFException("connection ended after " + (length - left) + " of " + length + " body bytes");
            }
            body.write(buffer, 0, n);
            left -= n;
        }
    }

    /** A line without its CRLF (or bare LF), ISO-8859-1; null at end of stream before any byte. */
    static String readLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        boolean any = false;
        while ((c = in.read()) >= 0) {
            any = true;
            if (c == '\n') {
                int len = sb.length();
                if (len > 0 && sb.charAt(len - 1) == '\r') {
                    sb.setLength(len - 1);
                }
                return sb.toString();
            }
            if (sb.length() >= MAX_LINE) {
                throw new IOException("line longer than " + MAX_LINE);
            }
            sb.append((char) c);
        }
        if (!any) {
            return null;
        }
        throw new EOFException("connection ended inside a line");
    }

    private void recordError(Throwable t) {
        synchronized (lock) {
            serverErrors.add(t);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    private static void joinQuietly(Thread t) {
        try {
            t.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
