package dev.retryagent.it.retryapps;

import dev.retryagent.it.apps.LayerCalls;
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
import java.util.concurrent.TimeUnit;

/**
 * Calls through a Feign interface ({@link LayerCalls} for the arguments). Ways {@code default} and {@code okhttp}:
 * Feign's default client (HttpURLConnection) or {@code feign-okhttp}; {@code Retryer.Default(10, 50, retries + 1)}
 * (short waits) or, with no retries, {@code Retryer.NEVER_RETRY}.
 * Feign retries I/O errors by itself; a 503 only through an {@code ErrorDecoder} that makes it a
 * {@code RetryableException}, as services commonly add (the default decoder does so only with {@code Retry-After}):
 * these ways have one, {@code RetryOn503}; the same ways suffixed {@value #FEIGNS_DECODER} keep Feign's own
 * ({@code ErrorDecoder.Default}).
 * Way {@code okhttp-call-timeout}: {@code feign-okhttp} over an OkHttp client built with {@code callTimeout}
 * {@value #CALL_TIMEOUT_MS} ms. One Feign client per way, retries and base URL, kept for the run (connections pooled as in a service). Runs on
 * feign-core alone for the {@code default} way. A request interceptor counts the attempts (Feign applies it to
 * each).
 */
public final class FeignApp {
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
        static final Client WITH_CALL_TIMEOUT = new OkHttpClient(new okhttp3.OkHttpClient.Builder()
                .callTimeout(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS).build());
    }

    static final long CALL_TIMEOUT_MS = 500;
    /** The suffix of a way whose client keeps Feign's own error decoder. */
    static final String FEIGNS_DECODER = "+feign-decoder";

    public static void main(String[] args) {
        LayerCalls.run(args, FeignApp::call);
        System.exit(0);
    }

    static int call(String method, String way, int retries, String base) {
        boolean feignsDecoder = way.endsWith(FEIGNS_DECODER);
        String client = feignsDecoder ? way.substring(0, way.length() - FEIGNS_DECODER.length()) : way;
        Items items = CLIENTS.computeIfAbsent(way + " " + retries + " " + base, k -> Feign.builder()
                .client(client.equals("okhttp") ? OkHttp.CLIENT : client.equals("okhttp-call-timeout")
                        ? OkHttp.WITH_CALL_TIMEOUT : new Client.Default(null, null))
                .retryer(retries > 0 ? new Retryer.Default(10, 50, retries + 1) : Retryer.NEVER_RETRY)
                .requestInterceptor(template -> LayerCalls.attempt())
                .errorDecoder(feignsDecoder ? new ErrorDecoder.Default() : new RetryOn503())
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
