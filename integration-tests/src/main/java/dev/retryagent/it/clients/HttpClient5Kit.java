package dev.retryagent.it.clients;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManager;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpMessage;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.InputStreamEntity;

/**
 * Apache HttpClient 5 (5.2 to 5.6): the classic client's {@code execute} with a response handler, and the async
 * client's {@code execute} of a {@link SimpleHttpRequest}. A one-shot body is an {@link InputStreamEntity} of
 * unknown length (classic only: the async client's simple requests are always buffered).
 */
public final class HttpClient5Kit implements AsyncHttpKit {
    private final CloseableHttpClient classic;
    private final FirstUse<CloseableHttpAsyncClient> async;

    /** The default clients; the async one is made and started at the first async call. */
    public HttpClient5Kit() {
        this(HttpClients.createDefault(), () -> HttpAsyncClients.createDefault());
    }

    /** These clients, {@code async} started here. */
    public HttpClient5Kit(CloseableHttpClient classic, CloseableHttpAsyncClient async) {
        this(classic, () -> async);
        startAsync();
    }

    private HttpClient5Kit(CloseableHttpClient classic, Supplier<CloseableHttpAsyncClient> async) {
        this.classic = classic;
        this.async = new FirstUse<>(async, client -> client.start());
    }

    /** Clients of these pools (whose stats the application reads) and this request configuration. */
    public static HttpClient5Kit pooled(PoolingHttpClientConnectionManager classicPool,
            PoolingAsyncClientConnectionManager asyncPool, RequestConfig config) {
        return new HttpClient5Kit(
                HttpClients.custom().setConnectionManager(classicPool).setDefaultRequestConfig(config).build(),
                HttpAsyncClients.custom().setConnectionManager(asyncPool).setDefaultRequestConfig(config).build());
    }

    @Override
    public KitReply call(KitRequest request) throws IOException {
        HttpUriRequestBase message = new HttpUriRequestBase(request.method(), URI.create(request.url()));
        headers(request, message);
        if (request.hasBody()) {
            String type = request.contentType();
            ContentType contentType = type == null ? null : ContentType.parse(type);
            message.setEntity(request.isOneShot()
                    ? new InputStreamEntity(new ByteArrayInputStream(request.body()), -1, contentType)
                    : new ByteArrayEntity(request.body(), contentType));
        }
        return classic.execute(message, response -> {
            KitReply.Builder reply = new KitReply.Builder(response.getCode());
            for (Header h : response.getHeaders()) {
                reply.header(h.getName(), h.getValue());
            }
            return reply.body(response.getEntity() == null ? null : EntityUtils.toByteArray(response.getEntity()));
        });
    }

    @Override
    public CompletableFuture<KitReply> callAsync(KitRequest request) {
        if (request.isOneShot()) {
            throw new UnsupportedOperationException("a one-shot body on HttpClient 5's async client");
        }
        SimpleHttpRequest message = SimpleHttpRequest.create(request.method(), request.url());
        headers(request, message);
        if (request.hasBody()) {
            String type = request.contentType();
            message.setBody(request.body(), type == null ? null : ContentType.parse(type));
        }
        CompletableFuture<KitReply> reply = new CompletableFuture<>();
        Future<SimpleHttpResponse> call = async.get().execute(message, new FutureCallback<SimpleHttpResponse>() {
            @Override
            public void completed(SimpleHttpResponse response) {
                KitReply.Builder built = new KitReply.Builder(response.getCode());
                for (Header h : response.getHeaders()) {
                    built.header(h.getName(), h.getValue());
                }
                reply.complete(built.body(response.getBodyBytes()));
            }

            @Override
            public void failed(Exception e) {
                reply.completeExceptionally(e);
            }

            @Override
            public void cancelled() {
                reply.cancel(false);
            }
        });
        return Kits.cancelling(reply, () -> call.cancel(true));
    }

    /** Makes and starts the async client now, not at the first async call (for a client built before the agent). */
    public HttpClient5Kit startAsync() {
        async.get();
        return this;
    }

    private static void headers(KitRequest request, HttpMessage message) {
        for (Map.Entry<String, String> h : request.headers()) {
            message.addHeader(h.getKey(), h.getValue());
        }
    }

    @Override
    public void close() throws IOException {
        classic.close();
        async.close();
    }
}
