package dev.retryagent.agent.googlehttp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.google.api.client.http.GenericUrl;
import com.google.api.client.http.HttpBackOffIOExceptionHandler;
import com.google.api.client.http.HttpBackOffUnsuccessfulResponseHandler;
import com.google.api.client.http.HttpRequest;
import com.google.api.client.http.HttpResponse;
import com.google.api.client.http.HttpUnsuccessfulResponseHandler;
import com.google.api.client.http.javanet.NetHttpTransport;
import com.google.api.client.util.ExponentialBackOff;
import dev.retryagent.agent.RetryLayers;
import dev.retryagent.agent.instrument.HookPoint;
import dev.retryagent.engine.UpperLayer;
import java.io.IOException;
import net.bytebuddy.jar.asm.Type;
import org.junit.jupiter.api.Test;

/** Which {@code HttpRequest}s retry, built as an application builds them (nothing is sent). */
class GoogleHttpHooksTest {
    private static HttpRequest request() throws IOException {
        return new NetHttpTransport().createRequestFactory().buildGetRequest(new GenericUrl("http://127.0.0.1:9/x"));
    }

    @Test
    void aRequestWithoutHandlersDoesNotRetry() throws IOException {
        assertNull(GoogleHttpHooks.layerOf(request()));
        assertNull(GoogleHttpHooks.layerOf(request().setNumberOfRetries(0)));
    }

    @Test
    void aHandlerWithRetriesLeftIsTheLayer() throws IOException {
        assertEquals(GoogleHttpHooks.LAYER, GoogleHttpHooks.layerOf(request()
                .setUnsuccessfulResponseHandler(new HttpBackOffUnsuccessfulResponseHandler(new ExponentialBackOff()))));
        assertEquals(GoogleHttpHooks.LAYER, GoogleHttpHooks.layerOf(request()
                .setIOExceptionHandler(new HttpBackOffIOExceptionHandler(new ExponentialBackOff()))));
    }

    @Test
    void aCredentialsRefreshHandlerIsNoRetryLayer() throws IOException {
        // As google-auth's HttpCredentialsAdapter: a 401 is retried once the token is refreshed, nothing else.
        HttpUnsuccessfulResponseHandler refreshOn401 = (request, response, supportsRetry) -> response.getStatusCode() == 401;
        assertNull(GoogleHttpHooks.layerOf(request().setUnsuccessfulResponseHandler(refreshOn401)));
        assertEquals(GoogleHttpHooks.LAYER, GoogleHttpHooks.layerOf(request().setUnsuccessfulResponseHandler(refreshOn401)
                .setIOExceptionHandler(new HttpBackOffIOExceptionHandler(new ExponentialBackOff()))));
    }

    @Test
    void aHandlerWithNoRetriesIsRetriesOff() throws IOException {
        assertEquals(UpperLayer.RETRIES_OFF, GoogleHttpHooks.layerOf(request().setNumberOfRetries(0)
                .setUnsuccessfulResponseHandler(new HttpBackOffUnsuccessfulResponseHandler(new ExponentialBackOff()))));
    }

    @Test
    void theHookedMethodHasThisDescriptor() throws Exception {
        HookPoint point = RetryLayers.named(GoogleHttpHooks.LAYER).hookPoints().get(0);
        assertEquals(HttpRequest.class.getName(), point.className());
        assertEquals(point.descriptor(),
                Type.getMethodDescriptor(HttpRequest.class.getDeclaredMethod(point.methodName())));
        assertEquals(HttpResponse.class, HttpRequest.class.getDeclaredMethod("execute").getReturnType());
    }
}
