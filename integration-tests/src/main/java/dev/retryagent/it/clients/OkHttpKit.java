package dev.retryagent.it.clients;

import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
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

/** OkHttp (4.12 and 5): {@code execute} and {@code enqueue} on one client. */
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
        RequestBody body = null;
        if (request.hasBody() || MUST_HAVE_BODY.contains(request.method())) {
            String type = request.contentType();
            body = new OkHttpBody(request.body(), type == null ? null : MediaType.get(type), request.isOneShot(),
                    new AtomicInteger());
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
