package dev.retryagent.it.retryapps;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import org.springframework.retry.support.RetryTemplate;

/**
 * Calls through Spring Retry's {@code RetryTemplate} around a plain HttpURLConnection request that throws an
 * {@code IOException} on 503 ({@link LayerApp} for the arguments). Variants {@code jdk-on}
 * ({@code RetryTemplate.builder().maxAttempts(3).fixedBackoff(10).retryOn(IOException.class)}) and {@code jdk-off}
 * ({@code maxAttempts(1)}). Only API that 1.3 has too, so the same class runs on Spring Retry 1.3.4 and 2.0.x.
 */
public final class SpringRetryApp {
    public static final int ATTEMPTS = 3;

    private static final RetryTemplate RETRYING = RetryTemplate.builder().maxAttempts(ATTEMPTS).fixedBackoff(10)
            .retryOn(IOException.class).build();
    private static final RetryTemplate ONCE = RetryTemplate.builder().maxAttempts(1).fixedBackoff(10)
            .retryOn(IOException.class).build();

    public static void main(String[] args) throws Exception {
        LayerApp.run(args, SpringRetryApp::call);
    }

    static int call(String variant, String method, String url) throws IOException {
        RetryTemplate template = variant.endsWith("-on") ? RETRYING : ONCE;
        try {
            return template.execute(context -> send(method, url));
        } catch (StatusException e) {
            return e.status;
        }
    }

    static int send(String method, String url) throws IOException {
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
            throw new StatusException(status);
        }
        return status;
    }
}
