package dev.retryagent.it.redirects;

import static dev.retryagent.it.apps.CallSpec.one;
import static dev.retryagent.it.apps.CallSpec.parse;

import dev.retryagent.it.apps.Report;
import dev.retryagent.it.clients.JdkHttpClientKit;
import dev.retryagent.it.clients.KitReply;
import dev.retryagent.it.clients.KitRequest;
import dev.retryagent.it.clients.Kits;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.TabularData;

/**
 * A plain application (no agent code) that makes GET calls one after the other, each with the kit of the client it
 * names and each following the redirects its client follows by default, then reads the {@code retry-agent} MBeans
 * of its own platform MBeanServer and prints them.
 *
 * <pre>
 * --call "id=ID;client=okhttp|okhttp-async|jdk|hc5|hc5-async|hc4|hc4-async|jdk-httpclient|jdk-httpclient-async;
 *         url=URL;method=GET|POST"   repeatable, run in order (a POST carries the body "payload", no idempotency key;
 *                       jdk is HttpURLConnection, jdk-httpclient java.net.http with followRedirects(NORMAL))
 * --expect-calls N      wait (up to 20 s) until retry-agent:type=total shows N calls (MBeans appear off the call path)
 * </pre>
 * Prints {@code RESULT id=.. status=..} (or {@code failure=CLASS}) per call, {@code WAITED totalCalls=..}, per MBean
 * {@code MBEAN name=OBJECTNAME ATTRIBUTE=VALUE ...}, then {@code DONE}.
 */
public final class RedirectsApp {
    private static final byte[] PAYLOAD = "payload".getBytes(StandardCharsets.UTF_8);

    public static void main(String[] argv) throws Exception {
        List<Map<String, List<String>>> calls = new ArrayList<>();
        long expectCalls = -1;
        for (int i = 0; i < argv.length; i++) {
            switch (argv[i]) {
                case "--call" -> calls.add(parse(argv[++i]));
                case "--expect-calls" -> expectCalls = Long.parseLong(argv[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + argv[i]);
            }
        }
        // java.net.http follows no redirect unless told; the others follow theirs by default.
        try (Kits kits = new Kits().use("jdk-httpclient", () -> new JdkHttpClientKit(
                HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL).build()))) {
            for (Map<String, List<String>> call : calls) {
                String id = one(call, "id", "call");
                String method = one(call, "method", "GET");
                KitRequest request = KitRequest.of(method, one(call, "url", null));
                if (method.equals("POST")) {
                    request = request.body(PAYLOAD, "text/plain");
                }
                try {
                    KitReply reply = kits.call(one(call, "client", "okhttp"), request, 60, TimeUnit.SECONDS);
                    Report.line("RESULT", "id", id, "status", reply.status());
                } catch (IOException e) {
                    Report.line("RESULT", "id", id, "failure", e.getClass().getName());
                }
            }
        }
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName total = new ObjectName("retry-agent:type=total");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        long seen = -1;
        while (System.nanoTime() < deadline) {
            seen = server.isRegistered(total) ? (Long) server.getAttribute(total, "calls") : -1;
            if (expectCalls < 0 ? seen >= 0 : seen == expectCalls) {
                break;
            }
            Thread.sleep(50);
        }
        // The totals count a call at once; a destination's MBean is registered by the agent's next housekeeping
        // tick (once a second): read them once a tick has passed without a new one.
        ObjectName destinations = new ObjectName("retry-agent:type=destination,*");
        Set<ObjectName> names = server.queryNames(destinations, null);
        while (System.nanoTime() < deadline) {
            Thread.sleep(1_100);
            Set<ObjectName> now = server.queryNames(destinations, null);
            if (now.equals(names)) {
                break;
            }
            names = now;
        }
        Report.line("WAITED", "totalCalls", seen);
        for (ObjectName name : new TreeSet<>(server.queryNames(destinations, null))) {
            List<Object> kv = new ArrayList<>(List.of("name", name.toString()));
            for (MBeanAttributeInfo info : server.getMBeanInfo(name).getAttributes()) {
                Object value = server.getAttribute(name, info.getName());
                if (!(value instanceof TabularData)) {
                    kv.add(info.getName());
                    kv.add(value);
                }
            }
            Report.line("MBEAN", kv.toArray());
        }
        Report.line("DONE");
        System.exit(0);
    }
}
