package dev.retryagent.agent.clients.okhttp;

import dev.retryagent.agent.bootloader.runtime.Failures;
import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.runtime.InjectedFaults;
import dev.retryagent.engine.AsyncAttempt;
import dev.retryagent.engine.AsyncExchange;
import dev.retryagent.engine.AttemptScope;
import dev.retryagent.engine.CallCompletion;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.CallPlan;
import dev.retryagent.engine.Outcome;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.ClientNames;
import dev.retryagent.policy.FailureKind;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Dispatcher;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;

/**
 * One async OkHttp call ({@code Call.enqueue}) as the async retry loop sees it. Attempt 1 is the
 * application's own call, enqueued as the application asked; every later attempt is a {@code clone()} of it,
 * enqueued by the scheduler thread when the wait is over. Each attempt is registered with its marker so that
 * {@link RetryInterceptor} runs it exactly once, on OkHttp's dispatcher, without retrying or waiting there.
 * The application's callback fires once, with the application's call, from {@link Delivery}. The registry of the
 * attempts in flight and of the application's calls the loop runs is kept here too, for the interceptor and the
 * cancel hooks.
 */
final class OkHttpAsyncExchange implements AsyncExchange<Response> {
    /**
     * The calls that are attempts of the async loop, with the marker to send: the interceptor runs each of
     * them exactly once. Weak keys: an entry goes when its call is collected.
     */
    private static final Map<Call, AttemptMarker> ATTEMPTS =
            Collections.synchronizedMap(new WeakHashMap<Call, AttemptMarker>());
    /** The application's async calls that the loop is running, until their callback has fired. */
    private static final Map<Call, OkHttpAsyncExchange> RUNNING =
            Collections.synchronizedMap(new WeakHashMap<Call, OkHttpAsyncExchange>());

    private final Call call;
    private final String markerHeader;
    /** The dispatcher of the application's call's client, whose {@code cancelAll()} cancels this call too. */
    private final Dispatcher dispatcher;
    /** When the application's call was enqueued: its call timeout runs from about then. */
    private final long startNanos = System.nanoTime();
    /** The attempt in flight: the application's call, then each clone. */
    private volatile Call inFlight;
    /** What the interceptor ran the attempt in flight with. */
    private volatile AttemptMarker inFlightMarker;

    OkHttpAsyncExchange(Call call, String markerHeader, Dispatcher dispatcher) {
        this.call = call;
        this.markerHeader = markerHeader;
        this.dispatcher = dispatcher;
    }

    boolean runsOn(Dispatcher d) {
        return dispatcher == d;
    }

    @Override
    public void send(int attempt, int scope, String marker, AsyncAttempt<Response> handle) {
        send(attempt, scope, marker, 0, handle);
    }

    @Override
    public void send(int attempt, int scope, String marker, long limitMillis, AsyncAttempt<Response> handle) {
        Call attemptCall = attempt == 1 ? call : call.clone();
        if (attempt > 1) {
            timeRest(attemptCall);
        }
        AttemptMarker attemptMarker = new AttemptMarker(markerHeader, marker, scope, limitMillis, handle.call(),
                handle.plan());
        markAttempt(attemptCall, attemptMarker);
        inFlightMarker = attemptMarker;
        inFlight = attemptCall;
        AttemptListener listener = new AttemptListener(handle);
        if (attempt == 1) {
            // The application's own enqueue: whatever it throws ("Already Executed", ...) is the application's.
            attemptCall.enqueue(listener);
            return;
        }
        if (call.isCanceled()) {
            // Cancelled since the loop looked; cancelInFlight() may not have seen this clone.
            handle.failed(new IOException("Canceled"));
            return;
        }
        try {
            attemptCall.enqueue(listener);
        } catch (RuntimeException e) {
            // The dispatcher refused the clone: the application still gets exactly one callback.
            handle.failed(new IOException("retry-agent: attempt " + attempt + " could not be enqueued", e));
        }
    }

    @Override
    public Outcome outcome(Response response) {
        InjectedFaults.at(ClientNames.OKHTTP + ".outcome");
        return Outcome.status(response.code(), response.header("Retry-After"));
    }

    @Override
    public CallFacts decidedUnder(CallFacts call, Response response) {
        return OkHttpRequests.decidedUnder(call, this.call.request().url(), response);
    }

    @Override
    public FailureKind classify(IOException failure) {
        InjectedFaults.at(ClientNames.OKHTTP + ".classify");
        return OkHttpRequests.classify(failure, inFlight);
    }

    @Override
    public boolean unsent(IOException failure, FailureKind kind) {
        return OkHttpRequests.unsent(failure, kind);
    }

    /**
     * A clone gets the client's whole call timeout anew: it gets what is left of the application's call's instead, so
     * that the call timeout still times the call as a whole (fail open: the clone's own is left).
     */
    private void timeRest(Call clone) {
        try {
            long timeout = call.timeout().timeoutNanos();
            if (timeout > 0) {
                long left = timeout - (System.nanoTime() - startNanos);
                clone.timeout().timeout(Math.max(1, left), TimeUnit.NANOSECONDS);
            }
        } catch (RuntimeException e) {
            RetryLog.internalError(ClientNames.OKHTTP + ".call-timeout", e);
        }
    }

    /** OkHttp's call timeout: a deadline of the whole call, across the clones that are its attempts. */
    @Override
    public long callerLimitMillis() {
        return OkHttpRequests.callTimeoutMillis(call);
    }

    @Override
    public boolean cutShort(IOException failure) {
        AttemptMarker marker = inFlightMarker;
        return marker != null && Failures.cutShort(failure, marker.shortened);
    }

    @Override
    public void discard(Response response) {
        OkHttpRequests.discard(response);
    }

    @Override
    public boolean isCancelled() {
        Call current = inFlight;
        return call.isCanceled() || (current != null && current.isCanceled());
    }

    /** The application cancelled its call: cancel the clone in flight (the call itself is cancelled already). */
    void cancelInFlight() {
        Call current = inFlight;
        if (current != null && current != call) {
            current.cancel();
        }
    }

    // ---- the async registry ----

    static void markAttempt(Call call, AttemptMarker attempt) {
        anyMarked = true; // before the entry: whoever finds the entry then sees the flag too
        ATTEMPTS.put(call, attempt);
    }

    /**
     * True once any call was marked: until then every call is a sync one and {@link #attemptOf} answers without
     * the map's lock, which every interceptor run on every thread would take.
     */
    private static volatile boolean anyMarked;

    /**
     * The attempt {@code call} ran (its interceptor run is over: OkHttp calls back after it): its entry goes now
     * rather than when the call is collected, so that the map, which only loses entries at garbage collection
     * otherwise, does not grow by one entry per call between collections and keep resizing. A call runs once: a
     * second {@code enqueue} of it is OkHttp's "Already Executed", whether it is marked or not.
     */
    static void attemptDone(Call call) {
        ATTEMPTS.remove(call);
    }

    /** The marker of {@code call} if it is an attempt of the async loop, else null. */
    static AttemptMarker attemptOf(Call call) {
        return anyMarked ? ATTEMPTS.get(call) : null;
    }

    static void running(Call applicationCall, OkHttpAsyncExchange exchange) {
        RUNNING.put(applicationCall, exchange);
    }

    static void finished(Call applicationCall) {
        RUNNING.remove(applicationCall);
    }

    /** The application's calls the loop is running whose client has {@code dispatcher}. */
    static List<Call> runningOn(Dispatcher dispatcher) {
        List<Call> calls = new ArrayList<Call>();
        synchronized (RUNNING) {
            for (Map.Entry<Call, OkHttpAsyncExchange> e : RUNNING.entrySet()) {
                if (e.getKey() != null && e.getValue().runsOn(dispatcher)) {
                    calls.add(e.getKey());
                }
            }
        }
        return calls;
    }

    /** {@code call.cancel()} was called: if the loop runs it, cancel the attempt in flight too. */
    static void cancelled(Call call) {
        OkHttpAsyncExchange exchange = RUNNING.get(call);
        if (exchange != null) {
            exchange.cancelInFlight();
        }
    }

    /**
     * One attempt: the marker header's name and value, or neither, and for an attempt of the async loop the number
     * the thread that runs it is marked with ({@code AttemptScope}), so that calls made inside it are nested.
     */
    static final class AttemptMarker implements AttemptScope.RunningCall {
        static final AttemptMarker UNMARKED = new AttemptMarker(null, null, 0, 0, null, null);

        final String header;
        final String value;
        /** The attempt's number for {@code AttemptScope}, or 0 when it opens no scope (a call in mode off). */
        final int scope;
        /** The most the attempt may take (the policy's limit), or 0 for the client's own timeouts alone. */
        final long limitMillis;
        /** The facts and plan of the call this is an attempt of, or null when the loop leaves the call alone. */
        final CallFacts call;
        final CallPlan plan;
        /** Set by the interceptor: the attempt ran with timeouts shortened to {@link #limitMillis}. */
        volatile boolean shortened;

        AttemptMarker(String header, String value, int scope, long limitMillis, CallFacts call, CallPlan plan) {
            this.header = header;
            this.value = value;
            this.scope = scope;
            this.limitMillis = limitMillis;
            this.call = call;
            this.plan = plan;
        }

        @Override
        public CallFacts call() {
            return call;
        }

        @Override
        public CallPlan plan() {
            return plan;
        }

        Request apply(Request request) {
            return OkHttpRequests.marked(request, header, value);
        }

        /** {@code chain} with this attempt's limit on its timeouts. */
        Interceptor.Chain bound(Interceptor.Chain chain) {
            try {
                Interceptor.Chain bounded = OkHttpRequests.bounded(chain, limitMillis);
                shortened = OkHttpRequests.shortensRead(chain, limitMillis);
                return bounded;
            } catch (RuntimeException e) {
                RetryLog.internalError(ClientNames.OKHTTP + ".attempt-timeout", e); // the client's own timeouts alone
                return chain;
            }
        }
    }

    /**
     * Hands each attempt's OkHttp callback to the loop. A response the loop does not deliver it releases itself
     * ({@link #discard}), before the attempt counts as finished.
     */
    static final class AttemptListener implements Callback {
        private final AsyncAttempt<Response> attempt;

        AttemptListener(AsyncAttempt<Response> attempt) {
            this.attempt = attempt;
        }

        @Override
        public void onFailure(Call attemptCall, IOException e) {
            attemptDone(attemptCall);
            attempt.failed(e);
        }

        @Override
        public void onResponse(Call attemptCall, Response response) {
            attemptDone(attemptCall);
            try {
                // An IOException of the application's callback passes through unchanged (see Delivery), and
                // OkHttp reports it as it would have without the agent.
                attempt.arrived(response);
            } finally {
                attempt.finished();
            }
        }
    }

    /** Delivers the call's final response or failure to the application's callback, with its own call. */
    static final class Delivery implements CallCompletion<Response> {
        private final Call call;
        private final Callback application;

        Delivery(Call call, Callback application) {
            this.call = call;
            this.application = application;
        }

        @Override
        public void onResponse(Response response) {
            finished(call);
            try {
                application.onResponse(call, response);
            } catch (IOException e) {
                throw Hooks.<RuntimeException>sneaky(e);
            }
        }

        @Override
        public void onFailure(IOException failure) {
            finished(call);
            application.onFailure(call, failure);
        }
    }
}
