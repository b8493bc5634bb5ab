package dev.retryagent.it.harness;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback service restarted in place, as a rolling restart takes down one instance: it answers every request
 * {@code 200} and closes the connection ({@code Connection: close}), and counts the requests of each
 * {@value #ID_HEADER}. The request numbered {@code restartAt} (in arrival order, from 1) takes it down: before that
 * request is answered, the listening socket is closed, so that connects to the port are refused, and the same port is
 * bound again {@code down} later. From the {@code endAfter}-th request received after that, every answer carries
 * {@code X-Stream-End: yes}, the caller's cue to end its stream: the stream then has crossed the outage, whatever
 * the machine's speed.
 *
 * <p>The outage begins on an event (that request's arrival), not on a clock; {@code down} is the scenario's length,
 * not a bound anything is checked against. One request per connection, one caller at a time: a connect accepted by
 * the kernel but not yet by this server when the socket closes would be reset rather than refused.
 */
public final class RollingServer implements AutoCloseable {
    public static final String ID_HEADER = "X-Request-Id";
    public static final String END_HEADER = "X-Stream-End";

    private final InetAddress address = InetAddress.getLoopbackAddress();
    private final int restartAt;
    private final Duration down;
    private final int endAfter;
    private final int port;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();

    private final Object lock = new Object();
    private final Map<String, Integer> receipts = new LinkedHashMap<>();
    private final List<Throwable> errors = new ArrayList<>();
    private int received;
    /** How many requests had been received when the port listened again; -1 until then. */
    private int receivedWhenBack = -1;
    private ServerSocket listener;
    private boolean closed;

    private RollingServer(int restartAt, Duration down, int endAfter) throws IOException {
        this.restartAt = restartAt;
        this.down = down;
        this.endAfter = endAfter;
        ServerSocket first = bind(0);
        this.port = first.getLocalPort();
        listen(first);
    }

    /** Listening on 127.0.0.1 and an ephemeral port; restarted as the class says. */
    public static RollingServer start(int restartAt, Duration down, int endAfter) {
        try {
            return new RollingServer(restartAt, down, endAfter);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the rolling server", e);
        }
    }

    public String url(String path) {
        return "http://" + address.getHostAddress() + ":" + port + path;
    }

    /** How many requests each {@value #ID_HEADER} has had so far, in order of first arrival. */
    public Map<String, Integer> receipts() {
        synchronized (lock) {
            return new LinkedHashMap<>(receipts);
        }
    }

    /** Whether the port listened again after the restart. */
    public boolean cameBack() {
        synchronized (lock) {
            return receivedWhenBack >= 0;
        }
    }

    /** The requests received since the port listened again. */
    public int receivedSinceBack() {
        synchronized (lock) {
            return receivedWhenBack < 0 ? 0 : received - receivedWhenBack;
        }
    }

    /** Failures inside the server (not a client going away): empty in a sound run. */
    public List<Throwable> errors() {
        synchronized (lock) {
            return new ArrayList<>(errors);
        }
    }

    @Override
    public void close() {
        ServerSocket current;
        synchronized (lock) {
            closed = true;
            current = listener;
        }
        closeQuietly(current);
        open.forEach(RollingServer::closeQuietly);
    }

    private ServerSocket bind(int at) throws IOException {
        ServerSocket socket = new ServerSocket();
        // The port's previous connections are in TIME_WAIT on this side (it closes first): without this the second
        // bind would fail.
        socket.setReuseAddress(true);
        try {
            socket.bind(new InetSocketAddress(address, at), 50);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
        return socket;
    }

    private void listen(ServerSocket socket) {
        synchronized (lock) {
            if (closed) {
                closeQuietly(socket);
                return;
            }
            listener = socket;
        }
        Thread acceptor = new Thread(() -> accept(socket), "rolling-server-accept-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void accept(ServerSocket socket) {
        while (true) {
            Socket connection;
            try {
                connection = socket.accept();
            } catch (IOException e) {
                return; // closed: taken down, or the server closed
            }
            open.add(connection);
            Thread handler = new Thread(() -> serve(connection), "rolling-server-conn-" + port);
            handler.setDaemon(true);
            handler.start();
        }
    }

    private void serve(Socket connection) {
        try (Socket c = connection) {
            InputStream in = new BufferedInputStream(c.getInputStream());
            String requestLine = ScriptedServer.readLine(in);
            if (requestLine == null) {
                return;
            }
            List<Map.Entry<String, String>> fields = new ArrayList<>();
            ScriptedServer.readHeaders(in, fields);
            HttpHeaders headers = new HttpHeaders(fields);
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            String transferEncoding = headers.get("Transfer-Encoding");
            if (transferEncoding != null && transferEncoding.toLowerCase(Locale.ROOT).contains("chunked")) {
                ScriptedServer.readChunked(in, body);
            } else if (headers.get("Content-Length") != null) {
                ScriptedServer.readFully(in, body, Long.parseLong(headers.get("Content-Length").trim()));
            }
            boolean takeDown;
            boolean end;
            synchronized (lock) {
                received++;
                receipts.merge(String.valueOf(headers.get(ID_HEADER)), 1, Integer::sum);
                takeDown = received == restartAt;
                end = receivedWhenBack >= 0 && received - receivedWhenBack >= endAfter;
            }
            if (takeDown) {
                takeDown();
            }
            OutputStream out = c.getOutputStream();
            out.write(("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n"
                    + (end ? END_HEADER + ": yes\r\n" : "") + "\r\nok").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            c.shutdownOutput();
        } catch (SocketException e) {
            // the client went away, or close() closed the socket
        } catch (IOException | RuntimeException e) {
            recordError(e);
        } finally {
            open.remove(connection);
        }
    }

    /** Closes the listening socket now, and binds the port again {@link #down} later on a thread of its own. */
    private void takeDown() {
        ServerSocket current;
        synchronized (lock) {
            current = listener;
        }
        closeQuietly(current);
        Socket hold = holdPort();
        Thread restart = new Thread(() -> comeBack(hold), "rolling-server-restart-" + port);
        restart.setDaemon(true);
        restart.start();
    }

    /**
     * A socket bound to the port and never listening, as {@link ScriptedServer#refusingPort()} makes: connects are
     * refused as with nothing bound, and no socket of this machine is given the port meanwhile. Null if the port
     * could not be held (it refuses all the same).
     */
    private Socket holdPort() {
        Socket hold = new Socket();
        try {
            hold.setReuseAddress(true);
            hold.bind(new InetSocketAddress(address, port));
            return hold;
        } catch (IOException e) {
            closeQuietly(hold);
            return null;
        }
    }

    private void comeBack(Socket hold) {
        try {
            try {
                Thread.sleep(down.toMillis());
            } finally {
                closeQuietly(hold);
            }
            ServerSocket again = bind(port);
            synchronized (lock) {
                receivedWhenBack = received;
            }
            listen(again);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            recordError(new IOException("cannot bind port " + port + " again", e));
        }
    }

    private void recordError(Throwable t) {
        synchronized (lock) {
            errors.add(t);
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception ignored) {
            // closing anyway
        }
    }
}
