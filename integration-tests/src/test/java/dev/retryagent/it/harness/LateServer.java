package dev.retryagent.it.harness;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A server that comes up late on a port that refused connections until then ({@link ScriptedServer} always takes
 * an ephemeral port of its own; {@link ScriptedServer#refusingPort()} gives one that refuses): answers every
 * request {@code 200 late}, closing the connection, and counts them. Requests without a body (GET) only.
 */
public final class LateServer implements AutoCloseable {
    private final ServerSocket socket;
    private final AtomicInteger requests = new AtomicInteger();

    private LateServer(int port) throws IOException {
        socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
        Thread acceptor = new Thread(this::serve, "late-server-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Starts listening on {@code port} now. */
    public static LateServer bind(int port) {
        ScriptedServer.releaseRefusingPort(port);
        try {
            return new LateServer(port);
        } catch (IOException e) {
            throw new IllegalStateException("cannot bind port " + port, e);
        }
    }

    /** The requests answered so far. */
    public int requestCount() {
        return requests.get();
    }

    private void serve() {
        while (!socket.isClosed()) {
            try (Socket s = socket.accept()) {
                InputStream in = s.getInputStream();
                StringBuilder head = new StringBuilder();
                int c;
                while ((c = in.read()) >= 0) {
                    head.append((char) c);
                    if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
                        break;
                    }
                }
                if (c < 0) {
                    continue;
                }
                requests.incrementAndGet();
                OutputStream out = s.getOutputStream();
                out.write("HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\nlate"
                        .getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            } catch (IOException e) {
                // closed, or the client went away
            }
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
