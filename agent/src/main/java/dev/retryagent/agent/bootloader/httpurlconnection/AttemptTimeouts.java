package dev.retryagent.agent.bootloader.httpurlconnection;

import dev.retryagent.engine.RetryLog;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.HttpURLConnection;

/**
 * One attempt's connect and read timeouts on an HttpURLConnection, bounded by the limit the policy gives it and put
 * back afterwards, so that the application reads the body, and every later use of the connection, with its own.
 *
 * <p>The connection's own {@code connectTimeout} and {@code readTimeout} fields are saved and restored as they are,
 * {@code -1} ("not set": the {@code sun.net.client.default*Timeout} properties apply) included, which the public
 * getters would report as {@code 0}. The read timeout is also set on the socket when the connection already has one
 * (a streaming request connected in {@code getOutputStream()}), and the application's is put back on it after the
 * attempt: the JDK applies a read timeout to the socket only when it connects.
 */
final class AttemptTimeouts {
    private static final MadeOnce<AttemptTimeouts> ACCESSORS =
            new MadeOnce<AttemptTimeouts>("httpurlconnection.attempt-timeouts") {
                @Override
                AttemptTimeouts make(Class<?> impl) throws ReflectiveOperationException {
                    return new AttemptTimeouts(impl);
                }
            };

    private final Field connectTimeout;
    private final Field readTimeout;
    /** Optional: the connection's {@code sun.net.www.http.HttpClient}, and its {@code setReadTimeout(int)}. */
    private final Field http;
    private final Method setSocketReadTimeout;
    /**
     * The {@code sun.net.client.default*Timeout} properties' positive values, else 0: read once, as the JDK reads them
     * (when {@code sun.net.NetworkClient} initialises).
     */
    private final int defaultConnectTimeout;
    private final int defaultReadTimeout;

    private AttemptTimeouts(Class<?> impl) throws ReflectiveOperationException {
        defaultConnectTimeout = positive(Integer.getInteger("sun.net.client.defaultConnectTimeout"));
        defaultReadTimeout = positive(Integer.getInteger("sun.net.client.defaultReadTimeout"));
        connectTimeout = impl.getDeclaredField("connectTimeout");
        connectTimeout.setAccessible(true);
        readTimeout = impl.getDeclaredField("readTimeout");
        readTimeout.setAccessible(true);
        Field client = null;
        Method set = null;
        try {
            client = impl.getDeclaredField("http");
            client.setAccessible(true);
            set = client.getType().getMethod("setReadTimeout", int.class);
            set.setAccessible(true);
        } catch (ReflectiveOperationException | RuntimeException e) {
            client = null;
            set = null;
        }
        http = client;
        setSocketReadTimeout = set;
    }

    /** The accessors, made once per JVM; null (logged once) when the timeout fields cannot be reached. */
    static AttemptTimeouts get() {
        return ACCESSORS.get();
    }

    /** The application's own timeouts of one connection, as its fields held them before an attempt. */
    static final class Saved {
        final int connect;
        final int read;
        /** The read timeout of this attempt is the agent's limit, not the application's own. */
        final boolean readBounded;

        Saved(int connect, int read, boolean readBounded) {
            this.connect = connect;
            this.read = read;
            this.readBounded = readBounded;
        }
    }

    /**
     * Bounds the next attempt of {@code conn}: each timeout becomes the smaller of the application's and
     * {@code limitMillis} (0, the JDK's "infinite", counts as no bound). Returns what to {@link #restore}.
     */
    Saved bound(HttpURLConnection conn, long limitMillis) throws IllegalAccessException {
        int limit = (int) Math.max(1, Math.min(Integer.MAX_VALUE, limitMillis));
        int connect = connectTimeout.getInt(conn);
        int read = readTimeout.getInt(conn);
        int boundedConnect = smaller(connect >= 0 ? connect : defaultConnectTimeout, limit);
        int appRead = read >= 0 ? read : defaultReadTimeout;
        int boundedRead = smaller(appRead, limit);
        connectTimeout.setInt(conn, boundedConnect);
        readTimeout.setInt(conn, boundedRead);
        setOnSocket(conn, boundedRead);
        return new Saved(connect, read, boundedRead != appRead);
    }

    /** Puts the application's timeouts back on {@code conn}, and on its socket if it has one. */
    void restore(HttpURLConnection conn, Saved saved) throws IllegalAccessException {
        connectTimeout.setInt(conn, saved.connect);
        readTimeout.setInt(conn, saved.read);
        // -1 makes the JDK's client apply the default of the properties, as it did when it connected.
        setOnSocket(conn, saved.read);
    }

    private void setOnSocket(HttpURLConnection conn, int millis) throws IllegalAccessException {
        if (http == null) {
            return;
        }
        Object client = http.get(conn);
        if (client == null) {
            return;
        }
        try {
            setSocketReadTimeout.invoke(client, millis);
        } catch (InvocationTargetException e) {
            RetryLog.internalError("httpurlconnection.socket-timeout", e.getCause());
        }
    }

    /** A timeout field of -1 takes the property's positive value, else none (0), as the JDK applies it. */
    private static int positive(Integer fromProperty) {
        return fromProperty != null && fromProperty > 0 ? fromProperty : 0;
    }

    private static int smaller(int own, int limit) {
        return own == 0 ? limit : Math.min(own, limit);
    }
}
