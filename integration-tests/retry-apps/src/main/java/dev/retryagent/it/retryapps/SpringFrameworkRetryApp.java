package dev.retryagent.it.retryapps;

import dev.retryagent.it.apps.LayerCalls;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;

/**
 * Calls through Spring Framework 7's {@code org.springframework.core.retry.RetryTemplate} around a java.net.http
 * request that throws an {@code IOException} on 503 ({@link LayerCalls} for the arguments). Way {@code jdkhttp}:
 * {@code RetryPolicy.builder().maxRetries(retries).delay(10 ms).includes(IOException.class)}. One {@code HttpClient}
 * for the run.
 */
public final class SpringFrameworkRetryApp {
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    public static void main(String[] args) {
        LayerCalls.run(args, SpringFrameworkRetryApp::call);
        System.exit(0);
    }

    static int call(String method, String way, int retries, String url) throws Exception {
        RetryTemplate template = new RetryTemplate(RetryPolicy.builder().maxRetries(retries)
                .delay(Duration.ofMillis(10)).includes(IOException.class).build());
        try {
            return template.execute(() -> send(method, url));
        } catch (RetryException e) {
            if (e.getCause() instanceof LayerCalls.StatusException s) {
                return s.status;
            }
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    static int send(String method, String url) throws IOException, InterruptedException {
        LayerCalls.attempt();
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        if ("POST".equals(method)) {
            request.header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString("payload"));
        } else {
            request.GET();
        }
        HttpResponse<String> response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 503) {
            throw new LayerCalls.StatusException(503);
        }
        return response.statusCode();
    }
}
