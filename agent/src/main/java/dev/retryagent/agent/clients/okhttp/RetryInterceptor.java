package dev.retryagent.agent.clients.okhttp;

import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.engine.AttemptScope;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.engine.RetryLoop;
import java.io.IOException;
import okhttp3.Call;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The application interceptor the agent puts first in every OkHttpClient. Application interceptors may call
 * {@code chain.proceed()} more than once, so a sync call ({@code Call.execute()}) is retried right here by
 * the shared {@link RetryLoop}, on the caller's thread. An attempt of an async call (see
 * {@link OkHttpAsyncExchange}) only gets its marker header and runs once: the async loop retries it, off the
 * dispatcher thread. Calls made further down the chain while an attempt runs (an application interceptor's own
 * call through any instrumented client) are nested: executed once (see {@code AttemptScope}).
 */
public final class RetryInterceptor implements Interceptor {
    static final RetryInterceptor INSTANCE = new RetryInterceptor();

    private RetryInterceptor() {
    }

    @Override
    public Response intercept(Chain chain) throws IOException {
        Request request = chain.request();
        Call call = chain.call();
        OkHttpAsyncExchange.AttemptMarker attempt = OkHttpAsyncExchange.attemptOf(call);
        if (attempt != null) {
            chain = attempt.bound(chain);
            // An attempt of the async loop, run here on a dispatcher thread: the client's hooks further down ask its
            // call's plan, as in a sync attempt.
            AttemptScope.RunningCall outerCall = AttemptScope.attemptOf(attempt);
            try {
                if (attempt.scope <= 0) {
                    return chain.proceed(attempt.apply(request));
                }
                // Calls the rest of the chain makes (an application interceptor's own call) are nested in it.
                int outer = AttemptScope.enter(attempt.scope);
                try {
                    return chain.proceed(attempt.apply(request));
                } catch (IOException e) {
                    // Here the call still holds its connection; the callback comes later.
                    OkHttpRequests.noteFailure(call, e);
                    throw e;
                } finally {
                    AttemptScope.exit(outer);
                }
            } finally {
                AttemptScope.attemptOf(outerCall);
            }
        }
        RetryLoop loop = RetryRuntime.loop();
        CallFacts facts = null;
        String markerHeader = null;
        if (loop != null) {
            try {
                if (!OkHttpRequests.isUpgrade(request)) {
                    facts = OkHttpRequests.facts(request, loop.engine());
                    markerHeader = facts.policy().markerHeader();
                }
            } catch (RuntimeException e) {
                RetryLog.internalError("okhttp.interceptor", e);
                facts = null;
            }
        }
        if (facts == null) {
            return chain.proceed(request);
        }
        return loop.execute(facts, new OkHttpSyncExchange(chain, request, markerHeader));
    }

    @Override
    public String toString() {
        return "retry-agent";
    }
}
