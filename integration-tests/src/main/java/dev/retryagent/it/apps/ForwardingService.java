package dev.retryagent.it.apps;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.retryagent.it.clients.HttpKit;
import dev.retryagent.it.clients.KitReply;
import dev.retryagent.it.clients.KitRequest;
import dev.retryagent.it.clients.Kits;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;

/**
 * A "legacy" service in the middle of a call chain (a gateway, a backend-for-frontend): it accepts HTTP requests
 * on a loopback port and forwards each one to its upstream with every incoming header (hop-by-hop ones aside),
 * the method and the body, through the kit of the client it is told to use, then answers with the upstream's status and
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
        HttpKit forwarder = Kits.create(client);
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

    private static void handle(HttpExchange exchange, HttpKit forwarder, String base) throws IOException {
        try {
            byte[] body = Report.readAll(exchange.getRequestBody());
            URI uri = exchange.getRequestURI();
            String method = exchange.getRequestMethod();
            KitRequest request = KitRequest.of(method, base + uri.getRawPath()
                    + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()));
            for (Map.Entry<String, List<String>> h : exchange.getRequestHeaders().entrySet()) {
                if (!HOP_BY_HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                    for (String value : h.getValue()) {
                        request = request.header(h.getKey(), value);
                    }
                }
            }
            if (body.length > 0) {
                request = request.body(body, "application/octet-stream");
            }
            String marker = exchange.getRequestHeaders().getFirst("Retry-Attempt");
            int status;
            byte[] answer;
            String outcome;
            try {
                KitReply reply = forwarder.call(request);
                status = reply.status();
                answer = reply.body();
                outcome = Integer.toString(status);
            } catch (IOException e) {
                status = 502;
                answer = ("upstream: " + e).getBytes();
                outcome = e.getClass().getName();
            }
            Report.line("FORWARDED", "method", method, "path", uri.getRawPath(), "marker", marker, "status", outcome);
            exchange.sendResponseHeaders(status, answer.length == 0 ? -1 : answer.length);
            if (answer.length > 0) {
                exchange.getResponseBody().write(answer);
            }
        } finally {
            exchange.close();
        }
    }
}
