package dev.retryagent.bench.startup;

import org.apache.http.client.methods.HttpGet;
import org.apache.http.impl.client.CloseableHttpClient;
import org.apache.http.impl.client.HttpClients;
import org.apache.http.util.EntityUtils;

/** A small app: one Apache HttpClient 4.5 (classic) call to its own loopback server, then exit. No agent code. */
public final class HttpClient4Startup {
    public static void main(String[] args) throws Exception {
        int port = OneShotServer.start();
        try (CloseableHttpClient client = HttpClients.createDefault()) {
            HttpGet get = new HttpGet("http://127.0.0.1:" + port + "/ping");
            String[] result = client.execute(get, response -> new String[] {
                    Integer.toString(response.getStatusLine().getStatusCode()), EntityUtils.toString(response.getEntity())});
            OneShotServer.finish(Integer.parseInt(result[0]), result[1]);
        }
    }
}
