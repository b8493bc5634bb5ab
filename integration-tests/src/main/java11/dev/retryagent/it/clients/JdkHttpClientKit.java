package dev.retryagent.it.clients;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Flow;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * {@code java.net.http} (Java 11 and up): {@code send} and {@code sendAsync} on one client, HTTP/1.1 by default.
 * A one-shot body is published from an input stream of unknown length. Cancelling {@code sendAsync}'s future
 * cancels the exchange on Java 16 and up; before, the exchange runs on and only the future ends. For the
 * applications that test the client's own API: a request as they build it ({@link #request(KitRequest, String,
 * Duration)}), every body publisher ({@link #publisher}), every {@code BodyHandler} ({@link #handler}) and what each
 * gives ({@link #text}).
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
        HttpRequest.BodyPublisher body = request.hasBody()
                ? publisher(request.isOneShot() ? "inputstream" : "bytes", request.body())
                : HttpRequest.BodyPublishers.noBody();
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(request.url())).method(request.method(), body);
        headers(request, builder);
        return builder.build();
    }

    /**
     * {@code request} as an application builds it, with this {@code timeout}: a GET without a body is
     * {@code GET()}, another method without one {@code BodyPublishers.noBody()}, a body is published as
     * {@link #publisher} says.
     */
    public static HttpRequest request(KitRequest request, String publisher, Duration timeout) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(request.url())).timeout(timeout);
        headers(request, builder);
        String method = request.method();
        if (!request.hasBody()) {
            return (method.equals("GET") ? builder.GET() : builder.method(method, HttpRequest.BodyPublishers.noBody()))
                    .build();
        }
        return builder.method(method, publisher(publisher, request.body())).build();
    }

    /** {@code request}'s headers, then its body's {@code Content-Type}. */
    private static void headers(KitRequest request, HttpRequest.Builder builder) {
        for (Map.Entry<String, String> h : request.headers()) {
            builder.header(h.getKey(), h.getValue());
        }
        if (request.hasBody() && request.contentType() != null) {
            builder.header("Content-Type", request.contentType());
        }
    }

    /**
     * {@code bytes} published as {@code kind} says: {@code string} ({@code ofString} of their UTF-8 text, the default),
     * {@code bytes}, {@code file} (a temporary file of them), {@code inputstream} (of unknown length, one-shot to
     * the agent), {@code custom} (a publisher of the application's own, whose repeats the agent cannot know).
     */
    public static HttpRequest.BodyPublisher publisher(String kind, byte[] bytes) {
        switch (kind) {
            case "bytes":
                return HttpRequest.BodyPublishers.ofByteArray(bytes);
            case "file":
                try {
                    Path file = Files.createTempFile("jdkhttp-request", ".txt");
                    Files.write(file, bytes);
                    return HttpRequest.BodyPublishers.ofFile(file);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            case "inputstream":
                return HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes));
            case "custom":
                return new OneBuffer(bytes);
            default:
                return HttpRequest.BodyPublishers.ofString(new String(bytes, StandardCharsets.UTF_8));
        }
    }

    /**
     * The {@code BodyHandler} {@code kind} names: {@code string} (the default), {@code bytes}, {@code stream}, {@code lines},
     * {@code discarding}, {@code file} (into {@code file}).
     */
    public static HttpResponse.BodyHandler<?> handler(String kind, Path file) {
        switch (kind) {
            case "bytes":
                return HttpResponse.BodyHandlers.ofByteArray();
            case "stream":
                return HttpResponse.BodyHandlers.ofInputStream();
            case "lines":
                return HttpResponse.BodyHandlers.ofLines();
            case "discarding":
                return HttpResponse.BodyHandlers.discarding();
            case "file":
                return HttpResponse.BodyHandlers.ofFile(file);
            default:
                return HttpResponse.BodyHandlers.ofString();
        }
    }

    /**
     * What a {@link #handler} gave, as text: the bytes, the stream or the file read to the end (UTF-8), the lines
     * joined by {@code \n}; {@code "null"} for the discarding handler, null when it wrote to {@code file} and gave
     * no path.
     */
    public static String text(Object body, Path file) throws IOException {
        if (body == null) {
            return file != null ? null : "null";
        }
        if (body instanceof byte[]) {
            return new String((byte[]) body, StandardCharsets.UTF_8);
        }
        if (body instanceof InputStream) {
            try (InputStream input = (InputStream) body) {
                return new String(input.readAllBytes(), StandardCharsets.UTF_8);
            }
        }
        if (body instanceof Stream<?>) {
            try (Stream<?> l = (Stream<?>) body) {
                return l.map(String::valueOf).collect(Collectors.joining("\n"));
            }
        }
        if (body instanceof Path) {
            return Files.readString((Path) body);
        }
        return body.toString();
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

    /** A publisher of the application's own: the agent cannot know whether it sends the same bytes twice. */
    private static final class OneBuffer implements HttpRequest.BodyPublisher {
        private final byte[] bytes;

        OneBuffer(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public long contentLength() {
            return bytes.length;
        }

        @Override
        public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
            HttpRequest.BodyPublishers.ofByteArray(bytes).subscribe(subscriber);
        }
    }
}
