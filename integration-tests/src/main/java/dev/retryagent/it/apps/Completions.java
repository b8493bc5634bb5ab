package dev.retryagent.it.apps;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Response;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.core5.concurrent.FutureCallback;

/**
 * The async clients' callbacks as futures, for apps that wait for each async call on the calling thread. Only for
 * apps that have both OkHttp and HttpClient 5 on their class path.
 */
public final class Completions {
    private Completions() {
    }

    /** {@code call.enqueue}: the response (its body still to be read and closed by the caller) or the failure. */
    public static CompletableFuture<Response> enqueue(Call call) {
        CompletableFuture<Response> done = new CompletableFuture<>();
        call.enqueue(new Callback() {
            @Override
            public void onFailure(Call c, IOException e) {
                done.completeExceptionally(e);
            }

            @Override
            public void onResponse(Call c, Response response) {
                done.complete(response);
            }
        });
        return done;
    }

    /** {@code client.execute(request, callback)}: the buffered response, the failure, or cancelled. */
    public static CompletableFuture<SimpleHttpResponse> execute(CloseableHttpAsyncClient client, SimpleHttpRequest request) {
        CompletableFuture<SimpleHttpResponse> done = new CompletableFuture<>();
        client.execute(request, new FutureCallback<SimpleHttpResponse>() {
            @Override
            public void completed(SimpleHttpResponse result) {
                done.complete(result);
            }

            @Override
            public void failed(Exception ex) {
                done.completeExceptionally(ex);
            }

            @Override
            public void cancelled() {
                done.cancel(false);
            }
        });
        return done;
    }
}
