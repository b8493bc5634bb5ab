package dev.retryagent.it.clients;

import dev.retryagent.it.apps.Report;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The JDK's {@link HttpURLConnection}, a new one per call (its keep-alive cache reuses connections): blocking
 * only, it has no asynchronous API, so this kit is no {@link AsyncHttpKit}. A one-shot body is sent in
 * fixed-length streaming mode, which the connection cannot resend. For the applications that test the connection's
 * own API: its streaming modes ({@link #write}) and every way to read a response ({@link #firstRead},
 * {@link #everyRead}).
 */
public final class HttpUrlConnectionKit implements HttpKit {
    private final int connectTimeoutMs;
    private final int readTimeoutMs;

    /** The JDK's defaults: no timeouts. */
    public HttpUrlConnectionKit() {
        this(0, 0);
    }

    public HttpUrlConnectionKit(int connectTimeoutMs, int readTimeoutMs) {
        this.connectTimeoutMs = connectTimeoutMs;
        this.readTimeoutMs = readTimeoutMs;
    }

    @Override
    public KitReply call(KitRequest request) throws IOException {
        HttpURLConnection connection = open(request, connectTimeoutMs, readTimeoutMs);
        write(connection, request, request.isOneShot() ? "fixed" : "none", 0);
        int status = connection.getResponseCode();
        KitReply.Builder reply = new KitReply.Builder(status);
        for (Map.Entry<String, List<String>> h : connection.getHeaderFields().entrySet()) {
            for (String value : h.getValue()) {
                reply.header(h.getKey(), value);
            }
        }
        InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream();
        if (in == null) {
            return reply.body(null);
        }
        try (InputStream body = in) {
            return reply.body(Report.readAll(body));
        }
    }

    /**
     * A connection for {@code request}'s method, URL and headers (not yet connected); a timeout of 0 is the JDK's
     * default (none).
     */
    public static HttpURLConnection open(KitRequest request, int connectTimeoutMs, int readTimeoutMs)
            throws IOException {
        HttpURLConnection connection = (HttpURLConnection) new URL(request.url()).openConnection();
        if (connectTimeoutMs > 0) {
            connection.setConnectTimeout(connectTimeoutMs);
        }
        if (readTimeoutMs > 0) {
            connection.setReadTimeout(readTimeoutMs);
        }
        connection.setRequestMethod(request.method());
        for (Map.Entry<String, String> h : request.headers()) {
            connection.addRequestProperty(h.getKey(), h.getValue());
        }
        return connection;
    }

    /**
     * Writes {@code request}'s body, if it has one, with its {@code Content-Type}, in the streaming mode
     * {@code streaming} says: {@code none} (buffered by the connection, which can resend it), {@code fixed}
     * (fixed-length streaming) or {@code chunked} (chunks of {@code chunkSize} bytes); neither streaming mode can be
     * resent.
     */
    public static void write(HttpURLConnection connection, KitRequest request, String streaming, int chunkSize)
            throws IOException {
        if (!request.hasBody()) {
            return;
        }
        byte[] body = request.body();
        connection.setDoOutput(true);
        if (request.contentType() != null) {
            connection.setRequestProperty("Content-Type", request.contentType());
        }
        switch (streaming) {
            case "fixed":
                connection.setFixedLengthStreamingMode(body.length);
                break;
            case "chunked":
                connection.setChunkedStreamingMode(chunkSize);
                break;
            default:
                break;
        }
        try (OutputStream out = connection.getOutputStream()) {
            out.write(body);
        }
    }

    /**
     * The read that sends the request, as {@code read} says, and what it gave, named by it: {@code code}
     * ({@code getResponseCode}, the default), {@code stream} ({@code getInputStream} read to the end, or
     * {@code stream-threw:CLASS}), {@code message}, {@code header} ({@code X-Attempt}), {@code length},
     * {@code fields} ({@code X-Attempt}'s values).
     */
    public static String firstRead(HttpURLConnection connection, String read) throws IOException {
        switch (read) {
            case "stream":
                try (InputStream in = connection.getInputStream()) {
                    return "stream:" + Report.text(in);
                } catch (IOException e) {
                    return "stream-threw:" + e.getClass().getName();
                }
            case "message":
                return "message:" + connection.getResponseMessage();
            case "header":
                return "header:" + connection.getHeaderField("X-Attempt");
            case "length":
                return "length:" + connection.getContentLength();
            case "fields":
                return "fields:" + connection.getHeaderFields().get("X-Attempt");
            default:
                return "code:" + connection.getResponseCode();
        }
    }

    /**
     * After {@link #firstRead} gave {@code first}, every read path, as key and value pairs: {@code status},
     * {@code message}, {@code length}, {@code h.Retry-After}, {@code h.X-Attempt}, {@code stream} ({@code ok} or
     * what {@code getInputStream} threw for a status from 400) and {@code streamMessage}, {@code body} (the input
     * stream's below 400, the error stream's from 400, or what the first read read), {@code errorStream}
     * ({@code null} or {@code set}), {@code fields} (how many header fields).
     */
    public static List<Object> everyRead(HttpURLConnection connection, String first) throws IOException {
        int status = connection.getResponseCode();
        String stream = "ok";
        String streamMessage = null;
        if (status >= 400) {
            try {
                connection.getInputStream().close();
            } catch (IOException e) {
                stream = e.getClass().getName();
                streamMessage = e.getMessage();
            }
        }
        InputStream errorStream = connection.getErrorStream();
        String body = first.startsWith("stream:") ? first.substring("stream:".length())
                : Report.text(status < 400 ? connection.getInputStream() : errorStream);
        return Arrays.<Object>asList("status", status, "message", connection.getResponseMessage(),
                "length", connection.getContentLength(), "h.Retry-After", connection.getHeaderField("Retry-After"),
                "h.X-Attempt", connection.getHeaderField("X-Attempt"), "stream", stream, "streamMessage", streamMessage,
                "body", body, "errorStream", errorStream == null ? "null" : "set",
                "fields", connection.getHeaderFields().size());
    }

    @Override
    public void close() {
        // nothing held between calls
    }
}
