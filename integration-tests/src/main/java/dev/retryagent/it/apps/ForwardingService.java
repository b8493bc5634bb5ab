package dev.retryagent.it.apps;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URL;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;

/**
 * A "legacy" service in the middle of a call chain (a gateway, a backend-for-frontend): it accepts HTTP requests
 * on a loopback port and forwards each one to its upstream with every incoming header (hop-by-hop ones aside),
 * the method and the body, through the client it is told to use, then answers with the upstream's status and
 * body. It knows nothing about the agent; forwarding incoming headers is what carries a marker from hop to hop.
 *
 * <pre>
 * --client okhttp|httpclient5|httpclient4|httpurlconnection|jdk-httpclient
 *                                                 the outgoing client (OkHttp, HttpClient 5 or 4 on the class path;
 *                                                 jdk-httpclient on Java 11 or later)
 * --upstream URL                                  http://host:port; the incoming path and query are appended
 * </pre>
 * Prints {@code LISTENING port=N} once it accepts requests, then per request {@code FORWARDED method=.. path=..
 * marker=<incoming Retry-Attempt> status=<upstream's, or failure class>}. Runs until its stdin closes.
 */
public final class ForwardingService {
    /** Headers that belong to one connection, not to the request: never forwarded. */
    private static final Set<String> HOP_BY_HOP = Collections.unmodifiableSet(new HashSet<>(Arrays.asList("host",
            "connection", "keep-alive", "content-length", "transfer-encoding", "te", "trailer", "upgrade",
            "proxy-connection", "proxy-authorization", "expect")));

    /** One outgoing client. */
    interface Forwarder {
        /** Sends the request upstream; answers the status and body. */
        Reply forward(String method, String url, List<String[]> headers, byte[] body) throws IOException;
    }

    static final class Reply {
        private final int status;
        private final byte[] body;

        Reply(int status, byte[] body) {
            this.status = status;
            this.body = body;
        }

        public int status() {
            return status;
        }

        public byte[] body() {
            return body;
        }
    }

    private ForwardingService() {
    }

    public static void main(String[] argv) throws Exception {
        String client = null;
        String upstream = null;
        for (int i = 0; i + 1 < argv.length; i += 2) {
            switch (argv[i]) {
                case "--client":
                    client = argv[i + 1];
                    break;
                case "--upstream":
                    upstream = argv[i + 1];
                    break;
                default:
                    System.err.println("usage error: unknown argument " + argv[i]);
                    System.exit(2);
            }
        }
        if (client == null || upstream == null) {
            System.err.println("usage error: --client and --upstream are required");
            System.exit(2);
            return;
        }
        // By name, so that only the chosen client's classes are ever loaded.
        Forwarder forwarder = (Forwarder) Class.forName(forwarderClass(client)).getDeclaredConstructor().newInstance();
        String base = upstream.replaceAll("/$", "");
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.createContext("/", exchange -> handle(exchange, forwarder, base));
        server.start();
        Report.line("LISTENING", "port", server.getAddress().getPort(), "client", client);
        Report.readAll(System.in); // until stdin closes
        Report.line("DONE");
        System.exit(0);
    }

    /** The binary name of the forwarder of {@code client}. */
    private static String forwarderClass(String client) {
        String nested = ForwardingService.class.getName() + "$";
        switch (client) {
            case "okhttp":
                return nested + "OkHttpForwarder";
            case "httpclient5":
                return nested + "HttpClient5Forwarder";
            case "httpclient4":
                return nested + "HttpClient4Forwarder";
            case "httpurlconnection":
                return nested + "JdkForwarder";
            case "jdk-httpclient":
                // java.net.http: compiled from src/main/java11, into this package
                return ForwardingService.class.getPackage().getName() + ".JdkHttpClientForwarder";
            default:
                throw new IllegalArgumentException("--client " + client);
        }
    }

    private static void handle(HttpExchange exchange, Forwarder forwarder, String base) throws IOException {
        try {
            byte[] body = Report.readAll(exchange.getRequestBody());
            List<String[]> headers = new ArrayList<>();
            for (Map.Entry<String, List<String>> h : exchange.getRequestHeaders().entrySet()) {
                if (!HOP_BY_HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                    for (String value : h.getValue()) {
                        headers.add(new String[] {h.getKey(), value});
                    }
                }
            }
            URI uri = exchange.getRequestURI();
            String method = exchange.getRequestMethod();
            String marker = exchange.getRequestHeaders().getFirst("Retry-Attempt");
            Reply reply;
            String outcome;
            try {
                reply = forwarder.forward(method, base + uri.getRawPath()
                        + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()), headers, body);
                outcome = Integer.toString(reply.status());
            } catch (IOException e) {
                reply = new Reply(502, ("upstream: " + e).getBytes());
                outcome = e.getClass().getName();
            }
            Report.line("FORWARDED", "method", method, "path", uri.getRawPath(), "marker", marker, "status", outcome);
            exchange.sendResponseHeaders(reply.status(), reply.body().length == 0 ? -1 : reply.body().length);
            if (reply.body().length > 0) {
                exchange.getResponseBody().write(reply.body());
            }
        } finally {
            exchange.close();
        }
    }

    static final class OkHttpForwarder implements Forwarder {
        private final OkHttpClient client = new OkHttpClient.Builder().build();

        @Override
        public Reply forward(String method, String url, List<String[]> headers, byte[] body) throws IOException {
            boolean hasBody = body.length > 0 || method.equals("POST") || method.equals("PUT");
            Request.Builder request = new Request.Builder().url(url)
                    .method(method, hasBody ? RequestBody.create(body, MediaType.get("application/octet-stream")) : null);
            for (String[] h : headers) {
                request.addHeader(h[0], h[1]);
            }
            try (Response response = client.newCall(request.build()).execute()) {
                ResponseBody responseBody = response.body();
                return new Reply(response.code(), responseBody == null ? new byte[0] : responseBody.bytes());
            }
        }
    }

    static final class HttpClient5Forwarder implements Forwarder {
        private final CloseableHttpClient client = HttpClients.createDefault();

        @Override
        public Reply forward(String method, String url, List<String[]> headers, byte[] body) throws IOException {
            HttpUriRequestBase request = new HttpUriRequestBase(method, URI.create(url));
            for (String[] h : headers) {
                request.addHeader(h[0], h[1]);
            }
            if (body.length > 0) {
                request.setEntity(new ByteArrayEntity(body, ContentType.APPLICATION_OCTET_STREAM));
            }
            return client.execute(request, response -> new Reply(response.getCode(),
                    response.getEntity() == null ? new byte[0] : EntityUtils.toByteArray(response.getEntity())));
        }
    }

    /** Apache HttpClient 4.5, {@code HttpClients.createDefault()}; its types are named in full (HttpClient 5's are imported). */
    static final class HttpClient4Forwarder implements Forwarder {
        private final org.apache.http.impl.client.CloseableHttpClient client =
                org.apache.http.impl.client.HttpClients.createDefault();

        @Override
        public Reply forward(String method, String url, List<String[]> headers, byte[] body) throws IOException {
            org.apache.http.client.methods.RequestBuilder request =
                    org.apache.http.client.methods.RequestBuilder.create(method).setUri(URI.create(url));
            for (String[] h : headers) {
                request.addHeader(h[0], h[1]);
            }
            if (body.length > 0) {
                request.setEntity(new org.apache.http.entity.ByteArrayEntity(body,
                        org.apache.http.entity.ContentType.APPLICATION_OCTET_STREAM));
            }
            return client.execute(request.build(), response -> new Reply(response.getStatusLine().getStatusCode(),
                    response.getEntity() == null ? new byte[0]
                            : org.apache.http.util.EntityUtils.toByteArray(response.getEntity())));
        }
    }

    static final class JdkForwarder implements Forwarder {
        @Override
        public Reply forward(String method, String url, List<String[]> headers, byte[] body) throws IOException {
            HttpURLConnection conn = (HttpURLConnection) new URL(url).openConnection();
            conn.setRequestMethod(method);
            for (String[] h : headers) {
                conn.addRequestProperty(h[0], h[1]);
            }
            if (body.length > 0) {
                conn.setDoOutput(true);
                try (OutputStream out = conn.getOutputStream()) {
                    out.write(body);
                }
            }
            int status = conn.getResponseCode();
            InputStream in = status < 400 ? conn.getInputStream() : conn.getErrorStream();
            byte[] bytes = new byte[0];
            if (in != null) {
                try (InputStream input = in) {
                    bytes = Report.readAll(input);
                }
            }
            return new Reply(status, bytes);
        }
    }
}
