package dev.retryagent.agent.bootloader.httpurlconnection;

import static dev.retryagent.agent.bootloader.httpurlconnection.UncheckedReflection.read;
import static dev.retryagent.agent.bootloader.httpurlconnection.UncheckedReflection.readInt;
import static dev.retryagent.agent.bootloader.httpurlconnection.UncheckedReflection.readBoolean;
import static dev.retryagent.agent.bootloader.httpurlconnection.UncheckedReflection.write;
import static dev.retryagent.agent.bootloader.httpurlconnection.UncheckedReflection.writeBoolean;
import static dev.retryagent.agent.bootloader.httpurlconnection.UncheckedReflection.invoke;

import dev.retryagent.agent.bootloader.runtime.Closeables;
import java.io.Closeable;
import java.io.OutputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.HttpURLConnection;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The private state of the JDK's {@code sun.net.www.protocol.http.HttpURLConnection} that a re-issue of the
 * request reads and resets, through reflection. {@code java.base} opens {@code sun.net.www.protocol.http},
 * {@code sun.net.www} and {@code java.net} to the bootstrap loader's unnamed module, where this class lives,
 * at start-up ({@code HttpUrlConnectionInstrumentation.prepare}): no command-line flag.
 *
 * <p>Checked against the sources of Java 17 and Java 25 (the same names there; Java 8 and 11 have them too,
 * with {@code synchronized} methods instead of {@code connectionLock}). A required field or method that is
 * missing, or that cannot be made accessible, disables the HttpURLConnection retries for the JVM: logged
 * once, every call then runs exactly as the JDK runs it ({@link #get} answers null). Optional ones are only
 * reset when present.
 */
final class HttpUrlConnectionFields {
    static final String IMPL = "sun.net.www.protocol.http.HttpURLConnection";

    /** Required: the response stream of the last attempt; the JDK returns it again while it is set. */
    private final Field inputStream;
    /** Required: the failure of the last attempt; the JDK throws it again (chained) while it is set. */
    private final Field rememberedException;
    /** Required: the response headers ({@code MessageHeader}); {@code getResponseCode} parses line 0. */
    private final Field responses;
    /** Required ({@code java.net.HttpURLConnection}): the status, once {@code getResponseCode} has parsed it. */
    private final Field responseCode;
    /** Optional: the headers of a {@code ResponseCache} hit, which the header getters read instead of responses. */
    private final Field cachedHeaders;
    /** Required: the request headers ({@code MessageHeader}), where the marker header goes. */
    private final Field requests;
    /** Required: true once the standard request headers were added to {@code requests}. */
    private final Field setRequests;
    /** Required: the JDK's own "try once more" of a failed write has been used. */
    private final Field failedOnce;
    /** Required ({@code java.net.URLConnection}): a connection (or a cached response) is in hand. */
    private final Field connected;
    /**
     * Optional: the JDK has started connecting; never cleared by the JDK, and {@code setRequestProperty} refuses
     * while it is set, so a tracer that adds its header to each request (OpenTelemetry's) could not to a retry.
     */
    private final Field connecting;
    /** Optional: the error body, buffered when {@code sun.net.http.errorstream.enableBuffering} is on. */
    private final Field errorStream;
    /** Optional: the body of a {@code ResponseCache} hit. */
    private final Field cachedInputStream;
    /** Optional: {@code getHeaderFields()}' cached, filtered copy of {@code responses}. */
    private final Field filteredHeaders;
    /** Optional ({@code java.net.HttpURLConnection}): the reason phrase {@code getResponseCode} parsed. */
    private final Field responseMessage;
    /** Optional: the connection's lock (Java 14+); older JDKs synchronize on the connection. */
    private final Field connectionLock;
    /** Optional: the headers the application set ({@code MessageHeader}), apart from those the JDK adds. */
    private final Field userHeaders;
    /** The buffer of a body that is not streamed, sent with each request head. */
    private final Field poster;
    /** What {@code getOutputStream()} failed with, rethrown by its next call (Java 25; earlier JDKs keep none). */
    private final Field rememberedExceptionOut;
    private final Constructor<?> newPoster;
    /** Required: {@code streaming()}, true in fixed-length or chunked streaming mode. */
    private final Method streaming;
    /** Required: the methods of {@code MessageHeader}, the type of {@code requests} and {@code responses}. */
    private final MessageHeaders messageHeaders;
    /** Optional: the JDK's hidden resend, and how to switch it off; null when it cannot be reached. */
    private final HiddenResend hiddenResend;

    private static final MadeOnce<HttpUrlConnectionFields> ACCESSORS =
            new MadeOnce<HttpUrlConnectionFields>("httpurlconnection.state") {
                @Override
                HttpUrlConnectionFields make(Class<?> impl) throws ReflectiveOperationException {
                    return new HttpUrlConnectionFields(impl);
                }
            };

    private HttpUrlConnectionFields(Class<?> impl) throws ReflectiveOperationException {
        inputStream = field(impl, "inputStream");
        rememberedException = field(impl, "rememberedException");
        responses = field(impl, "responses");
        responseCode = field(HttpURLConnection.class, "responseCode");
        if (responseCode.getType() != int.class) {
            throw new NoSuchFieldException(HttpURLConnection.class.getName() + ".responseCode is not an int");
        }
        requests = field(impl, "requests");
        setRequests = field(impl, "setRequests");
        failedOnce = field(impl, "failedOnce");
        connected = field(java.net.URLConnection.class, "connected");
        Field started = optionalField(impl, "connecting");
        connecting = started != null && started.getType() == boolean.class ? started : null;
        errorStream = optionalField(impl, "errorStream");
        cachedInputStream = optionalField(impl, "cachedInputStream");
        filteredHeaders = optionalField(impl, "filteredHeaders");
        responseMessage = optionalField(HttpURLConnection.class, "responseMessage");
        Field lock = optionalField(impl, "connectionLock");
        connectionLock = lock != null && ReentrantLock.class.isAssignableFrom(lock.getType()) ? lock : null;
        Field user = optionalField(impl, "userHeaders");
        userHeaders = user != null && user.getType() == requestsType(impl) ? user : null;
        poster = field(impl, "poster");
        newPoster = poster.getType().getConstructor();
        Field out = optionalField(impl, "rememberedExceptionOut");
        rememberedExceptionOut = out != null && out.getType() == Exception.class ? out : null;
        streaming = impl.getDeclaredMethod("streaming");
        streaming.setAccessible(true);
        Class<?> messageHeader = requests.getType();
        if (messageHeader != responses.getType()) {
            throw new NoSuchFieldException("requests and responses are not of one type");
        }
        Field cached = optionalField(impl, "cachedHeaders");
        cachedHeaders = cached != null && cached.getType() == messageHeader ? cached : null;
        messageHeaders = new MessageHeaders(messageHeader);
        hiddenResend = HiddenResend.of(impl);
    }

    /**
     * The state accessors, made once per JVM; null when they cannot be made (logged once): the JDK's
     * HttpURLConnection is then left to itself.
     */
    static HttpUrlConnectionFields get() {
        return ACCESSORS.get();
    }

    /** The fields of {@code sun.net.www.protocol.http.HttpURLConnection} without which there is no retry. */
    static final List<String> REQUIRED_FIELDS = Collections.unmodifiableList(Arrays.asList(
            "inputStream", "rememberedException", "responses", "requests", "setRequests", "failedOnce", "poster"));
    /** Its fields that are used when present. */
    static final List<String> OPTIONAL_FIELDS = Collections.unmodifiableList(Arrays.asList(
            "errorStream", "cachedInputStream", "filteredHeaders", "connectionLock", "userHeaders", "cachedHeaders",
            "rememberedExceptionOut"));

    private static Class<?> requestsType(Class<?> impl) throws NoSuchFieldException {
        Field f = find(impl, "requests");
        if (f == null) {
            throw new NoSuchFieldException(impl.getName() + ".requests");
        }
        return f.getType();
    }

    private static Field field(Class<?> owner, String name) throws NoSuchFieldException {
        Field f = find(owner, name);
        if (f == null) {
            throw new NoSuchFieldException(owner.getName() + "." + name);
        }
        f.setAccessible(true);
        return f;
    }

    private static Field optionalField(Class<?> owner, String name) {
        Field f = find(owner, name);
        if (f != null) {
            f.setAccessible(true);
        }
        return f;
    }

    private static Field find(Class<?> owner, String name) {
        try {
            return owner.getDeclaredField(name);
        } catch (NoSuchFieldException e) {
            return null;
        }
    }

    // ---- reading ----

    /** The JDK's hidden resend and how to switch it off, or null when this JDK's cannot be reached. */
    HiddenResend hiddenResend() {
        return hiddenResend;
    }

    /** The connection's lock, or null when the JDK synchronizes on the connection itself (before Java 14). */
    ReentrantLock lockOf(HttpURLConnection conn) {
        return connectionLock == null ? null : (ReentrantLock) read(connectionLock, conn);
    }

    /**
     * True once a read method has produced the connection's result (a response stream, a remembered failure,
     * a cached response): a later read returns or rethrows that result, and is never a new call.
     */
    boolean hasResult(HttpURLConnection conn) {
        return read(inputStream, conn) != null || read(rememberedException, conn) != null
                || (cachedInputStream != null && read(cachedInputStream, conn) != null);
    }

    /**
     * The status of the response the last attempt left on {@code conn}, or -1 when it left none: what
     * {@code getResponseCode()} answers, read from the code and status line the JDK parsed. Never through the
     * getter: it re-enters {@code getInputStream()} when the code is not known yet, and where the JDK did not keep
     * an attempt's failure as the connection's result (a streaming request whose {@code Expect: 100-continue} the
     * server refused or closed: JDK-8314978, on Java 8, 11 and 17.0.15; Java 25 keeps it) that read sends the
     * request again.
     */
    int status(HttpURLConnection conn) {
        int code = readInt(responseCode, conn);
        if (code != -1) {
            return code;
        }
        Object line = messageHeaders.value(responseHeaders(conn), 0);
        return line instanceof String ? statusOf((String) line) : -1;
    }

    /**
     * Response header {@code name} of the last attempt, or null: what {@code getHeaderField(name)} answers, read
     * without the {@code getInputStream()} that getter runs first (see {@link #status}).
     */
    String responseHeader(HttpURLConnection conn, String name) {
        Object value = messageHeaders.find(responseHeaders(conn), name);
        return value instanceof String ? (String) value : null;
    }

    /** The headers the JDK's header getters read: a {@code ResponseCache} hit's, else the parsed response's. */
    private Object responseHeaders(HttpURLConnection conn) {
        Object cached = cachedHeaders == null ? null : read(cachedHeaders, conn);
        return cached != null ? cached : read(responses, conn);
    }

    /** The code of {@code statusLine} as {@code java.net.HttpURLConnection.getResponseCode()} parses it, or -1. */
    static int statusOf(String statusLine) {
        if (!statusLine.startsWith("HTTP/1.")) {
            return -1;
        }
        int codePos = statusLine.indexOf(' ');
        if (codePos <= 0) {
            return -1;
        }
        int phrasePos = statusLine.indexOf(' ', codePos + 1);
        if (phrasePos < 0) {
            phrasePos = statusLine.length(); // the JDK accepts a status line without a reason phrase
        }
        try {
            return Integer.parseInt(statusLine.substring(codePos + 1, phrasePos));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Fixed-length or chunked streaming mode: the body goes straight to the socket and cannot be sent again. */
    boolean isStreaming(HttpURLConnection conn) {
        return (Boolean) invoke(streaming, conn);
    }

    /** True while the connection holds an open connection to its server (or a cached response). */
    boolean isConnected(HttpURLConnection conn) {
        return readBoolean(connected, conn);
    }

    /** True once the request head has been built (and, in streaming mode, sent by {@code getOutputStream}). */
    boolean requestHeadBuilt(HttpURLConnection conn) {
        return readBoolean(setRequests, conn);
    }

    /**
     * Whether the application set request header {@code name} itself ({@code setRequestProperty},
     * {@code addRequestProperty}), as opposed to the agent's marker of an earlier attempt; null when this JDK
     * does not keep the application's headers apart.
     */
    Boolean userSetHeader(HttpURLConnection conn, String name) {
        if (userHeaders == null) {
            return null;
        }
        return messageHeaders.find(read(userHeaders, conn), name) != null;
    }

    // ---- writing ----

    /**
     * After {@code getOutputStream()} of a body that is not streamed failed to connect: the connection forgets that
     * failure and gets the empty buffer {@code getOutputStream()} would have returned, so that its first read
     * connects again and sends the body from the buffer, as it does when the application connected already.
     */
    OutputStream bufferWithoutConnection(HttpURLConnection conn) {
        if (rememberedExceptionOut != null) {
            write(rememberedExceptionOut, conn, null);
        }
        Object buffer = read(poster, conn);
        if (buffer == null) {
            try {
                buffer = newPoster.newInstance();
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
            write(poster, conn, buffer);
        }
        return (OutputStream) buffer;
    }

    /**
     * Sets request header {@code name} to {@code value} in the headers the next attempt sends, whether or not
     * the connection is connected ({@code setRequestProperty} refuses once it is); user-set headers, as
     * {@code getRequestProperties} reports them before the call, are not touched.
     */
    void setRequestHeader(HttpURLConnection conn, String name, String value) {
        messageHeaders.set(read(requests, conn), name, value);
    }

    /**
     * Releases what the last attempt holds: its error stream, its response stream and its connection, through
     * the JDK's own {@code disconnect()} (which closes the response stream, or the socket when there is none,
     * and keeps the keep-alive cache from handing that socket out again).
     */
    void release(HttpURLConnection conn) {
        if (errorStream != null) {
            Object error = read(errorStream, conn);
            if (error instanceof Closeable) {
                Closeables.closeQuietly((Closeable) error);
            }
            write(errorStream, conn, null);
        }
        conn.disconnect();
    }

    /**
     * Brings the connection back to where it stood before its first read, with its method, request headers,
     * buffered body ({@code poster}, kept: the JDK clears it only after a success) and settings, so that the
     * JDK's own {@code getInputStream} makes the next attempt as it made the first: {@link #release} the last
     * attempt, then forget its result ({@code inputStream}, {@code rememberedException}, the response headers,
     * code and message, the cached header map), mark the connection neither connected nor connecting, let the JDK
     * rebuild the request head ({@link #unbuildRequestHead}) and give it back its own one-time rewrite on a broken
     * connection ({@code failedOnce}).
     */
    void resetForRetry(HttpURLConnection conn) {
        release(conn);
        unbuildRequestHead(conn);
        write(inputStream, conn, null);
        write(rememberedException, conn, null);
        if (cachedInputStream != null) {
            write(cachedInputStream, conn, null);
        }
        messageHeaders.reset(read(responses, conn));
        if (filteredHeaders != null) {
            write(filteredHeaders, conn, null);
        }
        if (responseMessage != null) {
            write(responseMessage, conn, null);
        }
        writeBoolean(connected, conn, false);
        if (connecting != null) {
            writeBoolean(connecting, conn, false);
        }
        writeBoolean(failedOnce, conn, false);
    }

    /**
     * Once the JDK has built the request head ({@code setRequests}), {@code requests} starts with the request line
     * (a key without a value) followed by the user's headers and the standard ones (Host, Content-Length,
     * cookies, pre-emptive credentials). Taking the request line out and clearing {@code setRequests} makes the
     * next attempt build the head as the first one did: Java 17 prepends the request line unconditionally, Java
     * 25 when it is not at index 0; the other standard headers are only set if absent, or set again to the same
     * value, and cookies are worked out again from the user's and the cookie handler's. Credentials the JDK took
     * out after the response (not set by the user) are added back as on a first request. If line 0 does not look
     * like this request's request line, the head is left built: the next attempt sends it as it stands.
     */
    private void unbuildRequestHead(HttpURLConnection conn) {
        if (!readBoolean(setRequests, conn)) {
            return; // the last attempt failed before its head was built (connect refused, say)
        }
        Object headers = read(requests, conn);
        Object line = messageHeaders.key(headers, 0);
        Object value = messageHeaders.value(headers, 0);
        String method = conn.getRequestMethod();
        if (line instanceof String && value == null && ((String) line).startsWith(method + " ")
                && ((String) line).endsWith(" HTTP/1.1")) {
            messageHeaders.remove(headers, line);
            writeBoolean(setRequests, conn, false);
        }
    }

    /**
     * Makes {@code failure} the connection's result, as if the JDK had thrown it: after the retry loop ended
     * with a failure of its own (interrupted while waiting), once the last attempt's response was released.
     */
    void failWith(HttpURLConnection conn, Exception failure) {
        write(inputStream, conn, null);
        messageHeaders.reset(read(responses, conn));
        if (filteredHeaders != null) {
            write(filteredHeaders, conn, null);
        }
        write(rememberedException, conn, failure);
    }
}
