package dev.retryagent.it.clients;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * {@code java.net.http} (Java 11 and up): {@code send} and {@code sendAsync} on one client, HTTP/1.1 by default.
 * A one-shot body is published from an input stream of unknown length. Cancelling {@code sendAsync}'s future
 * cancels the exchange on Java 16 and up; before, the exchange runs on and only the future ends.
 */
public final class JdkHttpClientKit implements AsyncHttpKit {
    private final HttpClient client;

    public JdkHttpClientKit() {
        this(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
    }

    public JdkHttpClientKit(HttpClient client) {
        this.client = client;
    }

    @Override
    public KitReply call(KitRequest request) throws IOException {
        try {
            return reply(client.send(request(request), HttpResponse.BodyHandlers.ofByteArray()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted");
        }
    }

    @Override
    public CompletableFuture<KitReply> callAsync(KitRequest request) {
        CompletableFuture<HttpResponse<byte[]>> call = client.sendAsync(request(request),
                HttpResponse.BodyHandlers.ofByteArray());
        CompletableFuture<KitReply> reply = Kits.cancelling(new CompletableFuture<>(), () -> call.cancel(true));
        call.whenComplete((response, failure) -> {
            if (failure == null) {
                reply.complete(reply(response));
            } else {
                reply.completeExceptionally(failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure);
            }
        });
        return reply;
    }

    private static HttpRequest request(KitRequest request) {
        HttpRequest.BodyPublisher body = HttpRequest.BodyPublishers.noBody();
        if (request.hasBody()) {
            byte[] bytes = request.body();
            body = request.isOneShot()
                    ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes))
                    : HttpRequest.BodyPublishers.ofByteArray(bytes);
        }
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(request.url())).method(request.method(), body);
        for (Map.Entry<String, String> h : request.headers()) {
            builder.header(h.getKey(), h.getValue());
        }
        if (request.hasBody() && request.contentType() != null) {
            builder.header("Content-Type", request.contentType());
        }
        return builder.build();
    }

    private static KitReply reply(HttpResponse<byte[]> response) {
        KitReply.Builder reply = new KitReply.Builder(response.statusCode());
        for (Map.Entry<String, List<String>> h : response.headers().map().entrySet()) {
            for (String value : h.getValue()) {
                reply.header(h.getKey(), value);
            }
        }
        return reply.body(response.body());
    }

    @Override
    public void close() {
        // java.net.http's client has no close before Java 21; its threads end with the JVM
    }
}
