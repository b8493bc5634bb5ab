package dev.retryagent.it.retryapps;

import dev.retryagent.it.apps.LayerCalls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import org.springframework.retry.support.RetryTemplate;

/**
 * Calls through Spring Retry's {@code RetryTemplate} around a plain HttpURLConnection request that throws an
 * {@code IOException} on 503 ({@link LayerCalls} for the arguments). Way {@code jdk}:
 * {@code RetryTemplate.builder().maxAttempts(retries + 1).fixedBackoff(10).retryOn(IOException.class)}. Only API that
 * 1.3 has too, so the same class runs on Spring Retry 1.3.4 and 2.0.x.
 */
public final class SpringRetryApp {
    public static void main(String[] args) {
        LayerCalls.run(args, SpringRetryApp::call);
        System.exit(0);
    }

    static int call(String method, String way, int retries, String url) throws IOException {
        RetryTemplate template = RetryTemplate.builder().maxAttempts(retries + 1).fixedBackoff(10)
                .retryOn(IOException.class).build();
        try {
            return template.execute(context -> send(method, url));
        } catch (LayerCalls.StatusException e) {
            return e.status;
        }
    }

    static int send(String method, String url) throws IOException {
        LayerCalls.attempt();
        HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
        c.setRequestMethod(method);
        if ("POST".equals(method)) {
            c.setDoOutput(true);
            c.setRequestProperty("Content-Type", "text/plain");
            try (OutputStream out = c.getOutputStream()) {
                out.write("payload".getBytes(StandardCharsets.UTF_8));
            }
        }
        int status = c.getResponseCode();
        InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
        if (in != null) {
            try (InputStream body = in) {
                body.readAllBytes();
            }
        }
        if (status == 503) {
            throw new LayerCalls.StatusException(status);
        }
        return status;
    }
}
