package dev.retryagent.agent.clients.okhttp;

import dev.retryagent.agent.bootloader.runtime.Failures;
import dev.retryagent.agent.bootloader.runtime.InjectedFaults;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.Exchange;
import dev.retryagent.engine.Outcome;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.ClientNames;
import dev.retryagent.policy.FailureKind;
import java.io.IOException;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;

/** One sync OkHttp call as the retry loop sees it: each attempt is a {@code chain.proceed()}. */
final class OkHttpSyncExchange implements Exchange<Response> {
    private final Interceptor.Chain chain;
    private final Request request;
    private final String markerHeader;
    /** The last attempt ran with timeouts the agent shortened to its limit. */
    private boolean shortened;

    OkHttpSyncExchange(Interceptor.Chain chain, Request request, String markerHeader) {
        this.chain = chain;
        this.request = request;
        this.markerHeader = markerHeader;
    }

    @Override
    public Response send(int attempt, String marker, long limitMillis) throws IOException {
        Interceptor.Chain bounded = chain;
        shortened = false;
        try {
            bounded = OkHttpRequests.bounded(chain, limitMillis);
            shortened = OkHttpRequests.shortensRead(chain, limitMillis);
        } catch (RuntimeException e) {
            RetryLog.internalError(ClientNames.OKHTTP + ".attempt-timeout", e); // the client's own timeouts alone
        }
        return send(bounded, marker);
    }

    @Override
    public Response send(int attempt, String marker) throws IOException {
        shortened = false;
        return send(chain, marker);
    }

    private Response send(Interceptor.Chain chain, String marker) throws IOException {
        try {
            return chain.proceed(OkHttpRequests.marked(request, markerHeader, marker));
        } catch (IOException e) {
            OkHttpRequests.noteFailure(chain.call(), e);
            throw e;
        }
    }

    @Override
    public Outcome outcome(Response response) {
        InjectedFaults.at(ClientNames.OKHTTP + ".outcome");
        return Outcome.status(response.code(), response.header("Retry-After"));
    }

    @Override
    public CallFacts decidedUnder(CallFacts call, Response response) {
        return OkHttpRequests.decidedUnder(call, request.url(), response);
    }

    @Override
    public FailureKind classify(IOException failure) {
        InjectedFaults.at(ClientNames.OKHTTP + ".classify");
        return OkHttpRequests.classify(failure, chain.call());
    }

    @Override
    public boolean unsent(IOException failure, FailureKind kind) {
        return OkHttpRequests.unsent(failure, kind);
    }

    /** OkHttp's call timeout: it times the whole call, and the agent's attempts and waits run inside it. */
    @Override
    public long callerLimitMillis() {
        return OkHttpRequests.callTimeoutMillis(chain.call());
    }

    @Override
    public boolean cutShort(IOException failure) {
        return Failures.cutShort(failure, shortened);
    }

    @Override
    public void discard(Response response) {
        OkHttpRequests.discard(response);
    }
}
