package dev.retryagent.agent.bootloader.httpurlconnection;

import dev.retryagent.engine.RetryLog;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.HttpURLConnection;

/**
 * The JDK's hidden resend, switched off for the attempts whose retries the agent owns ({@code builtInRetries:
 * replace}, mode {@code enforce}; docs/reference.md#one-retry-layer).
 *
 * <p>{@code sun.net.www.http.HttpClient.parseHTTP} sends a buffered request (GET and POST alike, unless the
 * JVM-wide {@code sun.net.http.retryPost=false}, read once at start-up) a second time when the connection fails or
 * closes before the status line: a server that read the request and dropped the connection sees it twice. The JDK
 * skips that resend when the client's {@code failedOnce} is set, which its public {@code setDoNotRetry(true)} does
 * (the JDK itself calls it from {@code disconnect()}); the flag goes back to false once a response is framed, so
 * a kept-alive client leaves the cache clean. The hook at the entry of the private
 * {@code sun.net.www.protocol.http.HttpURLConnection.writeRequests()} (each request head of a call, every redirect
 * hop and the JDK's own rewrite after a failed write included, with {@code http} set) calls it for the connection
 * whose attempt this thread is making ({@link #enter}). A failure before the status line then reaches the agent's
 * loop, which retries it as the policy says: GET recovered, POST without a key sent once.
 *
 * <p>Left as the JDK has it: the rewrite of a request whose write failed ({@code writeRequests}' "try once more":
 * the peer had reset the connection, so no server read that request whole), streaming modes (never resent), and
 * one case the JDK's resend is right about: a kept-alive connection the server closed while it was idle. For a
 * request the policy would not retry after a reset (a POST without key, a nested call), a connection from the
 * keep-alive cache is checked first, as the JDK checks one for a streaming POST, but without its 1 ms wait
 * ({@link IdleConnectionCheck}); if the server has closed it already, the resend stays on, because it re-sends a
 * request no server has seen.
 *
 * <p>Reflection on {@code sun.net.www.http}, which {@code java.base} opens to the bootstrap loader's unnamed module
 * at start-up. Fails open: if a member is missing or inaccessible (logged once), the JDK keeps its resend.
 */
final class HiddenResend {
    /** {@code sun.net.www.protocol.http.HttpURLConnection.http}: the connection's current client. */
    private final Field http;
    /** {@code sun.net.www.http.HttpClient.setDoNotRetry(boolean)}. */
    private final Method setDoNotRetry;
    /** {@code sun.net.www.http.HttpClient.isCachedConnection()}: taken from the keep-alive cache. */
    private final Method isCachedConnection;
    /** Whether the server closed a cached connection while it was idle. */
    private final IdleConnectionCheck idle;

    /** The attempt this thread is making of a connection whose hidden resend is off, or null. */
    private static final ThreadLocal<ResendOff> CURRENT = new ThreadLocal<ResendOff>();

    private HiddenResend(Class<?> impl) throws ReflectiveOperationException {
        http = impl.getDeclaredField("http");
        http.setAccessible(true);
        Class<?> client = http.getType();
        setDoNotRetry = client.getMethod("setDoNotRetry", boolean.class);
        setDoNotRetry.setAccessible(true);
        isCachedConnection = client.getMethod("isCachedConnection");
        isCachedConnection.setAccessible(true);
        Method available = client.getDeclaredMethod("available");
        available.setAccessible(true);
        idle = IdleConnectionCheck.of(client, available);
    }

    /**
     * The accessors for {@code impl} (the JDK's HttpURLConnection), made with {@link HttpUrlConnectionFields}, once per
     * JVM; null when they cannot be made (logged once): the JDK keeps its resend, retries work as before.
     */
    static HiddenResend of(Class<?> impl) {
        try {
            return new HiddenResend(impl);
        } catch (Throwable t) {
            if (t instanceof VirtualMachineError) {
                throw (VirtualMachineError) t;
            }
            RetryLog.internalError("httpurlconnection.hidden-resend", t);
            return null;
        }
    }

    /** One attempt of a connection: its hidden resend is off; {@code checkStale} as {@link #enter} says. */
    private static final class ResendOff {
        final HttpURLConnection conn;
        final boolean checkStale;
        /** The request head last written for this attempt went to a connection from the keep-alive cache. */
        boolean cachedConnection;

        ResendOff(HttpURLConnection conn, boolean checkStale) {
            this.conn = conn;
            this.checkStale = checkStale;
        }
    }

    /**
     * This thread is about to make an attempt of {@code conn}, the agent its only retry layer: every request head
     * the JDK writes for it until {@link #exit} has the hidden resend off.
     *
     * @param checkStale the policy would not retry this request after a reset: a cached connection is checked first
     * @return what to hand to {@link #exit}
     */
    static Object enter(HttpURLConnection conn, boolean checkStale) {
        ResendOff previous = CURRENT.get();
        CURRENT.set(new ResendOff(conn, checkStale));
        return previous;
    }

    /**
     * Whether the attempt this thread is making of {@code conn} wrote its last request head to a connection taken
     * from the keep-alive cache (one that had carried an earlier exchange); false when it is not known.
     */
    static boolean onCachedConnection(HttpURLConnection conn) {
        ResendOff attempt = CURRENT.get();
        return attempt != null && attempt.conn == conn && attempt.cachedConnection;
    }

    static void exit(Object previous) {
        CURRENT.set((ResendOff) previous);
    }

    /**
     * The JDK is about to write a request head of {@code conn} ({@code writeRequests()}, its client in hand): if
     * this thread is making an attempt of it, the client's hidden resend goes off. Errors are the hook's to log.
     */
    static void beforeRequestWritten(HttpURLConnection conn) {
        ResendOff attempt = CURRENT.get();
        if (attempt == null || attempt.conn != conn) {
            return;
        }
        HttpUrlConnectionFields state = HttpUrlConnectionFields.get();
        HiddenResend h = state == null ? null : state.hiddenResend();
        if (h != null) {
            h.switchOff(attempt);
        }
    }

    private void switchOff(ResendOff attempt) {
        HttpURLConnection conn = attempt.conn;
        Object client = UncheckedReflection.read(http, conn);
        attempt.cachedConnection = false;
        if (client == null) {
            return;
        }
        boolean cached = (Boolean) UncheckedReflection.invoke(isCachedConnection, client);
        attempt.cachedConnection = cached;
        if (attempt.checkStale && cached && idle.closedByServer(client)) {
            return; // closed by the server while idle: the JDK's resend goes to a server that never saw the request
        }
        UncheckedReflection.invoke(setDoNotRetry, client, Boolean.TRUE);
    }
}
