package dev.retryagent.it.retryapps;

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
 * request that throws an {@code IOException} on 503 ({@link LayerApp} for the arguments). Variants
 * {@code jdkhttp-on} ({@code RetryPolicy.builder().maxRetries(2).delay(10 ms).includes(IOException.class)}: 3
 * attempts) and {@code jdkhttp-off} ({@code maxRetries(0)}). One {@code HttpClient} for the run.
 */
public final class SpringFrameworkRetryApp {
    public static final int ATTEMPTS = 3;

    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    private static final RetryTemplate RETRYING = template(ATTEMPTS - 1);
    private static final RetryTemplate ONCE = template(0);

    private static RetryTemplate template(int maxRetries) {
        return new RetryTemplate(RetryPolicy.builder().maxRetries(maxRetries).delay(Duration.ofMillis(10))
                .includes(IOException.class).build());
    }

    public static void main(String[] args) throws Exception {
        LayerApp.run(args, SpringFrameworkRetryApp::call);
    }

    static int call(String variant, String method, String url) throws Exception {
        RetryTemplate template = variant.endsWith("-on") ? RETRYING : ONCE;
        try {
            return template.execute(() -> send(method, url));
        } catch (RetryException e) {
            if (e.getCause() instanceof StatusException s) {
                return s.status;
            }
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    static int send(String method, String url) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        if ("POST".equals(method)) {
            request.header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString("payload"));
        } else {
            request.GET();
        }
        HttpResponse<String> response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 503) {
            throw new StatusException(503);
        }
        return response.statusCode();
    }
}
