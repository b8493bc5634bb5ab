package dev.retryagent.it.sdkapps;

import dev.retryagent.it.apps.LayerCalls;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.http.HttpHost;
import org.elasticsearch.client.Cancellable;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.Response;
import org.elasticsearch.client.ResponseListener;
import org.elasticsearch.client.RestClient;

/**
 * The Elasticsearch low-level REST client (its own HttpAsyncClient 4), one client per call ({@code client} is
 * {@code sync} or {@code async}: {@code performRequest} or {@code performRequestAsync}; {@code async-cancel}:
 * {@code performRequestAsync}, its {@code Cancellable} cancelled {@value #CANCEL_AFTER_MS} ms later). The call's URL is a
 * comma-separated list of nodes; retries on: every node; off: the first node only. GET
 * {@code /idx/_doc/1}; the POST {@code /idx/_doc} with a JSON body.
 */
public final class ElasticsearchApp {
    static final long CANCEL_AFTER_MS = 500;

    private ElasticsearchApp() {
    }

    public static void main(String[] args) throws Exception {
        LayerCalls.run(args, (method, client, retries, url) -> {
            List<HttpHost> hosts = new ArrayList<>();
            for (String node : url.split(",")) {
                hosts.add(HttpHost.create(node));
                if (retries == 0) {
                    break;
                }
            }
            try (RestClient rest = RestClient.builder(hosts.toArray(new HttpHost[0])).build()) {
                Request request;
                if (method.equals("POST")) {
                    request = new Request("POST", "/idx/_doc");
                    request.setJsonEntity("{\"a\":1}");
                } else {
                    request = new Request("GET", "/idx/_doc/1");
                }
                Response response = client.startsWith("async")
                        ? async(rest, request, client.equals("async-cancel")) : rest.performRequest(request);
                return response.getStatusLine().getStatusCode();
            }
        });
        System.exit(0);
    }

    private static Response async(RestClient rest, Request request, boolean cancel) throws Exception {
        CompletableFuture<Response> done = new CompletableFuture<>();
        Cancellable cancellable = rest.performRequestAsync(request, new ResponseListener() {
            @Override
            public void onSuccess(Response response) {
                done.complete(response);
            }

            @Override
            public void onFailure(Exception exception) {
                done.completeExceptionally(exception);
            }
        });
        if (cancel) {
            CompletableFuture.delayedExecutor(CANCEL_AFTER_MS, TimeUnit.MILLISECONDS).execute(cancellable::cancel);
        }
        try {
            return done.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception ex ? ex : e;
        }
    }
}
