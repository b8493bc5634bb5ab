package dev.retryagent.it.sdkapps;

import com.google.api.client.http.ByteArrayContent;
import com.google.api.client.http.GenericUrl;
import com.google.api.client.http.HttpBackOffIOExceptionHandler;
import com.google.api.client.http.HttpBackOffUnsuccessfulResponseHandler;
import com.google.api.client.http.HttpRequest;
import com.google.api.client.http.HttpResponse;
import com.google.api.client.http.HttpTransport;
import com.google.api.client.http.apache.v2.ApacheHttpTransport;
import com.google.api.client.http.javanet.NetHttpTransport;
import com.google.api.client.util.ExponentialBackOff;
import dev.retryagent.it.apps.LayerCalls;

/**
 * google-http-client, one request per call on the transport named by the call: {@code nethttp}
 * ({@code NetHttpTransport}, HttpURLConnection) or {@code apache} ({@code ApacheHttpTransport}, HttpClient 4). Every
 * request has an {@code HttpBackOffIOExceptionHandler} and, but for way {@code nethttp-failures-only}
 * ({@code NetHttpTransport}), an {@code HttpBackOffUnsuccessfulResponseHandler} (its default: server errors)
 * ({@code ExponentialBackOff}, 10 ms initial, 20 ms at most); retries on: the default {@code numberOfRetries} (10),
 * off: {@code setNumberOfRetries(0)}. The POST carries a byte-array body.
 */
public final class GoogleHttpApp {
    private GoogleHttpApp() {
    }

    public static void main(String[] args) throws Exception {
        LayerCalls.run(args, (method, client, retries, url) -> {
            HttpTransport transport = client.equals("apache") ? new ApacheHttpTransport() : new NetHttpTransport();
            try {
                GenericUrl target = new GenericUrl(url + "/items");
                HttpRequest request = method.equals("POST")
                        ? transport.createRequestFactory().buildPostRequest(target,
                                new ByteArrayContent("application/json", LayerCalls.BODY))
                        : transport.createRequestFactory().buildGetRequest(target);
                request.setIOExceptionHandler(new HttpBackOffIOExceptionHandler(backOff()));
                if (!client.equals("nethttp-failures-only")) {
                    request.setUnsuccessfulResponseHandler(new HttpBackOffUnsuccessfulResponseHandler(backOff()));
                }
                if (retries == 0) {
                    request.setNumberOfRetries(0);
                }
                HttpResponse response = request.execute();
                try {
                    return response.getStatusCode();
                } finally {
                    response.disconnect();
                }
            } finally {
                transport.shutdown();
            }
        });
        System.exit(0);
    }

    private static ExponentialBackOff backOff() {
        return new ExponentialBackOff.Builder().setInitialIntervalMillis(10).setMaxIntervalMillis(20).build();
    }
}
