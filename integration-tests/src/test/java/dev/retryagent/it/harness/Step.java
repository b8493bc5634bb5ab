package dev.retryagent.it.harness;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.Objects;

/**
 * How the {@link ScriptedServer} answers one request. Immutable: every modifier returns a new step.
 *
 * <pre>{@code
 * Step.status(503).retryAfterSeconds(1)
 * Step.status(200).body("done").delay(Duration.ofMillis(300))
 * Step.dropAfterRequest()
 * Step.resetMidBody()
 * }</pre>
 */
public final class Step {

    /** What happens after the request has been read (and after {@link #delay}). */
    public enum Action {
        /** A complete response. */
        RESPOND,
        /** Close the connection (FIN) without a byte of response. */
        DROP,
        /** Status line, headers with the full Content-Length, part of the body, then RST. */
        RESET_MID_BODY,
        /** Status line, headers with the full Content-Length, part of the body, then FIN (a truncated body). */
        CLOSE_MID_BODY,
        /** The step's body bytes as they are, no status line or headers of the server's own, then FIN. */
        RAW,
        /**
         * A request that carries {@code Expect: 100-continue} gets the response in place of {@code 100 Continue},
         * at once, then FIN: its body is never read (it is recorded without one). Any other request gets the
         * response, then FIN.
         */
        REFUSE_CONTINUE,
        /** As {@link #REFUSE_CONTINUE}, but FIN without a byte of response. */
        DROP_BEFORE_CONTINUE
    }

    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

    final Action action;
    final int status;
    final String reason;
    final List<Map.Entry<String, String>> headers;
    final byte[] body;
    final Duration delay;
    final int bodyBytesBeforeCut;
    final boolean chunkedResponse;
    final boolean closeAfterResponse;
    /** Released before the server answers (null: at once), for an answer that must follow an event elsewhere. */
    final CountDownLatch gate;

    private Step(Action action, int status, String reason, List<Map.Entry<String, String>> headers, byte[] body,
            Duration delay, int bodyBytesBeforeCut, boolean chunkedResponse, boolean closeAfterResponse) {
        this(action, status, reason, headers, body, delay, bodyBytesBeforeCut, chunkedResponse, closeAfterResponse, null);
    }

    private Step(Action action, int status, String reason, List<Map.Entry<String, String>> headers, byte[] body,
            Duration delay, int bodyBytesBeforeCut, boolean chunkedResponse, boolean closeAfterResponse,
            CountDownLatch gate) {
        this.action = action;
        this.status = status;
        this.reason = reason;
        this.headers = Collections.unmodifiableList(headers);
        this.body = body;
        this.delay = delay;
        this.bodyBytesBeforeCut = bodyBytesBeforeCut;
        this.chunkedResponse = chunkedResponse;
        this.closeAfterResponse = closeAfterResponse;
        this.gate = gate;
    }

    // ---- factories ----

    /** A response with this status and an empty body. */
    public static Step status(int code) {
        if (code < 100 || code > 999) {
            throw new IllegalArgumentException("status " + code);
        }
        return new Step(Action.RESPOND, code, null, new ArrayList<>(), new byte[0], Duration.ZERO, 0, false, false);
    }

    /** 200 with body "ok". */
    public static Step ok() {
        return status(200).body("ok");
    }

    /** Read the whole request, then close the connection with no response at all. */
    public static Step dropAfterRequest() {
        return status(200).withAction(Action.DROP);
    }

    /**
     * 200 with a 64-byte body of which only the first 16 bytes are sent before the connection is reset
     * (RST, via {@code setSoLinger(true, 0)} and close). Change the body or the cut with
     * {@link #body(String)} and {@link #cutAfter(int)}.
     */
    public static Step resetMidBody() {
        return status(200).body("0123456789abcdef".repeat(4)).withAction(Action.RESET_MID_BODY).cutAfter(16);
    }

    /** Like {@link #resetMidBody()} but the connection ends with a normal FIN: the body is just truncated. */
    public static Step closeMidBody() {
        return resetMidBody().withAction(Action.CLOSE_MID_BODY);
    }

    /**
     * Bytes that are not HTTP at all, then FIN: twelve lines of text where a status line belongs, more than the
     * ten unparsable lines HttpClient 5 skips before it gives up ({@code Http1Config.maxEmptyLineCount}), and more
     * than the 8 bytes the JDK reads to tell HTTP from not. A peer out of step with the client (a stale keep-alive
     * connection whose server went on writing) looks like this.
     */
    public static Step garbage() {
        return raw("this is not HTTP, garbage line\r\n".repeat(12));
    }

    /** A status line no client can read (no status code), one header, then FIN. */
    public static Step malformedStatusLine() {
        return raw("HTTP/1.1 OK200\r\nContent-Length: 0\r\n\r\n");
    }

    /** The first bytes of a status line, then FIN: a connection closed in the middle of its answer's first line. */
    public static Step partialStatusLine() {
        return raw("HTTP/1.1 20");
    }

    /** Exactly these bytes (ISO-8859-1) as the answer, then FIN. */
    public static Step raw(String bytes) {
        return status(200).body(bytes.getBytes(StandardCharsets.ISO_8859_1)).withAction(Action.RAW);
    }

    /**
     * This status, then FIN, in place of {@code 100 Continue}: a request that expects it never sends its body
     * ({@link Action#REFUSE_CONTINUE}).
     */
    public static Step refuseContinue(int code) {
        return status(code).withAction(Action.REFUSE_CONTINUE);
    }

    /** FIN in place of {@code 100 Continue} ({@link Action#DROP_BEFORE_CONTINUE}). */
    public static Step dropBeforeContinue() {
        return status(200).withAction(Action.DROP_BEFORE_CONTINUE);
    }

    // ---- modifiers ----

    /** Adds a response header (repeat the call for several values). */
    public Step header(String name, String value) {
        List<Map.Entry<String, String>> copy = new ArrayList<>(headers);
        copy.add(new AbstractMap.SimpleImmutableEntry<>(name, value));
        return new Step(action, status, reason, copy, body, delay, bodyBytesBeforeCut, chunkedResponse, closeAfterResponse);
    }

    /** This response with another status (its headers and body kept). */
    public Step withStatus(int code) {
        return new Step(action, code, reason, headers, body, delay, bodyBytesBeforeCut, chunkedResponse, closeAfterResponse);
    }

    /** {@code Retry-After: n} (delay-seconds). */
    public Step retryAfterSeconds(long seconds) {
        return header("Retry-After", Long.toString(seconds));
    }

    /** {@code Retry-After} as an HTTP-date (RFC 1123, GMT). */
    public Step retryAfterDate(Instant when) {
        return header("Retry-After", HTTP_DATE.format(when));
    }

    /** A raw {@code Retry-After} value, e.g. malformed or negative ones. */
    public Step retryAfterRaw(String value) {
        return header("Retry-After", value);
    }

    public Step body(String text) {
        return body(text.getBytes(StandardCharsets.UTF_8));
    }

    public Step body(byte[] bytes) {
        return new Step(action, status, reason, headers, bytes.clone(), delay, bodyBytesBeforeCut, chunkedResponse, closeAfterResponse);
    }

    /** The reason phrase of the status line (default: the standard one for the code). */
    public Step reason(String phrase) {
        return new Step(action, status, phrase, headers, body, delay, bodyBytesBeforeCut, chunkedResponse, closeAfterResponse);
    }

    /** Wait this long after the whole request has arrived before answering (or dropping, or resetting). */
    public Step delay(Duration wait) {
        Objects.requireNonNull(wait);
        return new Step(action, status, reason, headers, body, wait, bodyBytesBeforeCut, chunkedResponse, closeAfterResponse);
    }

    public Step delayMillis(long millis) {
        return delay(Duration.ofMillis(millis));
    }

    /** For {@link #resetMidBody()} and {@link #closeMidBody()}: how many body bytes go out before the cut. */
    public Step cutAfter(int bodyBytes) {
        return new Step(action, status, reason, headers, body, delay, bodyBytes, chunkedResponse, closeAfterResponse);
    }

    /** Send the body with {@code Transfer-Encoding: chunked} instead of Content-Length. */
    public Step chunked() {
        return new Step(action, status, reason, headers, body, delay, bodyBytesBeforeCut, true, closeAfterResponse);
    }

    /**
     * After a complete response, close the connection without announcing it ({@code Connection: close} is not
     * sent): the client's pool keeps a connection the server has already closed (a stale keep-alive connection).
     */
    public Step closeAfterResponse() {
        return new Step(action, status, reason, headers, body, delay, bodyBytesBeforeCut, chunkedResponse, true);
    }

    /**
     * The server answers only once {@code latch} is released (it waits at most 30 s, then fails the connection): a
     * client's next call can then wait, through this answer, for something that happens on another server.
     */
    public Step after(CountDownLatch latch) {
        return new Step(action, status, reason, headers, body, delay, bodyBytesBeforeCut, chunkedResponse,
                closeAfterResponse, latch);
    }

    private Step withAction(Action newAction) {
        return new Step(newAction, status, reason, headers, body, delay, bodyBytesBeforeCut, chunkedResponse, closeAfterResponse);
    }

    public Action action() { return action; }

    public int statusCode() { return status; }

    @Override
    public String toString() {
        return action + " " + status + (headers.isEmpty() ? "" : " " + headers) + " bodyBytes=" + body.length
                + (delay.isZero() ? "" : " delay=" + delay.toMillis() + "ms");
    }

    static String reasonPhrase(int code) {
        switch (code) {
            case 100: return "Continue";
            case 200: return "OK";
            case 201: return "Created";
            case 202: return "Accepted";
            case 204: return "No Content";
            case 301: return "Moved Permanently";
            case 302: return "Found";
            case 304: return "Not Modified";
            case 400: return "Bad Request";
            case 401: return "Unauthorized";
            case 403: return "Forbidden";
            case 404: return "Not Found";
            case 408: return "Request Timeout";
            case 409: return "Conflict";
            case 422: return "Unprocessable Content";
            case 429: return "Too Many Requests";
            case 500: return "Internal Server Error";
            case 501: return "Not Implemented";
            case 502: return "Bad Gateway";
            case 503: return "Service Unavailable";
            case 504: return "Gateway Timeout";
            default: return "Status " + code;
        }
    }
}
