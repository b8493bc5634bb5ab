package dev.retryagent.agent.googlehttp;

import com.google.api.client.http.HttpBackOffUnsuccessfulResponseHandler;
import com.google.api.client.http.HttpRequest;
import dev.retryagent.agent.bootstrap.Hooks;
import dev.retryagent.agent.instrument.RetryLoopHandler;
import dev.retryagent.engine.UpperLayer;

/**
 * The handler of google-http-client's {@code HttpRequest.execute()} (its hook points:
 * {@link dev.retryagent.agent.RetryLayers}): the loop retries only with retries left ({@code getNumberOfRetries() > 0})
 * and something that asks for a retry: an I/O-exception handler, the deprecated
 * {@code setRetryOnExecuteIOException(true)}, or the library's back-off handler for unsuccessful responses
 * ({@code HttpBackOffUnsuccessfulResponseHandler}, a subclass included). Any other unsuccessful-response handler is not
 * taken for a retry layer: the common one is a credential's (google-auth's {@code HttpCredentialsAdapter},
 * google-api-client's {@code Credential}), which retries a 401 after refreshing the token and nothing else; taking it
 * for a layer would leave every 503 of those calls unretried.
 */
public final class GoogleHttpHooks extends RetryLoopHandler {
    public static final String LAYER = "google-http-client";
    public static final String EXECUTE = "google-http-client.execute";

    static {
        Hooks.register(GoogleHttpHooks.class, new GoogleHttpHooks());
    }

    public GoogleHttpHooks() {
        super(EXECUTE);
    }

    @Override
    protected String layerOf(String hook, Object self) {
        return self instanceof HttpRequest ? layerOf((HttpRequest) self) : null;
    }

    /** The layer {@code request}'s {@code execute()} is: null when nothing would ask it to retry. */
    @SuppressWarnings("deprecation")
    static String layerOf(HttpRequest request) {
        boolean asks = request.getUnsuccessfulResponseHandler() instanceof HttpBackOffUnsuccessfulResponseHandler
                || request.getIOExceptionHandler() != null || request.getRetryOnExecuteIOException();
        if (!asks) {
            return null;
        }
        return request.getNumberOfRetries() > 0 ? LAYER : UpperLayer.RETRIES_OFF;
    }
}
