package dev.retryagent.agent.clients.okhttp;

import dev.retryagent.agent.bootloader.runtime.Failures;
import dev.retryagent.agent.bootloader.runtime.InjectedFaults;
import dev.retryagent.agent.bootloader.runtime.PeerClosedCheck;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.agent.bootloader.weaving.PerClassLookup;
import dev.retryagent.engine.AttemptScope;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.CallPlan;
import dev.retryagent.engine.HeaderLookup;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.ClientNames;
import dev.retryagent.policy.FailureKind;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.ProtocolException;
import java.net.Socket;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import okhttp3.Call;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okhttp3.internal.http2.ConnectionShutdownException;
import okhttp3.internal.http2.ErrorCode;
import okhttp3.internal.http2.StreamResetException;

/**
 * OkHttp requests, responses and failures in the engine's terms. Loaded in OkHttp's class loader (see
 * {@link OkHttpInstrumentation}).
 */
final class OkHttpRequests {
    /**
     * Failures of attempts that met a stale connection ({@link #noteFailure}), until the loop classifies them. Weak
     * keys; an exception's equals is its identity.
     */
    private static final Map<IOException, Boolean> STALE =
            Collections.synchronizedMap(new WeakHashMap<IOException, Boolean>());
    /**
     * {@code RealConnection.routeFailureCount} of a call's connection, see {@link #reusedConnection}; where it cannot
     * be read, a protocol error stays {@code other}, as OkHttp alone has it.
     */
    private static final ConnectionField ROUTE_FAILURES =
            new ConnectionField("okhttp.connection-reuse", "routeFailureCount", "getConnection");

    /**
     * Whether the request this thread wrote last went out on an HTTP/1 connection its server had closed already
     * ({@link #beforeWrite}), until {@link #takeWrittenToClosedConnection} reads it: OkHttp writes, recovers and
     * decides on one thread.
     */
    private static final ThreadLocal<Boolean> WRITTEN_TO_CLOSED = new ThreadLocal<Boolean>();
    /** The plain TCP socket (below TLS) of a codec's connection: 4.12 {@code getConnection()}, 5.x {@code getCarrier()}. */
    private static final ConnectionField RAW_SOCKET =
            new ConnectionField("okhttp.connection-socket", "rawSocket", "getConnection", "getCarrier");

    private OkHttpRequests() {
    }

    /** {@code request}, or a copy of it with {@code header: value} when both are set. */
    static Request marked(Request request, String header, String value) {
        return header == null || value == null ? request : request.newBuilder().header(header, value).build();
    }

    /**
     * The plan of the call {@code request} is sent for, as the client's hooks inside an attempt ask it: the plan of the
     * agent-run call whose attempt this thread is making, when {@code request} is that call's (marked or not; not one
     * a redirect took elsewhere), so that the request is not read again; else planned from its {@link #facts}.
     */
    static CallPlan planOf(Request request, RetryEngine engine) {
        CallFacts running = AttemptScope.currentCall();
        CallPlan plan = running != null && isFor(running, request) ? AttemptScope.currentPlan() : null;
        return plan != null ? plan : engine.plan(facts(request, engine));
    }

    /** Whether {@code request} is the one {@code call}'s facts were read from: same client, method and address. */
    private static boolean isFor(CallFacts call, Request request) {
        HttpUrl url = request.url();
        return call.port() == url.port() && call.path().equals(url.encodedPath()) && call.host().equals(url.host())
                && call.scheme().equals(url.scheme()) && call.method().equals(request.method())
                && ClientNames.OKHTTP.equals(call.client());
    }

    /** What the engine needs to know about {@code request}, read under {@code engine}'s policy. */
    static CallFacts facts(final Request request, RetryEngine engine) {
        InjectedFaults.at(ClientNames.OKHTTP + ".facts");
        HttpUrl url = request.url();
        return CallFacts.builder(ClientNames.OKHTTP, request.method(), url.scheme(), url.host(), url.port(),
                        url.encodedPath()) // never the query
                .bodyReplayable(isReplayable(request.body()))
                .build(engine, new HeaderLookup() {
                    @Override
                    public boolean has(String name) {
                        return request.header(name) != null; // OkHttp compares names case-insensitively
                    }

                    @Override
                    public String value(String name) {
                        return request.header(name);
                    }
                });
    }

    /**
     * The facts a response is decided under: OkHttp follows redirects inside the chain below the retry interceptor,
     * so the request that got {@code response} may have gone to another host than the call's (see
     * {@link CallFacts#redirectedTo}). {@code callUrl}: the url the call's facts were read from.
     */
    static CallFacts decidedUnder(CallFacts call, HttpUrl callUrl, Response response) {
        Request sent = response.request();
        if (sent == null) {
            return call;
        }
        HttpUrl url = sent.url();
        if (url == callUrl) {
            return call; // no redirect: the request sent is the call's, or its marked copy, which keeps its url
        }
        return call.redirectedTo(url.scheme(), url.host(), url.port(), url.encodedPath());
    }

    /** No body, or one OkHttp can write again: neither one-shot nor duplex (docs/reference.md#replayable-bodies). */
    static boolean isReplayable(RequestBody body) {
        return body == null || (!body.isOneShot() && !body.isDuplex());
    }

    /**
     * Whether {@code failure} says that no byte of the request reached a server: no connection was made to it
     * (refused, unreachable, unknown host, TLS handshake failed), an HTTP/2 connection shut down before the stream
     * opened, or the peer refused the stream (it says it did not process it).
     */
    static boolean neverSent(IOException failure) {
        if (failure instanceof ConnectException || failure instanceof NoRouteToHostException
                || failure instanceof UnknownHostException || failure instanceof SSLHandshakeException
                || failure instanceof ConnectionShutdownException) {
            return true;
        }
        return failure instanceof StreamResetException
                && ((StreamResetException) failure).errorCode == ErrorCode.REFUSED_STREAM;
    }

    /**
     * Whether an attempt that failed with {@code failure}, of {@code kind}, may be retried as a request that never
     * left: a connect failure, or one {@link #neverSent} names that is retried at all.
     */
    static boolean unsent(IOException failure, FailureKind kind) {
        return kind == FailureKind.CONNECT || neverSent(failure);
    }

    /**
     * {@code codec} (an {@code Http1ExchangeCodec}) is about to write {@code request}'s head; {@code http1} false: an
     * HTTP/2 stream, whose own refusal tells whether it was processed. Under {@code builtInRetries: replace} the
     * connection's socket is polled first ({@link PeerClosedCheck}): a request written to a connection that its
     * server had already closed while it sat in the pool cannot have been read, and OkHttp's own resend of it stays
     * ({@link OkHttpHooks#recover}), as the JDK's stays for HttpURLConnection.
     */
    static void beforeWrite(Object codec, boolean http1) {
        boolean closed = false;
        if (http1 && RetryRuntime.replacesBuiltInRetries()) {
            closed = Boolean.TRUE.equals(PeerClosedCheck.closedByPeer((Socket) RAW_SOCKET.read(codec)));
        }
        WRITTEN_TO_CLOSED.set(closed ? Boolean.TRUE : null);
    }

    /** Whether the request this thread wrote last went to a connection closed already; forgotten once asked. */
    static boolean takeWrittenToClosedConnection() {
        boolean closed = WRITTEN_TO_CLOSED.get() != null;
        if (closed) {
            WRITTEN_TO_CLOSED.remove();
        }
        return closed;
    }

    /** A protocol upgrade (web socket): its response hands the connection over; never retried. */
    static boolean isUpgrade(Request request) {
        return request.header("Upgrade") != null;
    }

    /** How an attempt of {@code call} that failed with {@code failure} failed (docs/reference.md#classification). */
    static FailureKind classify(IOException failure, Call call) {
        if (call != null && call.isCanceled()) {
            return FailureKind.OTHER; // the application cancelled: whatever the socket said, do not retry
        }
        return classify(failure);
    }

    static FailureKind classify(IOException failure) {
        FailureKind kind = classifyByType(failure);
        return Failures.staleConnection(kind, isUnreadableStatusLine(failure), STALE.remove(failure) != null);
    }

    /**
     * An attempt of {@code call} failed with {@code failure}: if that is a status line OkHttp could not read, on a
     * connection that had carried an earlier exchange, the connection was stale ({@link Failures#staleConnection}),
     * which {@link #classify} then says. Called where the attempt failed, while the call still holds its connection.
     */
    static void noteFailure(Call call, IOException failure) {
        if (isUnreadableStatusLine(failure) && reusedConnection(call)) {
            STALE.put(failure, Boolean.TRUE);
        }
    }

    /** OkHttp's failure for a response whose first line is not a status line (4.12 and 5.x say the same). */
    static boolean isUnreadableStatusLine(IOException failure) {
        String message = failure.getMessage();
        return failure instanceof ProtocolException && message != null && message.startsWith("Unexpected status line");
    }

    /**
     * Whether the connection {@code call} holds had completed an exchange before the one that just failed. OkHttp
     * itself tells: on a failure it counts a route failure on an HTTP/1 connection only when the connection has never
     * completed an exchange ({@code RealConnection.trackFailure}, 4.12 and 5.x), which is also what makes it resend
     * the request itself when {@code retryOnConnectionFailure} is on. The call keeps its connection until it ends
     * or makes its next exchange. False whenever it cannot be told.
     */
    static boolean reusedConnection(Call call) {
        Object failures = ROUTE_FAILURES.read(call);
        return failures != null && ((Integer) failures) == 0;
    }

    /**
     * A field of the connection an OkHttp object holds (read through its public getter), by reflection: the handles
     * are looked up once per class, privileged ({@link PerClassLookup}); a failure to make them is logged once and
     * then answers null for good.
     */
    private static final class ConnectionField {
        private final String where;
        private volatile boolean unavailable;
        private final PerClassLookup<Method> getter;
        private final PerClassLookup<Field> field;

        ConnectionField(String where, final String fieldName, final String... getterNames) {
            this.where = where;
            this.getter = new PerClassLookup<Method>() {
                @Override
                protected Method computeValue(Class<?> holder) {
                    for (String name : getterNames) {
                        try {
                            return holder.getMethod(name);
                        } catch (NoSuchMethodException e) {
                            // the next version's name
                        }
                    }
                    throw new IllegalStateException(holder.getName() + " has none of " + Arrays.toString(getterNames));
                }
            };
            this.field = new PerClassLookup<Field>() {
                @Override
                protected Field computeValue(Class<?> connection) {
                    Field f = accessibleField(connection, fieldName);
                    if (f == null) {
                        throw new IllegalStateException(connection.getName() + " has no " + fieldName);
                    }
                    return f;
                }
            };
        }

        /** The field's value in the connection {@code holder} holds; null with no connection, or when unreadable. */
        Object read(Object holder) {
            if (holder == null || unavailable) {
                return null;
            }
            try {
                Object connection = getter.of(holder.getClass()).invoke(holder);
                return connection == null ? null : field.of(connection.getClass()).get(connection);
            } catch (Exception e) {
                unavailable = true;
                RetryLog.internalError(where, e);
                return null;
            } catch (LinkageError e) {
                unavailable = true;
                RetryLog.internalError(where, e);
                return null;
            }
        }
    }

    private static FailureKind classifyByType(IOException failure) {
        FailureKind byType = Failures.byJdkType(failure);
        if (byType != null) {
            return byType;
        }
        String type = failure.getClass().getName();
        if (type.equals("okhttp3.internal.http2.StreamResetException")
                || type.equals("okhttp3.internal.http2.ConnectionShutdownException")) {
            return FailureKind.RESET;
        }
        String message = failure.getMessage();
        if (message != null && message.startsWith("unexpected end of stream")) {
            return FailureKind.RESET; // HTTP/1: the connection closed before a complete response
        }
        return FailureKind.OTHER; // "Canceled", protocol errors, ...
    }

    /**
     * {@code chain} with its connect, read and write timeouts each at most {@code limitMillis}, the attempt's limit
     * from the policy; {@code chain} itself when the limit is 0 (none) or its own timeouts are all shorter. OkHttp
     * applies a chain's timeouts from here down: to this attempt's connect, request and response, body included.
     */
    static Interceptor.Chain bounded(Interceptor.Chain chain, long limitMillis) {
        if (limitMillis <= 0) {
            return chain;
        }
        int limit = (int) Math.min(Integer.MAX_VALUE, limitMillis);
        Interceptor.Chain bounded = chain;
        if (exceeds(chain.connectTimeoutMillis(), limit)) {
            bounded = bounded.withConnectTimeout(limit, TimeUnit.MILLISECONDS);
        }
        if (exceeds(chain.readTimeoutMillis(), limit)) {
            bounded = bounded.withReadTimeout(limit, TimeUnit.MILLISECONDS);
        }
        if (exceeds(chain.writeTimeoutMillis(), limit)) {
            bounded = bounded.withWriteTimeout(limit, TimeUnit.MILLISECONDS);
        }
        return bounded;
    }

    /**
     * Whether {@link #bounded} shortens the read timeout, what a dependency that does not answer runs into. OkHttp
     * says "timeout" for a read and a write alike; a write shortened alone is told as the application's.
     */
    static boolean shortensRead(Interceptor.Chain chain, long limitMillis) {
        return limitMillis > 0 && exceeds(chain.readTimeoutMillis(), limitMillis);
    }

    /** OkHttp's timeout {@code own} (0: none) is longer than {@code limit}. */
    private static boolean exceeds(int own, long limit) {
        return own == 0 || own > limit;
    }

    /** {@code call}'s {@code callTimeout} in milliseconds (OkHttp times the whole call with it), or 0 for none. */
    static long callTimeoutMillis(Call call) {
        return TimeUnit.NANOSECONDS.toMillis(call.timeout().timeoutNanos());
    }

    /** Releases a response the caller will never see: closing its body returns or closes the connection. */
    static void discard(Response response) {
        ResponseBody body = response.body();
        if (body != null) {
            body.close();
        }
        InjectedFaults.at(ClientNames.OKHTTP + ".discard");
    }
}
