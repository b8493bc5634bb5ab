package dev.retryagent.bench.startup;

import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;

/** A small app: one JDK HttpURLConnection call to its own loopback server, then exit. No agent code. */
public final class HttpUrlConnectionStartup {
    public static void main(String[] args) throws Exception {
        int port = OneShotServer.start();
        HttpURLConnection connection = (HttpURLConnection) new URL("http://127.0.0.1:" + port + "/ping").openConnection();
        int status = connection.getResponseCode();
        String body;
        try (InputStream in = connection.getInputStream()) {
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        OneShotServer.finish(status, body);
    }
}
