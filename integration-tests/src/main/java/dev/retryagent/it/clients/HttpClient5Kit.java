package dev.retryagent.it.clients;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.Set;
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
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.HttpMessage;
import org.apache.hc.core5.http.io.HttpClientResponseHandler;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.InputStreamEntity;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;
import org.apache.hc.core5.http.nio.DataStreamChannel;
import org.apache.hc.core5.http.nio.entity.StringAsyncEntityProducer;

/**
 * Apache HttpClient 5 (5.2 to 5.6): the classic client's {@code execute} with a response handler, and the async
 * client's {@code execute} of a {@link SimpleHttpRequest}; for the applications that test HttpClient 5's own API,
 * every classic {@code execute} overload ({@link #execute}) and a body producer that is not repeatable
 * ({@link #textProducer}). A one-shot body is an {@link InputStreamEntity} of
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

    /**
     * The classic client's {@code execute} overloads by name: {@code req}, {@code req-ctx}, {@code host-req},
     * {@code host-req-ctx}, {@code open} ({@code executeOpen}), {@code req-handler}, {@code req-ctx-handler},
     * {@code host-req-handler}, {@code host-req-ctx-handler}; {@code handler} reads the response either way.
     */
    @SuppressWarnings("deprecation") // the execute overloads returning a response are deprecated in 5.6, not gone
    public static <T> T execute(CloseableHttpClient client, String overload, HttpHost host, ClassicHttpRequest request,
            HttpClientResponseHandler<? extends T> handler) throws IOException, HttpException {
        HttpClientContext context = HttpClientContext.create();
        switch (overload) {
            case "req":
                return handled(client.execute(request), handler);
            case "req-ctx":
                return handled(client.execute(request, context), handler);
            case "host-req":
                return handled(client.execute(host, request), handler);
            case "host-req-ctx":
                return handled(client.execute(host, request, context), handler);
            case "open":
                return handled(client.executeOpen(host, request, context), handler);
            case "req-handler":
                return client.execute(request, handler);
            case "req-ctx-handler":
                return client.execute(request, context, handler);
            case "host-req-handler":
                return client.execute(host, request, handler);
            case "host-req-ctx-handler":
                return client.execute(host, request, context, handler);
            default:
                throw new IllegalArgumentException("overload " + overload);
        }
    }

    /**
     * A {@code text/plain} body for the async client's request producers; one that is not {@code repeatable} says so,
     * as a producer of a stream does.
     */
    public static AsyncEntityProducer textProducer(String text, boolean repeatable) {
        return new TextProducer(text, repeatable);
    }

    /** {@code response} read by {@code handler}, then closed. */
    private static <T> T handled(ClassicHttpResponse response, HttpClientResponseHandler<? extends T> handler)
            throws IOException, HttpException {
        try (ClassicHttpResponse closed = response) {
            return handler.handleResponse(closed);
        }
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

    /** A text body producer; when not repeatable it says so, as a producer of a stream would. */
    private static final class TextProducer implements AsyncEntityProducer {
        private final StringAsyncEntityProducer delegate;
        private final boolean repeatable;

        TextProducer(String text, boolean repeatable) {
            this.delegate = new StringAsyncEntityProducer(text, ContentType.TEXT_PLAIN);
            this.repeatable = repeatable;
        }

        @Override
        public boolean isRepeatable() {
            return repeatable;
        }

        @Override
        public void failed(Exception cause) {
            delegate.failed(cause);
        }

        @Override
        public long getContentLength() {
            return delegate.getContentLength();
        }

        @Override
        public String getContentType() {
            return delegate.getContentType();
        }

        @Override
        public String getContentEncoding() {
            return delegate.getContentEncoding();
        }

        @Override
        public boolean isChunked() {
            return delegate.isChunked();
        }

        @Override
        public Set<String> getTrailerNames() {
            return delegate.getTrailerNames();
        }

        @Override
        public int available() {
            return delegate.available();
        }

        @Override
        public void produce(DataStreamChannel channel) throws IOException {
            delegate.produce(channel);
        }

        @Override
        public void releaseResources() {
            delegate.releaseResources();
        }
    }
}
