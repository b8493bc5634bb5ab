package dev.retryagent.it.harness;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A server that comes up late on a port that refused connections until then ({@link ScriptedServer} always takes
 * an ephemeral port of its own; {@link ScriptedServer#refusingPort()} gives one that refuses): answers every
 * request {@code 200 late}, closing the connection, and records each one's request line and body (sent with a
 * {@code Content-Length} or chunked).
 */
public final class LateServer implements AutoCloseable {
    private final ServerSocket socket;
    private final AtomicInteger requests = new AtomicInteger();
    private final List<String> received = new CopyOnWriteArrayList<>();

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

    /** Each request answered so far, as its request line, a blank line and its body. */
    public List<String> received() {
        return List.copyOf(received);
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
                String body = new String(body(in, head.toString()), StandardCharsets.ISO_8859_1);
                received.add(head.substring(0, head.indexOf("\r\n")) + "\n\n" + body);
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

    private static byte[] body(InputStream in, String head) throws IOException {
        String lower = head.toLowerCase(Locale.ROOT);
        Matcher length = Pattern.compile("\r\ncontent-length: *(\\d+)").matcher(lower);
        if (length.find()) {
            return in.readNBytes(Integer.parseInt(length.group(1)));
        }
        if (!lower.contains("\r\ntransfer-encoding: chunked")) {
            return new byte[0];
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            int size = Integer.parseInt(line(in).split(";")[0].trim(), 16);
            if (size == 0) {
                while (!line(in).isEmpty()) {
                    // trailers
                }
                return body.toByteArray();
            }
            body.write(in.readNBytes(size));
            line(in);
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
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
