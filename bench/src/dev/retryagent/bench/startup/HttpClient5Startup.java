package dev.retryagent.bench.startup;

import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.io.entity.EntityUtils;

/** A small app: one Apache HttpClient 5 (classic) call to its own loopback server, then exit. No agent code. */
public final class HttpClient5Startup {
    public static void main(String[] args) throws Exception {
        int port = OneShotServer.start();
        try (CloseableHttpClient client = HttpClients.createDefault()) {
            HttpGet get = new HttpGet("http://127.0.0.1:" + port + "/ping");
            String[] result = client.execute(get, response ->
                    new String[] {Integer.toString(response.getCode()), EntityUtils.toString(response.getEntity())});
            OneShotServer.finish(Integer.parseInt(result[0]), result[1]);
        }
    }
}
