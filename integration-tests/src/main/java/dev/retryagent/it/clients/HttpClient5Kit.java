package dev.retryagent.it.clients;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.async.methods.SimpleResponseConsumer;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.fluent.Request;
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
import org.apache.hc.core5.http.message.BasicHttpRequest;
import org.apache.hc.core5.http.nio.DataStreamChannel;
import org.apache.hc.core5.http.nio.entity.StringAsyncEntityProducer;
import org.apache.hc.core5.http.nio.support.BasicRequestProducer;
import org.apache.hc.core5.util.Timeout;

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
        HttpUriRequestBase message = classicRequest(request);
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
            message.setBody(request.body(), contentType(request));
        }
        CompletableFuture<KitReply> reply = new CompletableFuture<>();
        Future<SimpleHttpResponse> call = async.get().execute(message, callback(response -> {
            KitReply.Builder built = new KitReply.Builder(response.getCode());
            for (Header h : response.getHeaders()) {
                built.header(h.getName(), h.getValue());
            }
            reply.complete(built.body(response.getBodyBytes()));
        }, reply::completeExceptionally, () -> reply.cancel(false)));
        return Kits.cancelling(reply, () -> call.cancel(true));
    }

    /** A callback that hands each outcome to its own part. */
    public static <T> FutureCallback<T> callback(Consumer<? super T> completed, Consumer<Exception> failed,
            Runnable cancelled) {
        return new FutureCallback<T>() {
            @Override
            public void completed(T result) {
                completed.accept(result);
            }

            @Override
            public void failed(Exception e) {
                failed.accept(e);
            }

            @Override
            public void cancelled() {
                cancelled.run();
            }
        };
    }

    /**
     * {@code request} as the classic client takes it: a one-shot body is an {@link InputStreamEntity} of unknown
     * length, another a {@link ByteArrayEntity}.
     */
    public static HttpUriRequestBase classicRequest(KitRequest request) {
        HttpUriRequestBase message = new HttpUriRequestBase(request.method(), URI.create(request.url()));
        headers(request, message);
        if (request.hasBody()) {
            ContentType contentType = contentType(request);
            message.setEntity(request.isOneShot()
                    ? new InputStreamEntity(new ByteArrayInputStream(request.body()), -1, contentType)
                    : new ByteArrayEntity(request.body(), contentType));
        }
        return message;
    }

    /**
     * The async client's {@code execute} of {@code request} as {@code kind} says: {@code simple} (a
     * {@link SimpleHttpRequest} of {@code config}, null for none) or {@code producer} (a request producer whose body
     * is not repeatable when {@code request} is one-shot, and {@link SimpleResponseConsumer}); a one-shot body always
     * goes through a producer, as a simple request's body is buffered.
     */
    public static Future<SimpleHttpResponse> executeAsync(CloseableHttpAsyncClient client, String kind,
            KitRequest request, RequestConfig config, FutureCallback<SimpleHttpResponse> callback) {
        URI uri = URI.create(request.url());
        if (request.isOneShot() || "producer".equals(kind)) {
            BasicHttpRequest message = new BasicHttpRequest(request.method(), uri);
            headers(request, message);
            AsyncEntityProducer entity = !request.hasBody() ? null
                    : textProducer(new String(request.body(), StandardCharsets.UTF_8), !request.isOneShot());
            return client.execute(new BasicRequestProducer(message, entity), SimpleResponseConsumer.create(), callback);
        }
        SimpleRequestBuilder builder = SimpleRequestBuilder.create(request.method()).setUri(uri);
        if (request.hasBody()) {
            builder.setBody(request.body(), contentType(request));
        }
        SimpleHttpRequest message = builder.build();
        message.setConfig(config);
        headers(request, message);
        return client.execute(message, callback);
    }

    /**
     * {@code request} through the fluent API ({@code Request.create(..).execute()}), read by {@code handler}; a
     * one-shot body is {@code bodyStream}, another {@code bodyByteArray}; {@code responseTimeout} null for none.
     */
    public static <T> T fluent(KitRequest request, Timeout responseTimeout, HttpClientResponseHandler<T> handler)
            throws IOException {
        Request fluent = Request.create(request.method(), request.url());
        if (responseTimeout != null) {
            fluent.responseTimeout(responseTimeout);
        }
        for (Map.Entry<String, String> h : request.headers()) {
            fluent.addHeader(h.getKey(), h.getValue());
        }
        if (request.hasBody()) {
            if (request.isOneShot()) {
                fluent.bodyStream(new ByteArrayInputStream(request.body()), contentType(request));
            } else {
                fluent.bodyByteArray(request.body(), contentType(request));
            }
        }
        return fluent.execute().handleResponse(handler);
    }

    private static ContentType contentType(KitRequest request) {
        String type = request.contentType();
        return type == null ? null : ContentType.parse(type);
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
