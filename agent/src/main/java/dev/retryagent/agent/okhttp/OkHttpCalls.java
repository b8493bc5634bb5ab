package dev.retryagent.agent.okhttp;

import dev.retryagent.agent.bootstrap.InjectedFaults;
import dev.retryagent.agent.bootstrap.Failures;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.HeaderLookup;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.policy.ClientNames;
import dev.retryagent.policy.FailureKind;
import java.io.IOException;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import okhttp3.Call;
import okhttp3.HttpUrl;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * OkHttp requests, responses and failures in the engine's terms, and the registry of the calls the async
 * loop runs. Loaded in OkHttp's class loader (see {@link OkHttpInstrumentation}).
 */
final class OkHttpCalls {
    /**
     * The calls that are attempts of the async loop, with the marker to send: the interceptor runs each of
     * them exactly once. Weak keys: an entry goes when its call is collected.
     */
    private static final Map<Call, AttemptMarker> ATTEMPTS =
            Collections.synchronizedMap(new WeakHashMap<Call, AttemptMarker>());
    /** The application's async calls that the loop is running, until their callback has fired. */
    private static final Map<Call, OkHttpAsyncExchange> RUNNING =
            Collections.synchronizedMap(new WeakHashMap<Call, OkHttpAsyncExchange>());

    private OkHttpCalls() {
    }

    /**
     * One attempt: the marker header's name and value, or neither, and for an attempt of the async loop the number
     * the thread that runs it is marked with ({@code AttemptScope}), so that calls made inside it are nested.
     */
    static final class AttemptMarker {
        static final AttemptMarker UNMARKED = new AttemptMarker(null, null, 0);

        final String header;
        final String value;
        /** The attempt's number for {@code AttemptScope}, or 0 when it opens no scope (a call in mode off). */
        final int scope;

        AttemptMarker(String header, String value, int scope) {
            this.header = header;
            this.value = value;
            this.scope = scope;
        }

        Request apply(Request request) {
            return header == null || value == null ? request : request.newBuilder().header(header, value).build();
        }
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
                });
    }

    /** No body, or one OkHttp can write again: neither one-shot nor duplex (SPEC 4.3). */
    static boolean isReplayable(RequestBody body) {
        return body == null || (!body.isOneShot() && !body.isDuplex());
    }

    /** A protocol upgrade (web socket): its response hands the connection over; never retried. */
    static boolean isUpgrade(Request request) {
        return request.header("Upgrade") != null;
    }

    /** How an attempt of {@code call} that failed with {@code failure} failed (SPEC 4.1). */
    static FailureKind classify(IOException failure, Call call) {
        if (call != null && call.isCanceled()) {
            return FailureKind.OTHER; // the application cancelled: whatever the socket said, do not retry
        }
        return classify(failure);
    }

    static FailureKind classify(IOException failure) {
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

    /** Releases a response the caller will never see: closing its body returns or closes the connection. */
    static void discard(Response response) {
        ResponseBody body = response.body();
        if (body != null) {
            body.close();
        }
        InjectedFaults.at(ClientNames.OKHTTP + ".discard");
    }

    // ---- the async registry ----

    static void markAttempt(Call call, AttemptMarker attempt) {
        ATTEMPTS.put(call, attempt);
    }

    /** The marker of {@code call} if it is an attempt of the async loop, else null. */
    static AttemptMarker attemptOf(Call call) {
        return ATTEMPTS.get(call);
    }

    static void running(Call applicationCall, OkHttpAsyncExchange exchange) {
        RUNNING.put(applicationCall, exchange);
    }

    static void finished(Call applicationCall) {
        RUNNING.remove(applicationCall);
    }

    /** {@code call.cancel()} was called: if the loop runs it, cancel the attempt in flight too. */
    static void cancelled(Call call) {
        OkHttpAsyncExchange exchange = RUNNING.get(call);
        if (exchange != null) {
            exchange.cancelInFlight();
        }
    }
}
