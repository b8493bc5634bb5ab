package dev.retryagent.agent.layers.googlehttp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.google.api.client.http.GenericUrl;
import com.google.api.client.http.HttpBackOffIOExceptionHandler;
import com.google.api.client.http.HttpBackOffUnsuccessfulResponseHandler;
import com.google.api.client.http.HttpBackOffUnsuccessfulResponseHandler.BackOffRequired;
import com.google.api.client.http.HttpIOExceptionHandler;
import com.google.api.client.http.HttpRequest;
import com.google.api.client.http.HttpResponse;
import com.google.api.client.http.HttpUnsuccessfulResponseHandler;
import com.google.api.client.http.javanet.NetHttpTransport;
import com.google.api.client.util.ExponentialBackOff;
import dev.retryagent.agent.layers.LayerTable;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.engine.LayerRetries;
import dev.retryagent.engine.LayerRetries.Failures;
import dev.retryagent.engine.LayerRetries.Statuses;
import java.io.IOException;
import net.bytebuddy.jar.asm.Type;
import org.junit.jupiter.api.Test;

/** Which {@code HttpRequest}s retry, and what, built as an application builds them (nothing is sent). */
class GoogleHttpHooksTest {
    private static HttpRequest request() throws IOException {
        return new NetHttpTransport().createRequestFactory().buildGetRequest(new GenericUrl("http://127.0.0.1:9/x"));
    }

    private static HttpBackOffUnsuccessfulResponseHandler backOffOnResponses() {
        return new HttpBackOffUnsuccessfulResponseHandler(new ExponentialBackOff());
    }

    private static HttpBackOffIOExceptionHandler backOffOnFailures() {
        return new HttpBackOffIOExceptionHandler(new ExponentialBackOff());
    }

    private static void assertRetries(Failures failures, Statuses statuses, LayerRetries layer) {
        assertEquals(GoogleHttpHooks.LAYER, layer.layer());
        assertEquals(failures, layer.failures(), layer.toString());
        assertEquals(statuses, layer.statuses(), layer.toString());
    }

    @Test
    void aRequestWithoutHandlersDoesNotRetry() throws IOException {
        assertNull(GoogleHttpHooks.retriesOf(request()));
        assertNull(GoogleHttpHooks.retriesOf(request().setNumberOfRetries(0)));
    }

    @Test
    void aHandlerWithRetriesLeftIsTheLayerAndRetriesWhatItAsksFor() throws IOException {
        assertRetries(Failures.NOT_RETRIED, Statuses.LISTED,
                GoogleHttpHooks.retriesOf(request().setUnsuccessfulResponseHandler(backOffOnResponses())));
        assertRetries(Failures.RETRIED, Statuses.NONE,
                GoogleHttpHooks.retriesOf(request().setIOExceptionHandler(backOffOnFailures())));
        assertRetries(Failures.RETRIED, Statuses.LISTED, GoogleHttpHooks.retriesOf(request()
                .setUnsuccessfulResponseHandler(backOffOnResponses()).setIOExceptionHandler(backOffOnFailures())));
        assertRetries(Failures.RETRIED, Statuses.ALL, GoogleHttpHooks.retriesOf(request()
                .setUnsuccessfulResponseHandler(backOffOnResponses().setBackOffRequired(BackOffRequired.ALWAYS))
                .setIOExceptionHandler(backOffOnFailures())));
        assertSame(GoogleHttpHooks.retriesOf(request().setIOExceptionHandler(backOffOnFailures())),
                GoogleHttpHooks.retriesOf(request().setIOExceptionHandler(backOffOnFailures())), "made once");
    }

    @Test
    void theDefaultBackOffIsRequiredForServerErrorsOnly() {
        assertEquals(100, GoogleHttpHooks.SERVER_ERRORS.codes().length);
        assertEquals(500, GoogleHttpHooks.SERVER_ERRORS.codes()[0]);
        assertEquals(599, GoogleHttpHooks.SERVER_ERRORS.codes()[99]);
    }

    @Test
    @SuppressWarnings("deprecation")
    void whatAnApplicationDecidesIsNotKnown() throws IOException {
        HttpIOExceptionHandler own = (request, supportsRetry) -> supportsRetry;
        assertRetries(Failures.UNKNOWN, Statuses.NONE, GoogleHttpHooks.retriesOf(request().setIOExceptionHandler(own)));
        assertRetries(Failures.RETRIED, Statuses.NONE, GoogleHttpHooks.retriesOf(request()
                .setRetryOnExecuteIOException(true)));
        assertRetries(Failures.NOT_RETRIED, Statuses.UNKNOWN, GoogleHttpHooks.retriesOf(request()
                .setUnsuccessfulResponseHandler(new HttpBackOffUnsuccessfulResponseHandler(new ExponentialBackOff()) {
                })));
        BackOffRequired on429 = response -> response.getStatusCode() == 429;
        assertRetries(Failures.NOT_RETRIED, Statuses.UNKNOWN, GoogleHttpHooks.retriesOf(request()
                .setUnsuccessfulResponseHandler(backOffOnResponses().setBackOffRequired(on429))));
        assertRetries(Failures.RETRIED, Statuses.UNKNOWN, GoogleHttpHooks.retriesOf(request()
                .setIOExceptionHandler(backOffOnFailures())
                .setBackOffPolicy(new com.google.api.client.http.ExponentialBackOffPolicy())));
    }

    @Test
    void aCredentialsRefreshHandlerIsNoRetryLayer() throws IOException {
        // As google-auth's HttpCredentialsAdapter: a 401 is retried once the token is refreshed, nothing else.
        HttpUnsuccessfulResponseHandler refreshOn401 = (request, response, supportsRetry) -> response.getStatusCode() == 401;
        assertNull(GoogleHttpHooks.retriesOf(request().setUnsuccessfulResponseHandler(refreshOn401)));
        assertRetries(Failures.RETRIED, Statuses.UNKNOWN, GoogleHttpHooks.retriesOf(request()
                .setUnsuccessfulResponseHandler(refreshOn401).setIOExceptionHandler(backOffOnFailures())));
    }

    @Test
    void aHandlerWithNoRetriesIsRetriesOff() throws IOException {
        assertSame(LayerRetries.RETRIES_OFF, GoogleHttpHooks.retriesOf(request().setNumberOfRetries(0)
                .setUnsuccessfulResponseHandler(backOffOnResponses())));
    }

    @Test
    void theHookedMethodHasThisDescriptor() throws Exception {
        HookPoint point = LayerTable.named(GoogleHttpHooks.LAYER).hookPoints().get(0);
        assertEquals(HttpRequest.class.getName(), point.className());
        assertEquals(point.descriptor(),
                Type.getMethodDescriptor(HttpRequest.class.getDeclaredMethod(point.methodName())));
        assertEquals(HttpResponse.class, HttpRequest.class.getDeclaredMethod("execute").getReturnType());
    }
}
