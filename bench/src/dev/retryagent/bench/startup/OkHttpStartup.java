package dev.retryagent.bench.startup;

import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/** A small app: one OkHttp call to its own loopback server, then exit. No agent code. */
public final class OkHttpStartup {
    public static void main(String[] args) throws Exception {
        int port = OneShotServer.start();
        OkHttpClient client = new OkHttpClient();
        Request request = new Request.Builder().url("http://127.0.0.1:" + port + "/ping").build();
        try (Response response = client.newCall(request).execute()) {
            OneShotServer.finish(response.code(), response.body().string());
        }
    }
}
