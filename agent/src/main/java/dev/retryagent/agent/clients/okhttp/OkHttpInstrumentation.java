package dev.retryagent.agent.clients.okhttp;

import dev.retryagent.agent.bootloader.runtime.PeerClosedCheck;
import dev.retryagent.agent.bootloader.weaving.ClientInstrumentation;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.agent.bootloader.weaving.JavaBaseAccess;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.ClientNames;
import java.lang.instrument.Instrumentation;
import java.util.logging.Level;

/**
 * What the agent hooks in OkHttp 4.12 and 5.x (the same names and descriptors in both; checked against the
 * released jars by OkHttpInstrumentationTest):
 *
 * <ul>
 *   <li>entry of {@code okhttp3.OkHttpClient(OkHttpClient.Builder)}: every client is built through this
 *       constructor ({@code Builder.build()}, {@code new OkHttpClient()}, {@code newBuilder()...build()}), so
 *       this is where {@link RetryInterceptor} is made the first application interceptor, exactly once however
 *       the builder was made or copied;</li>
 *   <li>entry of {@code OkHttpClient.newCall(Request)}, which may replace the call: a client built before the agent
 *       started (it was attached to a running JVM) has no {@link RetryInterceptor}, and its interceptor list cannot
 *       change. Its calls are made by a copy, {@code newBuilder().build()} once per client, which the constructor
 *       hook equips and which shares the client's dispatcher, connection pool, cache and listeners. A client
 *       built by the agent's constructor hook already holds the interceptor: its calls are left alone;</li>
 *   <li>entry of {@code okhttp3.internal.connection.RealCall.enqueue(Callback)}: an async call is taken over
 *       by the async retry loop ({@link OkHttpAsyncExchange}), which never waits on a dispatcher thread;</li>
 *   <li>exit of {@code RealCall.cancel()}: cancelling the application's call also cancels the attempt in
 *       flight, which is a clone the application never sees;</li>
 *   <li>exit of {@code Dispatcher.cancelAll()}: an async call waiting for its next attempt is in none of the
 *       dispatcher's queues, so cancelAll alone would not see it; the hook cancels the application's calls of that
 *       dispatcher that the loop is running, and the scheduled attempt is then never sent;</li>
 *   <li>entry of the private {@code okhttp3.internal.http.RetryAndFollowUpInterceptor.recover} (4.12:
 *       {@code (IOException, RealCall, Request, boolean requestSendStarted)}, 5.3: {@code (IOException, RealCall,
 *       Request)}, 5.5: {@code (IOException, RealCall, Interceptor.Chain, Request)}): the one place where OkHttp decides to make a call again after a failure, its
 *       move to the host's next address, the next proxy and the next TLS configuration included. The switch that
 *       turns it off, {@code retryOnConnectionFailure}, turns all of those off with the resend; so the agent leaves
 *       the switch alone and answers here instead: under {@code builtInRetries: replace} no resend of a request a
 *       server may have read, every recovery of one that never left (see {@link OkHttpHooks#recover});</li>
 *   <li>entry of {@code Http1ExchangeCodec.writeRequestHeaders(Request)} and {@code Http2ExchangeCodec}'s: the last
 *       moment before a request leaves on a connection the pool handed out, where a close the server made while the
 *       connection sat idle can still be seen; a request written to such a connection was never read, and OkHttp's
 *       resend of it stays (see {@link OkHttpRequests#beforeWrite});</li>
 *   <li>entry of the private {@code RetryAndFollowUpInterceptor.followUpRequest} (4.12:
 *       {@code (Response, Exchange)}, 5.x: {@code (Response, Exchange, Interceptor.Chain)}): OkHttp resends a
 *       request answered {@code 503} with {@code Retry-After: 0} once, POST included, and one answered {@code 408}.
 *       Under {@code builtInRetries: replace} the hook answers "no follow-up" for the 503, and for a 408 the agent
 *       retries itself, so that the response reaches the agent's interceptor and the contract decides
 *       (docs/reference.md#the-clients-own-retries). Redirects, authentication and 421 follow-ups are OkHttp's.</li>
 * </ul>
 *
 * Sync {@code Call.execute()} needs no hook of its own: the interceptor runs on the calling thread and drives
 * the sync retry loop with {@code chain.proceed()}.
 *
 * <p>This class names no OkHttp type: it is loaded by the agent whether or not the application uses OkHttp.
 * The other classes of its package are the ones that do: the adapter classes, defined in the client's class
 * loader when the agent's own copies cannot see that client ({@code ClassInjector}).
 */
public final class OkHttpInstrumentation extends ClientInstrumentation {
    static final String OKHTTP_CLIENT = "okhttp3.OkHttpClient";
    static final String REAL_CALL = "okhttp3.internal.connection.RealCall";
    static final String DISPATCHER = "okhttp3.Dispatcher";
    static final String FOLLOW_UP_INTERCEPTOR = "okhttp3.internal.http.RetryAndFollowUpInterceptor";
    static final String HTTP1_CODEC = "okhttp3.internal.http1.Http1ExchangeCodec";
    static final String HTTP2_CODEC = "okhttp3.internal.http2.Http2ExchangeCodec";

    /**
     * What the socket poll before a request is written ({@code bootloader.runtime.PeerClosedCheck}) reads in
     * {@code java.base}, opened to the bootstrap path by {@link #prepare}.
     */
    static final String[] PEER_CLOSED_CHECK_PACKAGES = {"java.net", "sun.nio.ch"};

    public OkHttpInstrumentation() {
        super(ClientNames.OKHTTP, "dev.retryagent.agent.clients.okhttp.OkHttpHooks",
                HookPoint.entry(OkHttpHooks.CLIENT_INIT, OKHTTP_CLIENT, "<init>", "(Lokhttp3/OkHttpClient$Builder;)V"),
                HookPoint.entryMayReplace(OkHttpHooks.NEW_CALL, OKHTTP_CLIENT, "newCall",
                        "(Lokhttp3/Request;)Lokhttp3/Call;"),
                HookPoint.entryMaySkip(OkHttpHooks.ENQUEUE, REAL_CALL, "enqueue", "(Lokhttp3/Callback;)V"),
                HookPoint.exit(OkHttpHooks.CANCEL, REAL_CALL, "cancel", "()V"),
                HookPoint.exit(OkHttpHooks.CANCEL_ALL, DISPATCHER, "cancelAll", "()V"),
                HookPoint.entryMayReplace(OkHttpHooks.FOLLOW_UP, FOLLOW_UP_INTERCEPTOR, "followUpRequest",
                        "(Lokhttp3/Response;Lokhttp3/internal/connection/Exchange;)Lokhttp3/Request;"),
                HookPoint.entryMayReplace(OkHttpHooks.FOLLOW_UP, FOLLOW_UP_INTERCEPTOR, "followUpRequest",
                        "(Lokhttp3/Response;Lokhttp3/internal/connection/Exchange;Lokhttp3/Interceptor$Chain;)"
                                + "Lokhttp3/Request;"),
                HookPoint.entryMayReplace(OkHttpHooks.RECOVER, FOLLOW_UP_INTERCEPTOR, "recover",
                        "(Ljava/io/IOException;Lokhttp3/internal/connection/RealCall;Lokhttp3/Request;Z)Z"),
                HookPoint.entryMayReplace(OkHttpHooks.RECOVER, FOLLOW_UP_INTERCEPTOR, "recover",
                        "(Ljava/io/IOException;Lokhttp3/internal/connection/RealCall;Lokhttp3/Request;)Z"),
                HookPoint.entryMayReplace(OkHttpHooks.RECOVER, FOLLOW_UP_INTERCEPTOR, "recover",
                        "(Ljava/io/IOException;Lokhttp3/internal/connection/RealCall;Lokhttp3/Interceptor$Chain;"
                                + "Lokhttp3/Request;)Z"),
                HookPoint.entry(OkHttpHooks.WRITE_REQUEST, HTTP1_CODEC, "writeRequestHeaders", "(Lokhttp3/Request;)V"),
                HookPoint.entry(OkHttpHooks.WRITE_REQUEST, HTTP2_CODEC, "writeRequestHeaders", "(Lokhttp3/Request;)V"));
    }

    /**
     * Opens {@link #PEER_CLOSED_CHECK_PACKAGES}; where that fails, OkHttp's resend of a request written to a pooled
     * connection its server had closed is taken over under {@code replace} like any resend (logged once).
     */
    @Override
    public boolean prepare(Instrumentation inst) {
        try {
            if (!JavaBaseAccess.open(inst, PeerClosedCheck.class, PEER_CLOSED_CHECK_PACKAGES, PEER_CLOSED_CHECK_PACKAGES)) {
                RetryLog.agent(Level.INFO, "peer-closed-check client=" + ClientNames.OKHTTP + " reason=java.base-not-opened"
                        + "; a request written to a pooled connection its server had closed is not resent under replace");
            }
        } catch (Exception e) {
            RetryLog.agent(Level.INFO, "peer-closed-check client=" + ClientNames.OKHTTP + " error=" + e.getClass().getName()
                    + "; a request written to a pooled connection its server had closed is not resent under replace");
        }
        return true;
    }
}
