package dev.retryagent.it.layers;

import com.azure.core.http.HttpClient;
import com.azure.core.http.HttpMethod;
import com.azure.core.http.HttpPipeline;
import com.azure.core.http.HttpPipelineBuilder;
import com.azure.core.http.HttpRequest;
import com.azure.core.http.HttpResponse;
import com.azure.core.http.okhttp.OkHttpAsyncHttpClientBuilder;
import com.azure.core.http.policy.FixedDelay;
import com.azure.core.http.policy.RetryPolicy;
import com.azure.core.util.Context;
import java.time.Duration;

/**
 * The Azure SDK's generic core: an {@code HttpPipeline} over its OkHttp client with
 * {@code new RetryPolicy(new FixedDelay(--retries N, 10 ms))}. Ways: {@code sync} ({@code pipeline.sendSync(request,
 * Context.NONE)}), {@code async} ({@code pipeline.send(request).block()}: the reactive path).
 */
public final class AzureApp {
    private AzureApp() {
    }

    public static void main(String[] args) {
        int retries = LayerCalls.retries(args);
        HttpClient client = new OkHttpAsyncHttpClientBuilder().build();
        HttpPipeline pipeline = new HttpPipelineBuilder().httpClient(client)
                .policies(new RetryPolicy(new FixedDelay(retries, Duration.ofMillis(10)))).build();
        LayerCalls.line("APP", "library", "azure-sdk", "version",
                HttpPipeline.class.getPackage().getImplementationVersion(), "maxRetries", retries);
        LayerCalls.run(args, (method, way, url) -> {
            HttpRequest request = new HttpRequest(HttpMethod.valueOf(method), url);
            if (method.equals("POST")) {
                request.setHeader(com.azure.core.http.HttpHeaderName.CONTENT_TYPE, "application/json");
                request.setBody(LayerCalls.BODY);
            }
            switch (way) {
                case "sync":
                    try (HttpResponse response = pipeline.sendSync(request, Context.NONE)) {
                        response.getBodyAsBinaryData();
                        return response.getStatusCode();
                    }
                case "async":
                    try (HttpResponse response = pipeline.send(request).block()) {
                        response.getBodyAsByteArray().block();
                        return response.getStatusCode();
                    }
                default:
                    throw new IllegalArgumentException(way);
            }
        });
        System.exit(0); // OkHttp's and Reactor's non-daemon threads
    }
}
