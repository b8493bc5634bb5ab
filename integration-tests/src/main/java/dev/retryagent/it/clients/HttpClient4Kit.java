package dev.retryagent.it.clients;

import java.io.ByteArrayInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.http.Header;
import org.apache.http.HttpEntity;
import org.apache.http.HttpHost;
import org.apache.http.HttpResponse;
import org.apache.http.client.ResponseHandler;
import org.apache.http.client.methods.CloseableHttpResponse;
import org.apache.http.client.methods.HttpUriRequest;
import org.apache.http.client.methods.RequestBuilder;
import org.apache.http.client.protocol.HttpClientContext;
import org.apache.http.concurrent.FutureCallback;
import org.apache.http.entity.ByteArrayEntity;
import org.apache.http.entity.ContentType;
import org.apache.http.entity.InputStreamEntity;
import org.apache.http.impl.client.CloseableHttpClient;
import org.apache.http.impl.client.HttpClients;
import org.apache.http.impl.nio.client.CloseableHttpAsyncClient;
import org.apache.http.impl.nio.client.HttpAsyncClients;
import org.apache.http.nio.client.methods.HttpAsyncMethods;
import org.apache.http.util.EntityUtils;

/**
 * Apache HttpClient 4.5 ({@code execute} with a response handler) and HttpAsyncClient 4.1 ({@code execute} with a
 * callback). A one-shot body is an {@link InputStreamEntity} of unknown length. For the applications that test the
 * clients' own API: every classic {@code execute} overload ({@link #execute}) and the async client's request kinds
 * ({@link Async#execute}).
 */
public final class HttpClient4Kit implements AsyncHttpKit {
    private final CloseableHttpClient classic;
    private final FirstUse<Async> async;

    /** The default clients; the async one (HttpAsyncClient, a library of its own) made at the first async call. */
    public HttpClient4Kit() {
        this(HttpClients.createDefault(), () -> new Async(HttpAsyncClients.createDefault()));
    }

    /** These clients, {@code async} started here. */
    public HttpClient4Kit(CloseableHttpClient classic, CloseableHttpAsyncClient async) {
        this(classic, () -> new Async(async));
        startAsync();
    }

    private HttpClient4Kit(CloseableHttpClient classic, Supplier<Async> async) {
        this.classic = classic;
        this.async = new FirstUse<>(async, a -> a.client.start());
    }

    @Override
    public KitReply call(KitRequest request) throws IOException {
        return classic.execute(request(request).build(), HttpClient4Kit::reply);
    }

    @Override
    public CompletableFuture<KitReply> callAsync(KitRequest request) {
        CompletableFuture<KitReply> reply = new CompletableFuture<>();
        CloseableHttpAsyncClient client = async.get().client;
        Future<HttpResponse> call = client.execute(request(request).build(), callback(response -> {
            try {
                reply.complete(reply(response));
            } catch (IOException e) {
                reply.completeExceptionally(e);
            }
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
     * {@code request} as HttpClient 4 builds it: a one-shot body is an {@link InputStreamEntity} of unknown length,
     * another a {@link ByteArrayEntity}.
     */
    public static RequestBuilder request(KitRequest request) {
        RequestBuilder builder = RequestBuilder.create(request.method()).setUri(URI.create(request.url()));
        for (Map.Entry<String, String> h : request.headers()) {
            builder.addHeader(h.getKey(), h.getValue());
        }
        if (request.hasBody()) {
            String type = request.contentType();
            ContentType contentType = type == null ? null : ContentType.parse(type);
            builder.setEntity(request.isOneShot()
                    ? new InputStreamEntity(new ByteArrayInputStream(request.body()), -1, contentType)
                    : new ByteArrayEntity(request.body(), contentType));
        }
        return builder;
    }

    /**
     * The classic client's {@code execute} overloads by name: {@code req}, {@code req-ctx}, {@code host-req},
     * {@code host-req-ctx}, {@code req-handler}, {@code req-ctx-handler}, {@code host-req-handler},
     * {@code host-req-ctx-handler}; {@code handler} reads the response either way.
     */
    public static <T> T execute(CloseableHttpClient client, String overload, HttpHost host, HttpUriRequest request,
            ResponseHandler<? extends T> handler) throws IOException {
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
            case "req-handler":
                return client.execute(request, handler);
            case "req-ctx-handler":
                return client.execute(request, handler, context);
            case "host-req-handler":
                return client.execute(host, request, handler);
            case "host-req-ctx-handler":
                return client.execute(host, request, handler, context);
            default:
                throw new IllegalArgumentException("overload " + overload);
        }
    }

    /** {@code response} read by {@code handler}, then closed. */
    private static <T> T handled(CloseableHttpResponse response, ResponseHandler<? extends T> handler)
            throws IOException {
        try (CloseableHttpResponse closed = response) {
            return handler.handleResponse(closed);
        }
    }

    /** Makes and starts the async client now, not at the first async call (for a client built before the agent). */
    public HttpClient4Kit startAsync() {
        async.get();
        return this;
    }

    @Override
    public void close() throws IOException {
        classic.close();
        async.close();
    }

    /** HttpClient 4's response as a reply, its entity read to the end. */
    private static KitReply reply(HttpResponse response) throws IOException {
        KitReply.Builder reply = new KitReply.Builder(response.getStatusLine().getStatusCode());
        for (Header h : response.getAllHeaders()) {
            reply.header(h.getName(), h.getValue());
        }
        HttpEntity entity = response.getEntity();
        return reply.body(entity == null ? null : EntityUtils.toByteArray(entity));
    }

    /**
     * HttpAsyncClient's client, behind a class of ours: until the first async call no signature the JVM resolves
     * names its types, so the blocking client alone needs no HttpAsyncClient on the class path.
     */
    public static final class Async implements Closeable {
        final CloseableHttpAsyncClient client;

        Async(CloseableHttpAsyncClient client) {
            this.client = client;
        }

        /**
         * The async client's {@code execute} of {@code request} as {@code kind} says: {@code uri}
         * ({@code execute(HttpUriRequest, ..)}), {@code host} ({@code execute(HttpHost, HttpRequest, ..)}) or
         * {@code producer} ({@link HttpAsyncMethods}' producer and consumer).
         */
        public static Future<HttpResponse> execute(CloseableHttpAsyncClient client, String kind, HttpHost host,
                HttpUriRequest request, FutureCallback<HttpResponse> callback) {
            switch (kind) {
                case "uri":
                    return client.execute(request, callback);
                case "host":
                    return client.execute(host, request, callback);
                case "producer":
                    return client.execute(HttpAsyncMethods.create(host, request), HttpAsyncMethods.createConsumer(),
                            callback);
                default:
                    throw new IllegalArgumentException("request " + kind);
            }
        }

        @Override
        public void close() throws IOException {
            client.close();
        }
    }
}
