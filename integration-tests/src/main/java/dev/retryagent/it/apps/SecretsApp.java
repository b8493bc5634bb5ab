package dev.retryagent.it.apps;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.HttpEntityWrapper;
import org.apache.hc.core5.http.io.entity.InputStreamEntity;
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
    private static final MediaType TEXT = MediaType.parse("text/plain; charset=utf-8");

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
        OkHttpClient okhttp = new OkHttpClient.Builder().build();
        boolean noRetries = args.has("hc5-noretries");
        try (CloseableHttpClient classic = noRetries ? HttpClients.custom().disableAutomaticRetries().build()
                : HttpClients.createDefault();
             CloseableHttpAsyncClient async = noRetries ? HttpAsyncClients.custom().disableAutomaticRetries().build()
                : HttpAsyncClients.createDefault()) {
            async.start();
            for (Scenario call : CALLS) {
                guarded("okhttp-sync-" + call.scenario(), () -> app.okhttp(okhttp, call, false));
                guarded("okhttp-async-" + call.scenario(), () -> app.okhttp(okhttp, call, true));
                guarded("hc5-classic-" + call.scenario(), () -> app.classic(classic, call));
                guarded("hc5-async-" + call.scenario(), () -> app.async(async, call));
                guarded("huc-" + call.scenario(), () -> app.huc(call));
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

    // ---- OkHttp ----

    private void okhttp(OkHttpClient client, Scenario call, boolean async) {
        String id = (async ? "okhttp-async-" : "okhttp-sync-") + call.scenario();
        if (call.throwingBody() && async) {
            return; // OkHttp rethrows a body's RuntimeException on its dispatcher thread, message and all
        }
        RequestBody body = null;
        if (call.body()) {
            body = new OkBody(body(), call.nonReplayable(), call.throwingBody() ? secret("ERR") : null);
        }
        Request.Builder builder = new Request.Builder().url(url(call, async ? "okhttp-async" : "okhttp-sync"))
                .method(call.method(), body);
        headers(call).forEach(builder::header);
        Call c = client.newCall(builder.build());
        if (!async) {
            try (Response r = c.execute()) {
                r.body().string();
                result(id, r.code());
            } catch (IOException | RuntimeException e) {
                failed(id, e);
            }
            return;
        }
        CompletableFuture<Object> done = new CompletableFuture<>();
        c.enqueue(new Callback() {
            @Override
            public void onFailure(Call call1, IOException e) {
                done.complete(e);
            }

            @Override
            public void onResponse(Call call1, Response response) {
                try (Response r = response) {
                    r.body().string();
                    done.complete(r.code());
                } catch (IOException e) {
                    done.complete(e);
                }
            }
        });
        try {
            Object outcome = done.get(30, TimeUnit.SECONDS);
            if (outcome instanceof Throwable) {
                failed(id, (Throwable) outcome);
            } else {
                result(id, outcome);
            }
        } catch (Exception e) {
            failed(id, e);
        }
    }

    /**
     * A request body with a secret inside. Non-replayable: one-shot. Throwing: the first {@code isOneShot()} (the
     * agent's, which reads it before the first attempt) throws an exception whose message is a secret; the agent
     * fails open and must log no message.
     */
    private static final class OkBody extends RequestBody {
        private final byte[] bytes;
        private final boolean oneShot;
        private final String errorMessage;
        private boolean thrown;

        OkBody(byte[] bytes, boolean oneShot, String errorMessage) {
            this.bytes = bytes;
            this.oneShot = oneShot;
            this.errorMessage = errorMessage;
        }

        @Override
        public MediaType contentType() {
            return TEXT;
        }

        @Override
        public long contentLength() {
            return bytes.length;
        }

        @Override
        public synchronized boolean isOneShot() {
            if (errorMessage != null && !thrown) {
                thrown = true;
                throw new IllegalStateException(errorMessage);
            }
            return oneShot;
        }

        @Override
        public void writeTo(BufferedSink sink) throws IOException {
            sink.write(bytes);
        }
    }

    // ---- HttpClient 5 ----

    private void classic(CloseableHttpClient client, Scenario call) {
        String id = "hc5-classic-" + call.scenario();
        HttpUriRequestBase request = new HttpUriRequestBase(call.method(), java.net.URI.create(url(call, "hc5-classic")));
        headers(call).forEach(request::setHeader);
        if (call.body()) {
            if (call.throwingBody()) {
                request.setEntity(new ThrowingEntity(body(), secret("ERR")));
            } else if (call.nonReplayable()) {
                request.setEntity(new InputStreamEntity(new ByteArrayInputStream(body()), -1, ContentType.TEXT_PLAIN));
            } else {
                request.setEntity(new StringEntity(new String(body(), StandardCharsets.UTF_8), ContentType.TEXT_PLAIN));
            }
        }
        try {
            int status = client.execute(request, response -> {
                if (response.getEntity() != null) {
                    EntityUtils.consume(response.getEntity());
                }
                return response.getCode();
            });
            result(id, status);
        } catch (IOException | RuntimeException e) {
            failed(id, e);
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

    private void async(CloseableHttpAsyncClient client, Scenario call) {
        String id = "hc5-async-" + call.scenario();
        if (call.throwingBody() || call.nonReplayable()) {
            return; // the classic calls cover these; a producer of the application's own is HttpClient5Scenario's
        }
        SimpleHttpRequest request = SimpleHttpRequest.create(call.method(), url(call, "hc5-async"));
        headers(call).forEach(request::setHeader);
        if (call.body()) {
            request.setBody(body(), org.apache.hc.core5.http.ContentType.TEXT_PLAIN);
        }
        try {
            Future<SimpleHttpResponse> future = client.execute(request, null);
            result(id, future.get(30, TimeUnit.SECONDS).getCode());
        } catch (Exception e) {
            failed(id, e);
        }
    }

    // ---- HttpURLConnection ----

    private void huc(Scenario call) {
        String id = "huc-" + call.scenario();
        if (call.throwingBody()) {
            return; // no application code of its own runs inside the JDK's request
        }
        try {
            HttpURLConnection conn = (HttpURLConnection) new URL(url(call, "huc")).openConnection();
            conn.setRequestMethod(call.method());
            headers(call).forEach(conn::setRequestProperty);
            if (call.body()) {
                byte[] body = body();
                conn.setDoOutput(true);
                if (call.nonReplayable()) {
                    conn.setFixedLengthStreamingMode(body.length);
                }
                try (OutputStream out = conn.getOutputStream()) {
                    out.write(body);
                }
            }
            int status = conn.getResponseCode();
            InputStream in = status >= 400 ? conn.getErrorStream() : conn.getInputStream();
            if (in != null) {
                try (InputStream input = in) {
                    Report.drain(input);
                }
            }
            result(id, status);
        } catch (IOException | RuntimeException e) {
            failed(id, e);
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
