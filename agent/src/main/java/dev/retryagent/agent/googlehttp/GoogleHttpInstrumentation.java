package dev.retryagent.agent.googlehttp;

import dev.retryagent.agent.instrument.ClientInstrumentation;
import dev.retryagent.agent.instrument.HookPoint;

/**
 * google-http-client's retry loop, a retry layer above its transport's HTTP client (SPEC 4.14): entry and exit of
 * {@code com.google.api.client.http.HttpRequest.execute()}. See {@link dev.retryagent.agent.googlehttp}. Names no
 * library type.
 */
public final class GoogleHttpInstrumentation extends ClientInstrumentation {
    static final String HTTP_REQUEST = "com.google.api.client.http.HttpRequest";
    static final String EXECUTE_DESCRIPTOR = "()Lcom/google/api/client/http/HttpResponse;";

    public GoogleHttpInstrumentation() {
        super(GoogleHttpHooks.LAYER, "dev.retryagent.agent.googlehttp.GoogleHttpHooks",
                HookPoint.retryLoop(GoogleHttpHooks.EXECUTE, HTTP_REQUEST, "execute", EXECUTE_DESCRIPTOR));
    }
}
