package dev.retryagent.it.layers;

import dev.failsafe.CircuitBreaker;
import dev.failsafe.Failsafe;
import dev.failsafe.RetryPolicy;
import dev.failsafe.function.ContextualSupplier;
import dev.retryagent.it.apps.LayerCalls;
import java.io.IOException;
import java.time.Duration;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * OkHttp (sync {@code execute}) calls in Failsafe. Ways: {@code get} ({@code Failsafe.with(retryPolicy).get(...)}),
 * {@code call} ({@code Failsafe.with(retryPolicy).newCall(...).execute()}), {@code breaker} (a
 * {@code CircuitBreaker} only: no retry loop), {@code v2} (Failsafe 2.4, {@code net.jodah.failsafe}). The retry
 * policy handles an {@code IOException} and a 503 result, the call's retries, 10 ms apart.
 */
public final class FailsafeApp {
    private static final MediaType JSON = MediaType.get("application/json");

    private FailsafeApp() {
    }

    public static void main(String[] args) {
        OkHttpClient client = new OkHttpClient();
        CircuitBreaker<Integer> breaker = CircuitBreaker.<Integer>builder().withFailureThreshold(1000).build();
        LayerCalls.line("APP", "library", "failsafe", "version", RetryPolicy.class.getPackage().getImplementationVersion());
        LayerCalls.run(args, (method, way, retries, url) -> {
            RetryPolicy<Integer> retry = RetryPolicy.<Integer>builder().handle(IOException.class)
                    .handleResultIf(status -> status == 503).withDelay(Duration.ofMillis(10)).withMaxRetries(retries)
                    .build();
            net.jodah.failsafe.RetryPolicy<Integer> retry2 = new net.jodah.failsafe.RetryPolicy<Integer>()
                    .handle(IOException.class).handleResultIf(status -> status == 503).withDelay(Duration.ofMillis(10))
                    .withMaxRetries(retries);
            switch (way) {
                case "get":
                    return Failsafe.with(retry).get(() -> http(client, method, url));
                case "call":
                    ContextualSupplier<Integer, Integer> supplier = ctx -> http(client, method, url);
                    return Failsafe.with(retry).newCall(supplier).execute();
                case "breaker":
                    return Failsafe.with(breaker).get(() -> http(client, method, url));
                case "v2":
                    return net.jodah.failsafe.Failsafe.with(retry2).get(() -> http(client, method, url));
                default:
                    throw new IllegalArgumentException(way);
            }
        });
    }

    private static int http(OkHttpClient client, String method, String url) throws IOException {
        LayerCalls.attempt();
        Request.Builder request = new Request.Builder().url(url);
        if (method.equals("POST")) {
            request.post(RequestBody.create(LayerCalls.BODY, JSON));
        }
        try (Response response = client.newCall(request.build()).execute()) {
            response.body().bytes();
            return response.code();
        }
    }
}
