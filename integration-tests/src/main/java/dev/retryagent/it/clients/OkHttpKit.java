package dev.retryagent.it.clients;

import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Headers;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * OkHttp (4.12 and 5): {@code execute} and {@code enqueue} on one client; for the applications that test OkHttp's own
 * API, its clients as applications make them ({@link #newClient}, {@link #builder}), its requests with a body that
 * counts its writes ({@link #request(KitRequest, AtomicInteger)}), a call made either way and its outcome handed over
 * ({@link #execute}, {@link #enqueue}), and the wait for its dispatcher ({@link #awaitIdle}).
 */
public final class OkHttpKit implements AsyncHttpKit {
    /** The methods OkHttp refuses without a body. */
    private static final Set<String> MUST_HAVE_BODY = new HashSet<>(
            Arrays.asList("POST", "PUT", "PATCH", "PROPPATCH", "REPORT"));

    private final OkHttpClient client;

    public OkHttpKit() {
        this(new OkHttpClient.Builder().build());
    }

    public OkHttpKit(OkHttpClient client) {
        this.client = client;
    }

    public OkHttpClient client() {
        return client;
    }

    /** What a call made through {@link #execute} or {@link #enqueue} ended with. */
    public interface Outcome {
        /** The response, its body read to the end; on a callback's thread for an enqueued call. */
        void response(Call call, Response response, String body);

        /** The client's exception; {@code status} the response's when reading its body failed, else null. */
        void failure(Call call, Exception e, Integer status);

        /** After the response or failure, the response closed. */
        default void done() {
        }
    }

    /**
     * A client as applications make it: {@code new} ({@code new OkHttpClient()}), {@code builder}
     * ({@code new OkHttpClient.Builder().build()}) or {@code newBuilder} ({@code new OkHttpClient().newBuilder()
     * .build()}).
     */
    public static OkHttpClient newClient(String kind) {
        return kind.equals("new") ? new OkHttpClient() : builder(kind).build();
    }

    /** The builder of a client of {@code kind} {@code builder} or {@code newBuilder}. */
    public static OkHttpClient.Builder builder(String kind) {
        switch (kind) {
            case "builder":
                return new OkHttpClient.Builder();
            case "newBuilder":
                return new OkHttpClient().newBuilder();
            default:
                throw new IllegalArgumentException("--client new|builder|newBuilder, got " + kind);
        }
    }

    /** okhttp3.OkHttp.VERSION, read at run time (the compiler would inline the 4.12 constant). */
    public static String version() {
        try {
            return String.valueOf(Class.forName("okhttp3.OkHttp").getField("VERSION").get(null));
        } catch (ReflectiveOperationException | LinkageError e) {
            return "unknown";
        }
    }

    /** {@code call.execute()} on this thread, its body read, the outcome handed to {@code outcome}. */
    public static void execute(Call call, Outcome outcome) {
        Integer status = null;
        try (Response response = call.execute()) {
            status = response.code();
            ResponseBody body = response.body();
            String text = body == null ? "" : body.string();
            outcome.response(call, response, text);
        } catch (IOException | RuntimeException e) {
            outcome.failure(call, e, status);
        }
        outcome.done();
    }

    /** {@code call.enqueue}: each callback's outcome, its body read, handed to {@code outcome} on its thread. */
    public static void enqueue(Call call, Outcome outcome) {
        call.enqueue(new Callback() {
            @Override
            public void onFailure(Call c, IOException e) {
                outcome.failure(c, e, null);
                outcome.done();
            }

            @Override
            public void onResponse(Call c, Response response) {
                try (Response r = response) {
                    ResponseBody body = r.body();
                    String text;
                    try {
                        text = body == null ? "" : body.string();
                    } catch (IOException e) {
                        outcome.failure(c, e, r.code());
                        return;
                    }
                    outcome.response(c, r, text);
                } finally {
                    outcome.done();
                }
            }
        });
    }

    /**
     * Waits (up to 5 s) until {@code client}'s dispatcher runs and queues nothing, so that a second callback
     * delivered there is seen.
     */
    public static void awaitIdle(OkHttpClient client) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while ((client.dispatcher().runningCallsCount() > 0 || client.dispatcher().queuedCallsCount() > 0)
                && System.nanoTime() < end) {
            Thread.sleep(10);
        }
    }

    @Override
    public KitReply call(KitRequest request) throws IOException {
        try (Response response = client.newCall(request(request)).execute()) {
            return reply(response);
        }
    }

    @Override
    public CompletableFuture<KitReply> callAsync(KitRequest request) {
        Call call = client.newCall(request(request));
        CompletableFuture<KitReply> reply = Kits.cancelling(new CompletableFuture<>(), call::cancel);
        call.enqueue(new Callback() {
            @Override
            public void onFailure(Call c, IOException e) {
                reply.completeExceptionally(e);
            }

            @Override
            public void onResponse(Call c, Response response) {
                try (Response r = response) {
                    reply.complete(reply(r));
                } catch (IOException e) {
                    reply.completeExceptionally(e);
                }
            }
        });
        return reply;
    }

    /** OkHttp's request: a method that must have a body gets an empty one when the request has none. */
    public static Request request(KitRequest request) {
        return request(request, new AtomicInteger());
    }

    /** As {@link #request(KitRequest)}, its body's every write counted in {@code bodyWrites}. */
    public static Request request(KitRequest request, AtomicInteger bodyWrites) {
        RequestBody body = null;
        if (request.hasBody() || MUST_HAVE_BODY.contains(request.method())) {
            String type = request.contentType();
            body = new OkHttpBody(request.body(), type == null ? null : MediaType.get(type), request.isOneShot(),
                    bodyWrites);
        }
        Request.Builder builder = new Request.Builder().url(request.url()).method(request.method(), body);
        for (Map.Entry<String, String> h : request.headers()) {
            builder.addHeader(h.getKey(), h.getValue());
        }
        return builder.build();
    }

    private static KitReply reply(Response response) throws IOException {
        KitReply.Builder reply = new KitReply.Builder(response.code());
        Headers headers = response.headers();
        for (int i = 0; i < headers.size(); i++) {
            reply.header(headers.name(i), headers.value(i));
        }
        ResponseBody body = response.body();
        return reply.body(body == null ? null : body.bytes());
    }

    @Override
    public void close() {
        client.dispatcher().executorService().shutdown();
        client.connectionPool().evictAll();
    }
}
