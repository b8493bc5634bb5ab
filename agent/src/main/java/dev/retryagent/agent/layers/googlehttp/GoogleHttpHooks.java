package dev.retryagent.agent.layers.googlehttp;

import com.google.api.client.http.HttpBackOffIOExceptionHandler;
import com.google.api.client.http.HttpBackOffUnsuccessfulResponseHandler.BackOffRequired;
import com.google.api.client.http.HttpBackOffUnsuccessfulResponseHandler;
import com.google.api.client.http.HttpIOExceptionHandler;
import com.google.api.client.http.HttpRequest;
import com.google.api.client.http.HttpUnsuccessfulResponseHandler;
import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.weaving.RetryLoopHandler;
import dev.retryagent.engine.LayerRetries.Failures;
import dev.retryagent.engine.LayerRetries.Statuses;
import dev.retryagent.engine.LayerRetries;
import dev.retryagent.policy.StatusSet;

/**
 * The handler of google-http-client's {@code HttpRequest.execute()} (its hook points:
 * {@link dev.retryagent.agent.layers.LayerTable}): the loop retries only with retries left ({@code getNumberOfRetries() > 0})
 * and something that asks for a retry: an I/O-exception handler, the deprecated
 * {@code setRetryOnExecuteIOException(true)}, or the library's back-off handler for unsuccessful responses
 * ({@code HttpBackOffUnsuccessfulResponseHandler}, a subclass included). Any other unsuccessful-response handler is not
 * taken for a retry layer: the common one is a credential's (google-auth's {@code HttpCredentialsAdapter},
 * google-api-client's {@code Credential}), which retries a 401 after refreshing the token and nothing else; taking it
 * for a layer would leave every 503 of those calls unretried.
 *
 * <p>What the loop retries ({@link LayerRetries}) is what its handlers ask for: I/O errors with
 * {@code HttpBackOffIOExceptionHandler} or the deprecated switch (another I/O-exception handler: not known), none
 * without; responses whose status its {@code HttpBackOffUnsuccessfulResponseHandler} (of that very class) says need a
 * back-off: {@code BackOffRequired.ON_SERVER_ERROR}, its default, the 5xx, {@code ALWAYS} every one; none without an
 * unsuccessful-response handler. Another handler, a subclass, another {@code BackOffRequired} or the deprecated
 * {@code BackOffPolicy}: not known.
 */
public final class GoogleHttpHooks extends RetryLoopHandler {
    public static final String LAYER = "google-http-client";
    public static final String EXECUTE = "google-http-client.execute";

    /** What {@code BackOffRequired.ON_SERVER_ERROR} asks a back-off for: {@code getStatusCode() / 100 == 5}. */
    static final StatusSet SERVER_ERRORS = serverErrors();

    /** The layer for each answer about failures and statuses, made once: a call allocates nothing for it. */
    private static final LayerRetries[][] LAYERS = layers();

    /** The statuses' answers, as indexes into {@link #LAYERS}. */
    private static final int NONE = 0;
    private static final int SERVER = 1;
    private static final int ALL = 2;
    private static final int UNKNOWN = 3;

    static {
        Hooks.register(GoogleHttpHooks.class, new GoogleHttpHooks());
    }

    public GoogleHttpHooks() {
        super(EXECUTE);
    }

    private static StatusSet serverErrors() {
        int[] codes = new int[100];
        for (int i = 0; i < codes.length; i++) {
            codes[i] = 500 + i;
        }
        return StatusSet.of(codes);
    }

    private static LayerRetries[][] layers() {
        Failures[] failures = Failures.values();
        LayerRetries[][] layers = new LayerRetries[failures.length][];
        for (Failures f : failures) {
            layers[f.ordinal()] = new LayerRetries[] {
                    LayerRetries.of(LAYER, f, Statuses.NONE),
                    LayerRetries.listed(LAYER, f, SERVER_ERRORS),
                    LayerRetries.of(LAYER, f, Statuses.ALL),
                    LayerRetries.of(LAYER, f, Statuses.UNKNOWN)};
        }
        return layers;
    }

    @Override
    protected String layerOf(String hook, Object self) {
        LayerRetries layer = retriesOf(hook, self);
        return layer == null ? null : layer.layer();
    }

    @Override
    protected LayerRetries retriesOf(String hook, Object self) {
        return self instanceof HttpRequest ? retriesOf((HttpRequest) self) : null;
    }

    /** The layer {@code request}'s {@code execute()} is, with what it retries: null when nothing would ask it to. */
    @SuppressWarnings("deprecation")
    static LayerRetries retriesOf(HttpRequest request) {
        HttpUnsuccessfulResponseHandler responses = request.getUnsuccessfulResponseHandler();
        HttpIOExceptionHandler failures = request.getIOExceptionHandler();
        boolean asks = responses instanceof HttpBackOffUnsuccessfulResponseHandler || failures != null
                || request.getRetryOnExecuteIOException();
        if (!asks) {
            return null;
        }
        if (request.getNumberOfRetries() <= 0) {
            return LayerRetries.RETRIES_OFF;
        }
        Failures failed = request.getRetryOnExecuteIOException()
                || (failures != null && failures.getClass() == HttpBackOffIOExceptionHandler.class) ? Failures.RETRIED
                : failures != null ? Failures.UNKNOWN : Failures.NOT_RETRIED;
        return LAYERS[failed.ordinal()][request.getBackOffPolicy() != null ? UNKNOWN : statuses(responses)];
    }

    /** Which responses {@code handler} retries, as an index into {@link #LAYERS}. */
    private static int statuses(HttpUnsuccessfulResponseHandler handler) {
        if (handler == null) {
            return NONE;
        }
        if (handler.getClass() != HttpBackOffUnsuccessfulResponseHandler.class) {
            return UNKNOWN;
        }
        BackOffRequired required = ((HttpBackOffUnsuccessfulResponseHandler) handler).getBackOffRequired();
        if (required == BackOffRequired.ON_SERVER_ERROR) {
            return SERVER;
        }
        return required == BackOffRequired.ALWAYS ? ALL : UNKNOWN;
    }
}
