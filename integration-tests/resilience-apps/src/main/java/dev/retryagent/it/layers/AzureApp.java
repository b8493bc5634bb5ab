package dev.retryagent.it.layers;

import com.azure.core.http.HttpClient;
import com.azure.core.http.HttpMethod;
import com.azure.core.http.HttpPipeline;
import com.azure.core.http.HttpPipelineBuilder;
import com.azure.core.http.HttpPipelineCallContext;
import com.azure.core.http.HttpRequest;
import com.azure.core.http.HttpResponse;
import com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder;
import com.azure.core.http.okhttp.OkHttpAsyncHttpClientBuilder;
import com.azure.core.http.policy.FixedDelay;
import com.azure.core.http.policy.HttpPipelineSyncPolicy;
import com.azure.core.http.policy.RetryPolicy;
import com.azure.core.util.Context;
import dev.retryagent.it.apps.LayerCalls;
import java.time.Duration;

/**
 * The Azure SDK's generic core: an {@code HttpPipeline} with {@code new RetryPolicy(new FixedDelay(N,
 * 10 ms))} over its OkHttp client, ways {@code sync} ({@code pipeline.sendSync(request, Context.NONE)}) and
 * {@code async} ({@code pipeline.send(request).block()}: the reactive path), and over its JDK client
 * ({@code java.net.http}), way {@code jdk-sync}.
 */
public final class AzureApp {
    private AzureApp() {
    }

    public static void main(String[] args) {
        HttpClient okHttp = new OkHttpAsyncHttpClientBuilder().build();
        HttpClient jdkHttp = new JdkHttpClientBuilder().build();
        LayerCalls.line("APP", "library", "azure-sdk", "version",
                HttpPipeline.class.getPackage().getImplementationVersion());
        LayerCalls.run(args, (method, way, retries, url) -> {
            HttpPipeline pipeline = pipeline(okHttp, retries);
            HttpPipeline jdk = pipeline(jdkHttp, retries);
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
                case "jdk-sync":
                    try (HttpResponse response = jdk.sendSync(request, Context.NONE)) {
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

    private static HttpPipeline pipeline(HttpClient client, int retries) {
        return new HttpPipelineBuilder().httpClient(client)
                .policies(new RetryPolicy(new FixedDelay(retries, Duration.ofMillis(10))), new HttpPipelineSyncPolicy() {
                    @Override
                    protected void beforeSendingRequest(HttpPipelineCallContext context) {
                        LayerCalls.attempt(); // after the retry policy: once per attempt
                    }
                }).build();
    }
}
