package dev.retryagent.it.harness;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

/**
 * One request as the {@link ScriptedServer} received it.
 *
 * <p>{@code arrivalNanos} is {@link System#nanoTime()} when the request line had been read (the start
 * of the request); compare two requests with {@link #millisAfter(RecordedRequest)}.
 */
public final class RecordedRequest {

    private final int sequence;
    private final int connectionId;
    private final int indexOnConnection;
    private final long arrivalNanos;
    private final Instant arrivedAt;
    private final String method;
    private final String target;
    private final String version;
    private final HttpHeaders headers;
    private final byte[] body;
    private final boolean chunked;
    private final boolean complete;

    RecordedRequest(int sequence, int connectionId, int indexOnConnection, long arrivalNanos,
            Instant arrivedAt, String method, String target, String version, HttpHeaders headers,
            byte[] body, boolean chunked, boolean complete) {
        this.sequence = sequence;
        this.connectionId = connectionId;
        this.indexOnConnection = indexOnConnection;
        this.arrivalNanos = arrivalNanos;
        this.arrivedAt = arrivedAt;
        this.method = method;
        this.target = target;
        this.version = version;
        this.headers = headers;
        this.body = body;
        this.chunked = chunked;
        this.complete = complete;
    }

    /** 0 for the first request the server recorded, then 1, 2 ...; also the index of the script step that answered it. */
    public int sequence() { return sequence; }

    /** Which TCP connection carried it: 1 for the first connection accepted, then 2, 3 ... */
    public int connectionId() { return connectionId; }

    /** 0 for the first request on its connection; above 0 means a reused keep-alive connection. */
    public int indexOnConnection() { return indexOnConnection; }

    public long arrivalNanos() { return arrivalNanos; }

    public Instant arrivedAt() { return arrivedAt; }

    public String method() { return method; }

    /** The request target as sent: path and query. */
    public String target() { return target; }

    public String path() {
        int q = target.indexOf('?');
        return q < 0 ? target : target.substring(0, q);
    }

    /** The query without '?', or null. */
    public String query() {
        int q = target.indexOf('?');
        return q < 0 ? null : target.substring(q + 1);
    }

    /** "HTTP/1.1" or "HTTP/1.0". */
    public String version() { return version; }

    public HttpHeaders headers() { return headers; }

    /** Shortcut for {@code headers().get(name)}. */
    public String header(String name) { return headers.get(name); }

    /** The body bytes, decoded from chunked transfer coding if it was chunked. */
    public byte[] body() { return body.clone(); }

    public String bodyUtf8() { return new String(body, StandardCharsets.UTF_8); }

    /** Whether the body came with {@code Transfer-Encoding: chunked}. */
    public boolean chunked() { return chunked; }

    /** False if the connection ended before the whole request (head and body) had arrived. */
    public boolean complete() { return complete; }

    /** The time from {@code earlier}'s arrival to this one's. */
    public Duration timeAfter(RecordedRequest earlier) {
        return Duration.ofNanos(arrivalNanos - earlier.arrivalNanos);
    }

    public long millisAfter(RecordedRequest earlier) {
        return timeAfter(earlier).toMillis();
    }

    @Override
    public String toString() {
        return "#" + sequence + " conn=" + connectionId + "/" + indexOnConnection + " " + method + " "
                + target + " bodyBytes=" + body.length + (chunked ? " chunked" : "")
                + (complete ? "" : " INCOMPLETE");
    }
}
