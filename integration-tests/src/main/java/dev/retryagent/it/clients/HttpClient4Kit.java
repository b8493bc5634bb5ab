package dev.retryagent.it.clients;

import java.io.ByteArrayInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.apache.http.Header;
import org.apache.http.HttpEntity;
import org.apache.http.HttpResponse;
import org.apache.http.client.methods.RequestBuilder;
import org.apache.http.concurrent.FutureCallback;
import org.apache.http.entity.ByteArrayEntity;
import org.apache.http.entity.ContentType;
import org.apache.http.entity.InputStreamEntity;
import org.apache.http.impl.client.CloseableHttpClient;
import org.apache.http.impl.client.HttpClients;
import org.apache.http.impl.nio.client.CloseableHttpAsyncClient;
import org.apache.http.impl.nio.client.HttpAsyncClients;
import org.apache.http.util.EntityUtils;

/**
 * Apache HttpClient 4.5 ({@code execute} with a response handler) and HttpAsyncClient 4.1 ({@code execute} with a
 * callback). A one-shot body is an {@link InputStreamEntity} of unknown length.
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
        Future<HttpResponse> call = client.execute(request(request).build(), new FutureCallback<HttpResponse>() {
            @Override
            public void completed(HttpResponse response) {
                try {
                    reply.complete(reply(response));
                } catch (IOException e) {
                    reply.completeExceptionally(e);
                }
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

    private static RequestBuilder request(KitRequest request) {
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
    private static final class Async implements Closeable {
        final CloseableHttpAsyncClient client;

        Async(CloseableHttpAsyncClient client) {
            this.client = client;
        }

        @Override
        public void close() throws IOException {
            client.close();
        }
    }
}
