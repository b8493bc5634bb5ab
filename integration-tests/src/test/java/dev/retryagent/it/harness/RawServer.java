package dev.retryagent.it.harness;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback server for the faults a {@code ScriptedServer} step cannot script: it reads each request head, counts
 * it, and answers with half a status line and a close ({@link Fault#PARTIAL_STATUS}), or with a body that trickles
 * in one byte at a time ({@link Fault#TRICKLE}), or whose whole body comes long after the head
 * ({@link Fault#LATE_BODY}).
 */
public final class RawServer implements AutoCloseable {
    public enum Fault { PARTIAL_STATUS, TRICKLE, LATE_BODY }

    public static final int TRICKLE_BYTES = 20;
    public static final long TRICKLE_GAP_MS = 40;
    /** {@link Fault#LATE_BODY}: the time between the response head and its body. */
    public static final long LATE_BODY_GAP_MS = 1200;

    private final ServerSocket socket;
    private final Fault fault;
    private final AtomicInteger requests = new AtomicInteger();

    public RawServer(Fault fault) throws IOException {
        this.fault = fault;
        this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "raw-server-" + fault);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + socket.getLocalPort() + path;
    }

    public int requests() {
        return requests.get();
    }

    private void accept() {
        while (!socket.isClosed()) {
            try {
                Socket connection = socket.accept();
                Thread handler = new Thread(() -> serve(connection), "raw-server-conn");
                handler.setDaemon(true);
                handler.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket connection) {
        try (Socket c = connection; InputStream in = c.getInputStream(); OutputStream out = c.getOutputStream()) {
            if (!readHead(in)) {
                return;
            }
            requests.incrementAndGet();
            if (fault == Fault.PARTIAL_STATUS) {
                out.write("HTTP/1.1 50".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return;
            }
            out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + TRICKLE_BYTES + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            if (fault == Fault.LATE_BODY) {
                Thread.sleep(LATE_BODY_GAP_MS);
                out.write("x".repeat(TRICKLE_BYTES).getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return;
            }
            for (int i = 0; i < TRICKLE_BYTES; i++) {
                Thread.sleep(TRICKLE_GAP_MS);
                out.write('x');
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // the client went away: nothing to answer
        }
    }

    /** Reads up to the blank line that ends a request head (these GETs have no body); false at end of stream. */
    private static boolean readHead(InputStream in) throws IOException {
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        for (int b; (b = in.read()) != -1; ) {
            matched = b == end[matched] ? matched + 1 : b == '\r' ? 1 : 0;
            if (matched == end.length) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
