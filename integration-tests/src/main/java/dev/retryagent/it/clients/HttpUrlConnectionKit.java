package dev.retryagent.it.clients;

import dev.retryagent.it.apps.Report;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.List;
import java.util.Map;

/**
 * The JDK's {@link HttpURLConnection}, a new one per call (its keep-alive cache reuses connections): blocking
 * only, it has no asynchronous API, so this kit is no {@link AsyncHttpKit}. A one-shot body is sent in
 * fixed-length streaming mode, which the connection cannot resend.
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
        if (request.hasBody()) {
            byte[] body = request.body();
            if (request.contentType() != null) {
                connection.setRequestProperty("Content-Type", request.contentType());
            }
            connection.setDoOutput(true);
            if (request.isOneShot()) {
                connection.setFixedLengthStreamingMode(body.length);
            }
            try (OutputStream out = connection.getOutputStream()) {
                out.write(body);
            }
        }
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

    @Override
    public void close() {
        // nothing held between calls
    }
}
