package dev.retryagent.it.retryapps;

import feign.Client;
import feign.Feign;
import feign.FeignException;
import feign.Headers;
import feign.RequestLine;
import feign.RetryableException;
import feign.Retryer;
import feign.codec.ErrorDecoder;
import feign.okhttp.OkHttpClient;
import java.util.HashMap;
import java.util.Map;

/**
 * Calls through a Feign interface ({@link LayerApp} for the arguments). Variants {@code default-on},
 * {@code default-off}, {@code okhttp-on}, {@code okhttp-off}: Feign's default client (HttpURLConnection) or
 * {@code feign-okhttp}; {@code Retryer.Default(10, 50, 5)} (5 attempts, short waits) or {@code Retryer.NEVER_RETRY}.
 * Feign retries I/O errors by itself; a 503 only through an {@code ErrorDecoder} that makes it a
 * {@code RetryableException}, as services commonly add (the default decoder does so only with {@code Retry-After}).
 * One Feign client per variant and base URL, kept for the run (connections pooled as in a service). Runs on
 * feign-core alone for the {@code default-*} variants.
 */
public final class FeignApp {
    public static final int ATTEMPTS = 5;

    interface Items {
        @RequestLine("GET /items")
        String get();

        @RequestLine("POST /items")
        @Headers("Content-Type: text/plain")
        String post(String body);
    }

    /** 503 is worth another attempt; anything else as Feign decides by default. */
    static final class RetryOn503 implements ErrorDecoder {
        private final ErrorDecoder fallback = new ErrorDecoder.Default();

        @Override
        public Exception decode(String methodKey, feign.Response response) {
            if (response.status() == 503) {
                return new RetryableException(503, "503 from " + methodKey, response.request().httpMethod(),
                        (Long) null, response.request());
            }
            return fallback.decode(methodKey, response);
        }
    }

    private static final Map<String, Items> CLIENTS = new HashMap<>();

    /** One OkHttp client for the run, made at its first use (the 13.13 run has no feign-okhttp). */
    private static final class OkHttp {
        static final Client CLIENT = new OkHttpClient();
    }

    public static void main(String[] args) throws Exception {
        LayerApp.run(args, FeignApp::call);
    }

    static int call(String variant, String method, String url) {
        String base = url.substring(0, url.indexOf('/', "http://".length()));
        Items items = CLIENTS.computeIfAbsent(variant + " " + base, k -> Feign.builder()
                .client(variant.startsWith("okhttp") ? OkHttp.CLIENT : new Client.Default(null, null))
                .retryer(variant.endsWith("-on") ? new Retryer.Default(10, 50, ATTEMPTS) : Retryer.NEVER_RETRY)
                .errorDecoder(new RetryOn503())
                .target(Items.class, base));
        try {
            if ("POST".equals(method)) {
                items.post("payload");
            } else {
                items.get();
            }
            return 200;
        } catch (FeignException e) {
            if (e.status() > 0) {
                return e.status();
            }
            throw e;
        }
    }
}
