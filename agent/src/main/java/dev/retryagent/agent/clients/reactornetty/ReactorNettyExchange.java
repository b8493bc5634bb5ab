package dev.retryagent.agent.clients.reactornetty;

import dev.retryagent.agent.bootloader.runtime.CarriedFailure;
import dev.retryagent.agent.bootloader.runtime.OpenTelemetryTracer;
import dev.retryagent.engine.AsyncAttempt;
import dev.retryagent.engine.AsyncExchange;
import dev.retryagent.engine.AsyncRetryLoop;
import dev.retryagent.engine.AttemptScope;
import dev.retryagent.engine.CallCompletion;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.CallTrace;
import dev.retryagent.engine.LayerRetries;
import dev.retryagent.engine.Outcome;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.ClientNames;
import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Policy;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.netty.Connection;
import reactor.netty.channel.ChannelOperations;
import reactor.netty.http.HttpOperations;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.client.HttpClientRequest;
import reactor.netty.http.client.HttpClientResponse;
import reactor.util.context.Context;

/**
 * One subscription to a {@link RetryingConnect}: one call, as the async retry loop sees it, and the subscription the
 * application holds. Each attempt is a subscription to the request ({@link Attempt}); the loop's retries start on the
 * agent's scheduler thread, once the wait is over.
 *
 * <p>The call's facts are read when its first attempt's request is ready, its headers set: when it sends its body
 * ({@link #bodySent}) or else when its head is written ({@link #headersOut}); that is also when the call is handed to
 * the loop. A first attempt that fails before that (a refused connection) is handed over with the facts the client's
 * configuration gives, and it never left. The marker and the attempt's {@code responseTimeout} go on each attempt's
 * request at that same moment.
 *
 * <p>The application's subscription is answered once: the response the loop delivers, or its failure (unwrapped when it
 * was no {@code IOException}). Its cancel ({@code dispose()}, a {@code timeout()} operator, a {@code block()} that gives
 * up) cancels the attempt in flight, and no attempt starts after it.
 */
final class ReactorNettyExchange implements AsyncExchange<Connection>, CallCompletion<Connection>, Subscription {
    /** The key under which an attempt's subscriber carries its {@link Attempt} in the Reactor {@code Context}. */
    static final String ATTEMPT_KEY = "dev.retryagent.reactor-netty.attempt";

    /** The most of a dropped response's body read to its end, in bytes (a retried 503's is a few hundred). */
    private static final long DRAINED_AT_MOST = 1L << 20;

    private static final AtomicIntegerFieldUpdater<ReactorNettyExchange> STARTED =
            AtomicIntegerFieldUpdater.newUpdater(ReactorNettyExchange.class, "started");

    private final AsyncRetryLoop loop;
    private final HttpClient client;
    private final Mono<? extends Connection> request;
    private final CoreSubscriber<? super Connection> actual;
    /** The attempt of another call this one is made inside (its subscriber's Context, else this thread), or 0. */
    private final int enclosing;
    /** The retry operator above this call in its subscriber chain, or null. */
    private final LayerRetries upperLayer;
    /** The trace context current where the call was subscribed, for its hand-over on the event loop; or null. */
    private final Object traceContext;
    private volatile int started;
    private volatile boolean cancelled;
    /** The loop runs the call (or was asked to): set by the first attempt's head or failure. */
    private volatile boolean handedOver;
    /** The attempt in flight, or the last one. */
    private volatile Attempt current;
    /** The marker header's name under the policy the call's facts were read under, or null. */
    private volatile String markerHeader;
    /** The url the call's facts were read from: a response from another one followed a redirect. */
    private volatile String factsUrl;

    ReactorNettyExchange(AsyncRetryLoop loop, HttpClient client, Mono<? extends Connection> request,
                         CoreSubscriber<? super Connection> actual) {
        this.loop = loop;
        this.client = client;
        this.request = request;
        this.actual = actual;
        Object outer = actual.currentContext().getOrDefault(ATTEMPT_KEY, null);
        this.enclosing = outer instanceof Attempt ? ((Attempt) outer).scope : AttemptScope.current();
        this.upperLayer = ReactorNettyRequests.retryOperatorAbove(actual);
        this.traceContext = OpenTelemetryTracer.currentContext();
    }

    void start() {
        actual.onSubscribe(this);
    }

    // ---- the application's subscription ----

    /** The first demand starts the first attempt: nothing is sent before the application asks. */
    @Override
    public void request(long n) {
        if (n > 0 && STARTED.compareAndSet(this, 0, 1) && !cancelled) {
            Attempt first = new Attempt(this, 1);
            current = first;
            request.subscribe(first);
        }
    }

    @Override
    public void cancel() {
        cancelled = true;
        Attempt inFlight = current;
        if (inFlight != null) {
            inFlight.cancel();
        }
    }

    // ---- the loop's exchange ----

    @Override
    public void send(int attempt, int scope, String marker, AsyncAttempt<Connection> handle) {
        send(attempt, scope, marker, 0, handle);
    }

    @Override
    public void send(int attempt, int scope, String marker, long limitMillis, AsyncAttempt<Connection> handle) {
        if (attempt == 1) {
            // In flight already: its head is being written, or it failed before that (reported now).
            Attempt first = current;
            first.prepare(handle, scope, marker, limitMillis);
            if (first.failedBeforeHandover != null) {
                handle.failed(first.failedBeforeHandover);
            }
            return;
        }
        Attempt next = new Attempt(this, attempt);
        next.prepare(handle, scope, marker, limitMillis);
        current = next;
        if (cancelled) {
            handle.failed(new IOException("Canceled"));
            return;
        }
        request.subscribe(next);
    }

    @Override
    public Outcome outcome(Connection response) {
        HttpClientResponse head = (HttpClientResponse) response;
        return Outcome.status(head.status().code(), head.responseHeaders().get("Retry-After"));
    }

    @Override
    public FailureKind classify(IOException failure) {
        return ReactorNettyRequests.classify(failure);
    }

    /** A connect failure, or any failure before the attempt's head was written: the request never left. */
    @Override
    public boolean unsent(IOException failure, FailureKind kind) {
        Attempt failed = current;
        return kind == FailureKind.CONNECT || (failed != null && !failed.headersSent);
    }

    @Override
    public boolean cutShort(IOException failure) {
        Attempt failed = current;
        return failed != null && failed.shortened && ReactorNettyRequests.isResponseTimeout(failure);
    }

    /** Reactor Netty follows redirects inside an attempt: a response from elsewhere is decided under where it came from. */
    @Override
    public CallFacts decidedUnder(CallFacts call, Connection response) {
        String url = ((HttpClientResponse) response).resourceUrl();
        if (url == null || url.equals(factsUrl)) {
            return call;
        }
        ReactorNettyRequests.Url where = ReactorNettyRequests.Url.parse(url);
        return where == null ? call : call.redirectedTo(where.scheme, where.host, where.port, where.path);
    }

    /** Nothing here: a response the loop drops is read to its end where it arrived ({@link #drain}). */
    @Override
    public void discard(Connection response) {
    }

    @Override
    public boolean isCancelled() {
        return cancelled;
    }

    // ---- the call's end, towards the application ----

    @Override
    public void onResponse(Connection response) {
        if (cancelled) {
            drain(response, null);
            return;
        }
        actual.onNext(response);
        actual.onComplete();
    }

    @Override
    public void onFailure(IOException failure) {
        if (!cancelled) {
            actual.onError(failure instanceof CarriedFailure ? failure.getCause() : failure);
        }
    }

    // ---- the attempts' events ----

    /** {@code ops}'s head is about to be written: the request is readied, if its body did not do that already. */
    static void headersOut(ChannelOperations<?, ?> ops) {
        Attempt attempt = attemptOf(ops);
        if (attempt != null && !((HttpOperations<?, ?>) ops).hasSentHeaders()) {
            attempt.call.ready(attempt, (HttpClientRequest) ops);
            attempt.headersSent = true;
        }
    }

    /**
     * {@code ops} is to send {@code body}: a body a resubscription may not send again makes the call's body one-shot.
     * Returns the body to send instead, which readies the request when it is subscribed, or null to send {@code body}
     * as it is (no attempt of the loop's). By then the request's headers are set wherever the application sets them
     * (a send function before it sends; a {@code WebClient} when it commits, just before its body is subscribed), and a
     * call the body makes comes after: it is nested in an attempt the loop already runs, even when the body goes out
     * before the head (a {@code Mono} body is written with it).
     */
    static Publisher<?> bodySent(final ChannelOperations<?, ?> ops, Publisher<?> body) {
        final Attempt attempt = attemptOf(ops);
        if (attempt == null || body == null) {
            return null;
        }
        if (!ReactorNettyRequests.replayable(body)) {
            attempt.bodyNotReplayable = true;
        }
        Runnable ready = new Runnable() {
            @Override
            public void run() {
                if (!((HttpOperations<?, ?>) ops).hasSentHeaders()) {
                    attempt.call.ready(attempt, (HttpClientRequest) ops);
                }
            }
        };
        return body instanceof Mono ? new ReadiedBody.OfMono<Object>(ready, (Mono<?>) body)
                : new ReadiedBody.OfFlux<Object>(ready, body);
    }

    /**
     * Readies the request {@code ops} of {@code attempt}: for the first attempt, the call's facts are read from it and
     * the call is handed to the loop; then the attempt's marker and limit go on it. Again for the same request (its
     * body, then its head) or a redirect's, the same values are set again.
     */
    private void ready(Attempt attempt, HttpClientRequest ops) {
        if (attempt.number == 1 && !handedOver) {
            handedOver = true;
            CallFacts facts = read(attempt, ops);
            if (facts != null) {
                handOver(facts);
            }
        }
        String marker = attempt.marker;
        String header = markerHeader;
        if (marker != null && header != null) {
            ops.requestHeaders().set(header, marker);
        }
        if (attempt.limitMillis > 0 && ReactorNettyRequests.bound(ops, attempt.limitMillis)) {
            attempt.shortened = true;
        }
    }

    private static Attempt attemptOf(ChannelOperations<?, ?> ops) {
        Object attempt = ops.currentContext().getOrDefault(ATTEMPT_KEY, null);
        return attempt instanceof Attempt ? (Attempt) attempt : null;
    }

    /** The facts of the request {@code ops} is about to send; null (logged) when they cannot be read. */
    private CallFacts read(Attempt attempt, HttpClientRequest ops) {
        try {
            String url = ops.resourceUrl();
            CallFacts facts = ReactorNettyRequests.facts(ops.method().name(), url, ops.requestHeaders(),
                    !attempt.bodyNotReplayable, upperLayer);
            factsUrl = url;
            return facts;
        } catch (RuntimeException e) {
            RetryLog.internalError(ClientNames.REACTOR_NETTY + ".facts", e);
            return null;
        }
    }

    /**
     * The loop runs the call from here, nested in {@link #enclosing} if that is an attempt, and traced in the context
     * it was subscribed in.
     */
    private void handOver(CallFacts facts) {
        Policy policy = facts.policy();
        markerHeader = policy == null ? null : policy.markerHeader();
        int outer = AttemptScope.enter(enclosing);
        CallTrace.Scope traced = OpenTelemetryTracer.makeCurrent(traceContext);
        try {
            loop.execute(facts, this, this);
        } finally {
            if (traced != null) {
                traced.close();
            }
            AttemptScope.exit(outer);
        }
    }

    private void arrived(Attempt attempt, Connection response) {
        AsyncAttempt<Connection> handle = attempt.handle;
        if (handle == null) {
            onResponse(response); // the loop does not run the call: as the client produced it
            return;
        }
        if (!handle.arrived(response)) {
            drain(response, handle);
        }
    }

    private void failed(Attempt attempt, Throwable error) {
        IOException failure = error instanceof IOException ? (IOException) error : new CarriedFailure(error);
        AsyncAttempt<Connection> handle = attempt.handle;
        if (handle != null) {
            handle.failed(failure);
            return;
        }
        if (attempt.number == 1 && !handedOver) {
            handedOver = true;
            CallFacts facts = configured();
            if (facts != null) {
                attempt.failedBeforeHandover = failure;
                handOver(facts);
                return;
            }
        }
        onFailure(failure);
    }

    /** The facts the client's configuration gives, for a first attempt that failed before its head was written. */
    private CallFacts configured() {
        try {
            return ReactorNettyRequests.configuredFacts(client.configuration(), upperLayer);
        } catch (RuntimeException e) {
            RetryLog.internalError(ClientNames.REACTOR_NETTY + ".facts", e);
            return null;
        }
    }

    private void emptied(Attempt attempt) {
        AsyncAttempt<Connection> handle = attempt.handle;
        if ((handle == null || handle.handOver()) && !cancelled) {
            actual.onComplete();
        }
    }

    /**
     * Reads the body of {@code response}, which nobody will see, to its end, so that its stream ends as the server sent
     * it (an HTTP/2 stream reset instead, while the server still reads the request's body, makes the server close the
     * connection, and the next attempt with it) and its connection goes back to the pool; then the attempt is
     * {@code finished}. A body longer than {@link #DRAINED_AT_MOST} is not read on: cut off, as Reactor Netty's own
     * {@code discard()} does.
     */
    private static void drain(Connection response, final AsyncAttempt<Connection> finished) {
        try {
            ((ChannelOperations<?, ?>) response).receive().subscribe(new BaseSubscriber<ByteBuf>() {
                private long read;

                @Override
                protected void hookOnNext(ByteBuf chunk) {
                    read += chunk.readableBytes(); // released by Reactor Netty once this returns
                    if (read > DRAINED_AT_MOST) {
                        cancel();
                    }
                }

                @Override
                protected void hookFinally(SignalType type) {
                    if (finished != null) {
                        finished.finished();
                    }
                }
            });
        } catch (RuntimeException e) {
            RetryLog.internalError(ClientNames.REACTOR_NETTY + ".discard", e);
            if (finished != null) {
                finished.finished();
            }
        }
    }

    /**
     * One attempt: a subscription to the request, whose Reactor {@code Context} carries this attempt, so that the hooks
     * on its connection find it and calls made inside its pipeline are nested in it.
     */
    static final class Attempt implements CoreSubscriber<Connection> {
        final ReactorNettyExchange call;
        final int number;
        private volatile AsyncAttempt<Connection> handle;
        /** The attempt's number for calls made inside it, or 0 when it opens no scope. */
        private volatile int scope;
        private volatile String marker;
        private volatile long limitMillis;
        private volatile Subscription upstream;
        private Context context;
        /** Set on the attempt's event loop thread, read by the loop's decision on that same thread. */
        volatile boolean headersSent;
        volatile boolean shortened;
        volatile boolean bodyNotReplayable;
        /** The first attempt's failure before the call was handed to the loop, reported when it is. */
        volatile IOException failedBeforeHandover;
        private volatile boolean ended;

        Attempt(ReactorNettyExchange call, int number) {
            this.call = call;
            this.number = number;
        }

        void prepare(AsyncAttempt<Connection> handle, int scope, String marker, long limitMillis) {
            this.scope = scope;
            this.marker = marker;
            this.limitMillis = limitMillis;
            this.handle = handle;
        }

        @Override
        public Context currentContext() {
            Context c = context;
            if (c == null) {
                c = call.actual.currentContext().put(ATTEMPT_KEY, this);
                context = c;
            }
            return c;
        }

        @Override
        public void onSubscribe(Subscription s) {
            upstream = s;
            if (call.cancelled) {
                s.cancel();
            } else {
                s.request(Long.MAX_VALUE);
            }
        }

        @Override
        public void onNext(Connection response) {
            ended = true;
            call.arrived(this, response);
        }

        @Override
        public void onError(Throwable error) {
            ended = true;
            call.failed(this, error);
        }

        @Override
        public void onComplete() {
            if (!ended) {
                ended = true;
                call.emptied(this);
            }
        }

        /** The application cancelled: the request in flight is cancelled, and its run told so. */
        void cancel() {
            Subscription s = upstream;
            if (s != null) {
                s.cancel();
            }
            AsyncAttempt<Connection> h = handle;
            if (h != null && !ended) {
                h.failed(new IOException("Canceled"));
            }
        }
    }
}
