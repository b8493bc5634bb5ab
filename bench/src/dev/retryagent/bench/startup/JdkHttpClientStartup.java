package dev.retryagent.bench.startup;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** A small app: one java.net.http.HttpClient call to its own loopback server, then exit. No agent code. */
public final class JdkHttpClientStartup {
    public static void main(String[] args) throws Exception {
        int port = OneShotServer.start();
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ping"))
                .build(), HttpResponse.BodyHandlers.ofString());
        OneShotServer.finish(response.statusCode(), response.body());
    }
}
