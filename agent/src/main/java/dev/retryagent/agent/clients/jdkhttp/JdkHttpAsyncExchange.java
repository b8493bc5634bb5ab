package dev.retryagent.agent.clients.jdkhttp;

import dev.retryagent.agent.bootloader.runtime.CarriedFailure;
import dev.retryagent.agent.bootloader.runtime.InjectedFaults;
import dev.retryagent.engine.AsyncAttempt;
import dev.retryagent.engine.AsyncExchange;
import dev.retryagent.engine.AttemptScope;
import dev.retryagent.engine.CallCompletion;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.Outcome;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.ClientNames;
import dev.retryagent.policy.FailureKind;
import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.security.AccessControlContext;
import java.security.AccessController;
import java.security.PrivilegedAction;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.BiConsumer;

/**
 * One {@code send} or {@code sendAsync} call as the async retry loop sees it. Each attempt is a whole
 * {@code send}/{@code sendAsync} of the application's request (or of a copy carrying the marker header) with a
 * {@code BodyHandler} of the agent's ({@link AttemptHandler}), which the client applies when the final response
 * head of the attempt has arrived: that is where the attempt is reported to the loop, which decides at once whether
 * the application's own handler gets this response (it then reads the body as it would without the agent) or the
 * body is read to its end and dropped ({@code BodySubscribers.discarding()}: the connection goes back to the pool)
 * while the next attempt waits. The next attempt starts only once the discarded one has finished.
 *
 * <p>{@code sendAsync}: the waits are scheduled on the agent's scheduler thread; later attempts are started from it
 * with {@code sendAsync}, which hands the exchange to the client's executor at once. {@code send}: every attempt is
 * what the client's {@code send} does, its exchange run on the caller's thread until it waits there for its end, and
 * the waits are slept there too ({@link CallerThreadScheduler}).
 *
 * <p>What the application gets is the client's own: the last attempt's failure as the client's future held it
 * ({@link #asTheClientHeldIt}), and its response, in a view answering {@code request()} as the client alone would
 * when the attempt sent a copy ({@link ApplicationResponse}).
 */
final class JdkHttpAsyncExchange implements AsyncExchange<ResponseHead> {
    private final JdkHttpApi api;
    private final Object client;
    /** The application's {@code HttpClient}, held until the call ends ({@link JdkHttpApi#facade}). */
    @SuppressWarnings("unused")
    private final Object facade;
    private final Object request;
    private final Object applicationHandler;
    private final String markerHeader;
    private final boolean async;
    /** Whether the client's own resend after an expired connection is off for this call's attempts. */
    final boolean replacesBuiltInRetries;
    /**
     * The attempt from which the client's own connect retry stays on: before it, the agent retries a refused
     * connection itself ({@link dev.retryagent.engine.CallPlan#lastAttemptRetriedUnsent}).
     */
    final int lastAttemptRetriedUnsent;
    /** What the application gets: completed once, with the delivered attempt's response or the last failure. */
    final Result result = new Result();
    private volatile Attempt last;
    /**
     * Under a security manager, the access control context of the application's {@code sendAsync}: the client checks
     * each request against the context of the thread that sends it ({@code URLPermission}), and a retry is sent from
     * the agent's thread or the client's, so it is sent in this one, with what the application's call may do and no
     * more. Null without a security manager.
     */
    private final AccessControlContext caller;

    JdkHttpAsyncExchange(JdkHttpApi api, Object client, Object request, Object applicationHandler, String markerHeader,
                boolean async, boolean replacesBuiltInRetries, int lastAttemptRetriedUnsent) {
        this.api = api;
        this.client = client;
        this.facade = async ? api.facade(client) : null;
        this.request = request;
        this.applicationHandler = applicationHandler;
        this.markerHeader = markerHeader;
        this.async = async;
        this.replacesBuiltInRetries = replacesBuiltInRetries;
        this.lastAttemptRetriedUnsent = lastAttemptRetriedUnsent;
        this.caller = async && System.getSecurityManager() != null ? AccessController.getContext() : null;
    }

    /** The loop's caller: completes {@link #result}. */
    CallCompletion<ResponseHead> delivery() {
        return new Delivery();
    }

    /** The limit of the attempt being started (0: none), and its number, for {@link #start}. */
    private long limitMillis;
    private int attemptNumber;
    /** When the call started: the request's own timeout times the whole call, as the client alone times it. */
    private final long startNanos = System.nanoTime();
    /** The attempt in flight runs with a request timeout the agent shortened to its limit. */
    private volatile boolean shortened;

    /** Attempt {@code attempt}: a copy of the request whose timeout is at most {@code limitMillis}. */
    @Override
    public void send(int attempt, int scope, String marker, long limitMillis, AsyncAttempt<ResponseHead> handle) {
        this.limitMillis = limitMillis;
        send(attempt, scope, marker, handle);
    }

    /**
     * A request timeout of an attempt whose timeout the agent shortened: the policy's limit cut it short (a connect
     * timeout is {@code HttpConnectTimeoutException}, a connect failure).
     */
    /**
     * The request's own timeout: the client alone applies it to the whole {@code send}, its own resends included, so
     * it is a deadline of the call; each attempt gets what is left of it.
     */
    @Override
    public long callerLimitMillis() {
        Duration own = api.timeout(request);
        return own == null ? 0 : Math.max(1, own.toMillis());
    }

    @Override
    public boolean cutShort(IOException failure) {
        return shortened && JdkHttpRequests.isA(failure, "java.net.http.HttpTimeoutException")
                && !JdkHttpRequests.isA(failure, "java.net.http.HttpConnectTimeoutException");
    }

    @Override
    public void send(int attempt, int scope, String marker, AsyncAttempt<ResponseHead> handle) {
        attemptNumber = attempt;
        Attempt current = new Attempt(handle, attempt);
        last = current;
        if (attempt == 1) {
            // The application's own call, on its thread: what the client throws at once is its own (Thrown).
            start(current, scope, marker);
            return;
        }
        // A retry, from the scheduler (or the caller's thread) or from the end of the attempt before. What it throws at
        // once ends it as a failure of its future would, in a CompletionException (asTheClientHeldIt).
        try {
            start(current, scope, marker);
        } catch (JdkHttpApi.Thrown e) {
            current.accept(null, new CompletionException(e.getCause()));
        } catch (RuntimeException e) {
            current.accept(null, new CompletionException(e));
        }
    }

    private void start(Attempt current, int scope, String marker) {
        Object sent = request;
        boolean marked = markerHeader != null && marker != null;
        Duration timeout = null;
        shortened = false;
        try {
            long limit = limitMillis;
            Duration own = api.timeout(request);
            long callerLeft = own == null ? 0
                    : Math.max(1, own.toMillis() - (System.nanoTime() - startNanos) / 1_000_000L);
            boolean policyBinds = limit > 0 && (callerLeft == 0 || limit < callerLeft);
            if (callerLeft > 0 && !policyBinds && attemptNumber > 1) {
                limit = callerLeft; // a retry: the rest of the request's timeout, not the whole of it again
            }
            timeout = limit > 0 ? api.boundedTimeout(request, limit) : null;
            if (marked || timeout != null) {
                sent = api.copy(request, marked ? markerHeader : null, marker, timeout);
                current.added = marked ? markerHeader : null;
                shortened = timeout != null && policyBinds;
            }
        } catch (RuntimeException e) {
            // Fail open: the request goes out as the application made it.
            RetryLog.internalError(ClientNames.JDK_HTTPCLIENT + ".marker", e);
        }
        current.sent = sent;
        Object handler = api.bodyHandler(current);
        if (async) {
            CompletableFuture<?> future = sendAsync(sent, handler);
            current.inFlight = future;
            if (isCancelled()) {
                future.cancel(true);
            }
            future.whenComplete(current);
            return;
        }
        Object response;
        // What runs on the caller's thread during the attempt (the client runs inline until it waits) is inside it.
        int outer = scope > 0 ? AttemptScope.enter(scope) : 0;
        try {
            // As the client's send makes its exchange and waits for it; what that throws at once is the client's own.
            CompletableFuture<?> future = api.sendInline(client, sent, handler);
            current.inFlight = future;
            try {
                response = future.get();
            } catch (ExecutionException e) {
                current.accept(null, e.getCause());
                return;
            } catch (InterruptedException e) {
                future.cancel(true); // as the client's send does: its exchange is aborted, the caller gets e
                current.accept(null, e);
                return;
            }
        } finally {
            if (scope > 0) {
                AttemptScope.exit(outer);
            }
        }
        current.accept(response, null);
    }

    /** {@code sendAsync} of one attempt: a retry in the application's context ({@link #caller}). */
    private CompletableFuture<?> sendAsync(final Object sent, final Object handler) {
        if (caller == null || attemptNumber == 1) {
            return api.sendAsync(client, sent, handler);
        }
        return AccessController.doPrivileged(new PrivilegedAction<CompletableFuture<?>>() {
            @Override
            public CompletableFuture<?> run() {
                return api.sendAsync(client, sent, handler);
            }
        }, caller);
    }

    @Override
    public Outcome outcome(ResponseHead head) {
        InjectedFaults.at(ClientNames.JDK_HTTPCLIENT + ".outcome");
        return Outcome.status(head.status, head.retryAfter);
    }

    @Override
    public FailureKind classify(IOException failure) {
        InjectedFaults.at(ClientNames.JDK_HTTPCLIENT + ".classify");
        if (isCancelled() || failure instanceof CarriedFailure) {
            return FailureKind.OTHER;
        }
        return JdkHttpRequests.classifyFailure(failure);
    }

    /** The client follows redirects inside an attempt: the rule is that of the last hop ({@link LastHop}). */
    @Override
    public CallFacts decidedUnder(CallFacts call, ResponseHead head) {
        return LastHop.decidedUnder(api, call, head.attempt.exchange);
    }

    /**
     * Nothing to do here: an attempt whose head is not delivered got a discarding subscriber when its head arrived
     * ({@link Attempt#invoke}), which reads the body to its end and so gives the connection back.
     */
    @Override
    public void discard(ResponseHead head) {
    }

    @Override
    public boolean isCancelled() {
        return result.isCancelled();
    }

    /**
     * One attempt: its {@code BodyHandler} (a proxy's invocation handler: {@code apply(ResponseInfo)} is the only
     * abstract method) and its end (the attempt's future, or the return of its {@code send}).
     */
    final class Attempt implements InvocationHandler, BiConsumer<Object, Throwable> {
        private final AsyncAttempt<ResponseHead> handle;
        /** The attempt's number in the call, 1 for the first. */
        final int number;
        volatile CompletableFuture<?> inFlight;
        /** The client's {@code MultiExchange} of this attempt, once it started ({@link LastHop}). */
        volatile Object exchange;
        /** The request this attempt sent: the application's, or a copy with the marker or a shorter timeout. */
        volatile Object sent;
        /** The header the copy sent has more than the application's request, or null. */
        volatile String added;
        /** The attempt's failure as its future held it (what a dependent stage of it gets), before unwrapping. */
        volatile Throwable thrown;

        Attempt(AsyncAttempt<ResponseHead> handle, int number) {
            this.handle = handle;
            this.number = number;
        }

        JdkHttpAsyncExchange call() {
            return JdkHttpAsyncExchange.this;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            if (method.getDeclaringClass() == Object.class) {
                if ("equals".equals(method.getName())) {
                    return proxy == args[0];
                }
                if ("hashCode".equals(method.getName())) {
                    return System.identityHashCode(proxy);
                }
                return "retry-agent BodyHandler of " + applicationHandler;
            }
            if (!"apply".equals(method.getName()) || args == null || args.length != 1) {
                throw new UnsupportedOperationException(method.toString()); // BodyHandler has no other method
            }
            Object info = args[0];
            if (handle.reported()) {
                return api.discarding();
            }
            ResponseHead head;
            try {
                head = new ResponseHead(this, info, api.statusCode(info), api.responseHeader(info, "Retry-After"));
            } catch (RuntimeException e) {
                // Fail open: the application's handler takes this response, as without the agent.
                RetryLog.internalError(ClientNames.JDK_HTTPCLIENT + ".head", e);
                return handle.handOver() ? applyApplication(info) : api.discarding();
            }
            result.lastFailure = null; // an interrupt during the wait that may follow ends the call with no failure
            if (!handle.arrived(head)) { // the loop delivers the head or schedules a retry
                return api.discarding();
            }
            return applyApplication(info);
        }

        private Object applyApplication(Object info) throws Throwable {
            try {
                return api.apply(applicationHandler, info);
            } catch (JdkHttpApi.Thrown e) {
                throw e.getCause(); // the application's handler threw: the client handles it as without the agent
            }
        }

        /** The attempt has ended: its response (delivered or drained) or its failure. */
        @Override
        public void accept(Object response, Throwable failure) {
            Throwable cause = unwrap(failure);
            thrown = failure;
            if (handle.delivered()) {
                result.finish(cause == null ? asAnswering(this, response) : null, cause);
                return;
            }
            if (cause == null) {
                if (handle.handOver()) {
                    // A response the handler was never applied to (not seen from the JDK): it is the application's.
                    result.finish(asAnswering(this, response), null);
                    return;
                }
                handle.finished(); // a discarded body read to its end; the retry already scheduled goes ahead
                return;
            }
            if (!handle.reported()) {
                result.lastFailure = cause;
            }
            // Before the head, the attempt's end; after a discarded head, the end of its body.
            handle.failed(cause instanceof IOException ? (IOException) cause : new CarriedFailure(cause));
        }
    }

    /**
     * {@code failure} as the client's own future would hold it, which is what a dependent stage of the application's
     * ({@code whenComplete}, {@code handle}, {@code exceptionally}) gets: the last attempt's failure exactly as its
     * future held it (the client's {@code sendAsync} future, a stage of the client's, holds a
     * {@code CompletionException} around the cause; a future it returns failed at once, the bare cause); any other in
     * a {@code CompletionException}, as a stage completes with it. {@code get} and {@code join} unwrap it as they
     * unwrap the client's, and so does the client's {@code send}, which waits for {@link #result}.
     */
    private Throwable asTheClientHeldIt(Throwable failure) {
        Attempt a = last;
        Throwable held = a == null ? null : a.thrown;
        if (held != null && unwrap(held) == failure) {
            return held;
        }
        return failure instanceof CompletionException ? failure : new CompletionException(failure);
    }

    /**
     * The response the application gets from {@code attempt}: the client's, or, when the attempt sent a copy of the
     * request, a view of it that answers {@code request()} as the client alone would ({@link ApplicationResponse}).
     */
    private Object asAnswering(Attempt attempt, Object response) {
        Object sent = attempt.sent;
        if (response == null || sent == null || sent == request) {
            return response;
        }
        try {
            return api.response(new ApplicationResponse(api, response, request, sent, attempt.added));
        } catch (RuntimeException e) {
            // Fail open: the application gets the client's response, whose request() is the copy that was sent.
            RetryLog.internalError(ClientNames.JDK_HTTPCLIENT + ".response", e);
            return response;
        }
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Delivers the call's final response or failure to {@link #result}. */
    private final class Delivery implements CallCompletion<ResponseHead> {
        @Override
        public void onResponse(ResponseHead head) {
            // nothing yet: the attempt applies the application's handler, and its end completes the result
        }

        @Override
        public void onFailure(IOException failure) {
            result.finish(null, failure instanceof CarriedFailure ? failure.getCause() : failure);
        }
    }

    /**
     * The future the application gets from {@code sendAsync} (and {@code send} waits for): cancelling it stops
     * further attempts and cancels the one in flight, as cancelling the client's own future aborts its exchange.
     */
    final class Result extends CompletableFuture<Object> {
        volatile Throwable lastFailure;
        /** The failure the call ended with, unwrapped; null while it runs or when it ended with a response. */
        volatile Throwable failure;
        private volatile Runnable onDone;

        void finish(Object response, Throwable failure) {
            if (failure != null) {
                this.failure = failure;
                completeExceptionally(asTheClientHeldIt(failure));
            } else {
                complete(response);
            }
            Runnable r = onDone;
            if (r != null) {
                r.run();
            }
        }

        void onDone(Runnable r) {
            onDone = r;
            if (isDone()) {
                r.run();
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            Attempt a = last;
            CompletableFuture<?> f = a == null ? null : a.inFlight;
            if (f != null) {
                f.cancel(mayInterruptIfRunning);
            }
            Runnable r = onDone;
            if (r != null) {
                r.run();
            }
            return cancelled;
        }
    }
}
