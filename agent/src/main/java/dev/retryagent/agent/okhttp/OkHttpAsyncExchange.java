package dev.retryagent.agent.okhttp;

import dev.retryagent.agent.bootstrap.InjectedFaults;
import dev.retryagent.agent.bootstrap.Hooks;
import dev.retryagent.engine.AsyncAttempt;
import dev.retryagent.engine.AsyncExchange;
import dev.retryagent.engine.AttemptCallback;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.Outcome;
import dev.retryagent.policy.ClientNames;
import dev.retryagent.policy.FailureKind;
import java.io.IOException;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Dispatcher;
import okhttp3.Response;

/**
 * One async OkHttp call ({@code Call.enqueue}) as the async retry loop sees it. Attempt 1 is the
 * application's own call, enqueued as the application asked; every later attempt is a {@code clone()} of it,
 * enqueued by the scheduler thread when the wait is over. Each attempt is registered with its marker so that
 * {@link RetryInterceptor} runs it exactly once, on OkHttp's dispatcher, without retrying or waiting there.
 * The application's callback fires once, with the application's call, from {@link Delivery}.
 */
final class OkHttpAsyncExchange implements AsyncExchange<Response> {
    private final Call call;
    private final String markerHeader;
    /** The dispatcher of the application's call's client, whose {@code cancelAll()} cancels this call too. */
    private final Dispatcher dispatcher;
    /** The attempt in flight: the application's call, then each clone. */
    private volatile Call inFlight;

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
        Call attemptCall = attempt == 1 ? call : call.clone();
        OkHttpRequests.markAttempt(attemptCall, new OkHttpRequests.AttemptMarker(markerHeader, marker, scope));
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
            OkHttpRequests.attemptDone(attemptCall);
            attempt.failed(e);
        }

        @Override
        public void onResponse(Call attemptCall, Response response) {
            OkHttpRequests.attemptDone(attemptCall);
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
    static final class Delivery implements AttemptCallback<Response> {
        private final Call call;
        private final Callback application;

        Delivery(Call call, Callback application) {
            this.call = call;
            this.application = application;
        }

        @Override
        public void onResponse(Response response) {
            OkHttpRequests.finished(call);
            try {
                application.onResponse(call, response);
            } catch (IOException e) {
                throw Hooks.<RuntimeException>sneaky(e);
            }
        }

        @Override
        public void onFailure(IOException failure) {
            OkHttpRequests.finished(call);
            application.onFailure(call, failure);
        }
    }
}
