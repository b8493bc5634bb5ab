package dev.retryagent.it.apps;

import dev.retryagent.it.clients.HttpClient5Kit;
import dev.retryagent.it.clients.KitRequest;
import dev.retryagent.it.clients.Kits;
import dev.retryagent.it.clients.OkHttpKit;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.HttpEntityWrapper;
import org.apache.hc.core5.http.io.entity.StringEntity;

/**
 * A plain application that sends secrets with every request, through every client and mode, and prints only what
 * it may: each call's status or failure class (never an exception message, which may quote a URL), and then every
 * MBean of the {@code retry-agent} domain with each attribute's value, read from the platform MBean server. Each
 * secret is {@code s3cr3t-KIND-TAG}; the test scans every line the JVM writes for the tag.
 *
 * <pre>
 * --tag TAG             the random part of every secret
 * --busy URL            a server that always answers 503
 * --retry-after URL     a server that answers 503 with a Retry-After beyond the policy's max
 * --drop URL            a server that reads each request and closes the connection
 * --refused URL         a port where nothing listens
 * --hc5-noretries       HttpClient 5 clients without their own retries (which wait out a Retry-After themselves
 *                       when the agent does not replace them)
 * </pre>
 *
 * Per call (client {@code okhttp-sync|okhttp-async|hc5-classic|hc5-async|huc}, scenario as in the path)
 * {@code RESULT id=CLIENT-SCENARIO status=..} or {@code RESULT id=.. failure=CLASS}, then {@code MBEAN name=..
 * ATTRIBUTE=VALUE ...} per MBean of the domain, {@code MBEANS count=..} and {@code DONE}.
 */
public final class SecretsApp {
    /** Longer than the agent's 1 s metrics period: no MBean still to come. */
    private static final long SETTLED_MS = 2500;
    private static final String TEXT = "text/plain; charset=utf-8";
    /** The clients and modes, by the names of the ids and paths. */
    private static final List<String> CLIENTS = Collections.unmodifiableList(Arrays.asList("okhttp-sync",
            "okhttp-async", "hc5-classic", "hc5-async", "huc"));

    private final String tag;
    private final Map<String, String> servers = new LinkedHashMap<>();

    private SecretsApp(String tag) {
        this.tag = tag;
    }

    private String secret(String kind) {
        return "s3cr3t-" + kind + "-" + tag;
    }

    /** One request: where it goes and what it carries besides the secrets every request has. */
    private static final class Scenario {
        private final String scenario;
        private final String server;
        private final String method;
        private final boolean body;
        private final boolean key;
        private final boolean nonReplayable;
        private final boolean nested;
        private final boolean userInfo;
        private final boolean throwingBody;

        Scenario(String scenario, String server, String method, boolean body, boolean key, boolean nonReplayable,
                boolean nested, boolean userInfo, boolean throwingBody) {
            this.scenario = scenario;
            this.server = server;
            this.method = method;
            this.body = body;
            this.key = key;
            this.nonReplayable = nonReplayable;
            this.nested = nested;
            this.userInfo = userInfo;
            this.throwingBody = throwingBody;
        }

        String scenario() {
            return scenario;
        }

        String server() {
            return server;
        }

        String method() {
            return method;
        }

        boolean body() {
            return body;
        }

        boolean key() {
            return key;
        }

        boolean nonReplayable() {
            return nonReplayable;
        }

        boolean nested() {
            return nested;
        }

        boolean userInfo() {
            return userInfo;
        }

        boolean throwingBody() {
            return throwingBody;
        }
    }

    private static final List<Scenario> CALLS = Collections.unmodifiableList(Arrays.asList(
            new Scenario("attempts", "busy", "GET", false, false, false, false, false, false),
            new Scenario("userinfo", "busy", "GET", false, false, false, false, true, false),
            new Scenario("postNoKey", "busy", "POST", true, false, false, false, false, false),
            new Scenario("postKey", "busy", "POST", true, true, false, false, false, false),
            new Scenario("nonReplayable", "busy", "POST", true, true, true, false, false, false),
            new Scenario("retryAfter", "retry-after", "GET", false, false, false, false, false, false),
            new Scenario("budget", "busy", "GET", false, false, false, false, false, false),
            new Scenario("deadline", "busy", "GET", false, false, false, false, false, false),
            new Scenario("nested", "busy", "GET", false, false, false, true, false, false),
            new Scenario("reset", "drop", "PUT", true, false, false, false, false, false),
            new Scenario("refused", "refused", "GET", false, false, false, false, false, false),
            new Scenario("internalError", "busy", "POST", true, true, false, false, false, true)));

    public static void main(String[] argv) throws Exception {
        Args args = Args.parse(argv, new HashSet<>(Arrays.asList("tag", "busy", "retry-after", "drop", "refused")),
                Collections.singleton("hc5-noretries"));
        SecretsApp app = new SecretsApp(args.get("tag", null));
        for (String s : Arrays.asList("busy", "retry-after", "drop", "refused")) {
            String url = args.get(s, null);
            app.servers.put(s, url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
        }
        OkHttpKit okhttp = new OkHttpKit();
        boolean noRetries = args.has("hc5-noretries");
        CloseableHttpClient classic = noRetries ? HttpClients.custom().disableAutomaticRetries().build()
                : HttpClients.createDefault();
        try (Kits kits = new Kits().use("okhttp", () -> okhttp).use("httpclient5", () -> new HttpClient5Kit(classic,
                noRetries ? HttpAsyncClients.custom().disableAutomaticRetries().build()
                        : HttpAsyncClients.createDefault()))) {
            kits.kit("httpclient5");
            for (Scenario call : CALLS) {
                for (String client : CLIENTS) {
                    String id = client + "-" + call.scenario();
                    if (call.throwingBody()) {
                        guarded(id, () -> app.throwingBody(id, client, okhttp.client(), classic, call));
                    } else if (!(call.nonReplayable() && client.equals("hc5-async"))) {
                        // a one-shot body on the async client is HttpClient5Batch's: a producer of its own
                        guarded(id, () -> app.call(id, kits, client, call));
                    }
                }
            }
        }
        printMBeans();
        Report.line("DONE");
        System.exit(0);
    }

    /** Runs one call; whatever escapes it is reported by its class only, and the other calls go on. */
    private static void guarded(String id, Runnable call) {
        try {
            call.run();
        } catch (Throwable t) {
            Report.line("RESULT", "id", id, "unexpected", t.getClass().getName());
        }
    }

    /** The URL of {@code call} for {@code client}: API keys in the query, user info where asked. */
    private String url(Scenario call, String client) {
        String base = servers.get(call.server());
        if (call.userInfo()) {
            base = base.replace("http://", "http://" + secret("USER") + ":" + secret("PASS") + "@");
        }
        return base + "/" + call.scenario() + "/" + client + "?api_key=" + secret("APIKEY") + "&token=" + secret("TOKEN");
    }

    private Map<String, String> headers(Scenario call) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Authorization", "Bearer " + secret("AUTH"));
        h.put("Cookie", "session=" + secret("COOKIE"));
        h.put("X-Api-Key", secret("HEADERKEY"));
        if (call.key()) {
            h.put("Idempotency-Key", secret("IDEMKEY"));
        }
        if (call.nested()) {
            h.put("Retry-Attempt", "1");
        }
        return h;
    }

    private byte[] body() {
        return ("{\"password\":\"" + secret("BODY") + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    private static void result(String id, Object status) {
        Report.line("RESULT", "id", id, "status", status);
    }

    /** Only the class: a client's exception message may quote the URL, query and user info included. */
    private static void failed(String id, Throwable t) {
        Throwable reported = t instanceof java.util.concurrent.ExecutionException && t.getCause() != null
                ? t.getCause() : t;
        Report.line("RESULT", "id", id, "failure", reported.getClass().getName());
    }

    /** One call of {@code client}'s kit, in its mode. */
    private void call(String id, Kits kits, String client, Scenario call) {
        KitRequest request = KitRequest.of(call.method(), url(call, client));
        for (Map.Entry<String, String> h : headers(call).entrySet()) {
            request = request.header(h.getKey(), h.getValue());
        }
        if (call.body()) {
            request = request.body(body(), TEXT);
            if (call.nonReplayable()) {
                request = request.oneShot();
            }
        }
        try {
            result(id, kits.call(client, request, 30, TimeUnit.SECONDS).status());
        } catch (Exception e) {
            failed(id, e);
        }
    }

    /**
     * A body whose first look by the agent throws, with a secret as the message: the agent fails open and must log
     * no message. Only where the application's own code runs inside the request: OkHttp's sync call (its async
     * call rethrows a body's exception on its dispatcher thread, message and all) and HttpClient 5's classic one
     * (its async simple requests are buffered; HttpURLConnection runs no code of the application's).
     */
    private void throwingBody(String id, String client, OkHttpClient okhttp, CloseableHttpClient classic,
            Scenario call) {
        try {
            if (client.equals("okhttp-sync")) {
                Request.Builder builder = new Request.Builder().url(url(call, client))
                        .method(call.method(), new OkBody(body(), secret("ERR")));
                headers(call).forEach(builder::header);
                try (Response r = okhttp.newCall(builder.build()).execute()) {
                    r.body().string();
                    result(id, r.code());
                }
            } else if (client.equals("hc5-classic")) {
                HttpUriRequestBase request = new HttpUriRequestBase(call.method(), URI.create(url(call, client)));
                headers(call).forEach(request::setHeader);
                request.setEntity(new ThrowingEntity(body(), secret("ERR")));
                result(id, classic.execute(request, response -> {
                    EntityUtils.consume(response.getEntity());
                    return response.getCode();
                }));
            }
        } catch (IOException | RuntimeException e) {
            failed(id, e);
        }
    }

    /** An OkHttp body whose first {@code isOneShot()} (the agent's, before the first attempt) throws. */
    private static final class OkBody extends RequestBody {
        private final byte[] bytes;
        private final String errorMessage;
        private boolean thrown;

        OkBody(byte[] bytes, String errorMessage) {
            this.bytes = bytes;
            this.errorMessage = errorMessage;
        }

        @Override
        public MediaType contentType() {
            return MediaType.parse(TEXT);
        }

        @Override
        public long contentLength() {
            return bytes.length;
        }

        @Override
        public synchronized boolean isOneShot() {
            if (!thrown) {
                thrown = true;
                throw new IllegalStateException(errorMessage);
            }
            return false;
        }

        @Override
        public void writeTo(BufferedSink sink) throws IOException {
            sink.write(bytes);
        }
    }

    /** A repeatable entity whose first {@code isRepeatable()} (the agent's) throws with a secret as its message. */
    private static final class ThrowingEntity extends HttpEntityWrapper {
        private final String errorMessage;
        private boolean thrown;

        ThrowingEntity(byte[] body, String errorMessage) {
            super(new StringEntity(new String(body, StandardCharsets.UTF_8), ContentType.TEXT_PLAIN));
            this.errorMessage = errorMessage;
        }

        @Override
        public synchronized boolean isRepeatable() {
            if (!thrown) {
                thrown = true;
                throw new IllegalStateException(errorMessage);
            }
            return true;
        }
    }

    // ---- JMX ----

    /**
     * Every MBean of the agent's domain, each attribute's value. The agent registers new destinations' MBeans from a
     * periodic task: waits (up to 10 s) until the names have not changed for {@link #SETTLED_MS}, longer than its
     * period.
     */
    private static void printMBeans() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName pattern = new ObjectName("retry-agent:*");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Set<ObjectName> names = server.queryNames(pattern, null);
        long settledSince = System.nanoTime();
        while (System.nanoTime() < end
                && (names.isEmpty() || System.nanoTime() - settledSince < TimeUnit.MILLISECONDS.toNanos(SETTLED_MS))) {
            Thread.sleep(50);
            Set<ObjectName> now = server.queryNames(pattern, null);
            if (!now.equals(names)) {
                names = now;
                settledSince = System.nanoTime();
            }
        }
        for (ObjectName name : names) {
            Object[] pairs = new Object[2 + 2 * server.getMBeanInfo(name).getAttributes().length];
            pairs[0] = "name";
            pairs[1] = name.getCanonicalName();
            int i = 2;
            for (MBeanAttributeInfo attribute : server.getMBeanInfo(name).getAttributes()) {
                pairs[i++] = attribute.getName();
                Object value;
                try {
                    value = server.getAttribute(name, attribute.getName());
                } catch (Exception e) {
                    value = "unreadable:" + e.getClass().getName();
                }
                pairs[i++] = value;
            }
            Report.line("MBEAN", pairs);
        }
        Report.line("MBEANS", "count", names.size());
    }
}
