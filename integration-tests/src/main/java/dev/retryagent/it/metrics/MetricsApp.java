package dev.retryagent.it.metrics;

import static dev.retryagent.it.apps.CallSpec.one;
import static dev.retryagent.it.apps.CallSpec.parse;

import dev.retryagent.it.apps.Report;
import dev.retryagent.it.clients.KitRequest;
import dev.retryagent.it.clients.Kits;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;

/**
 * A plain application (no agent code) that makes calls one after the other with the kits of OkHttp and
 * HttpURLConnection, then reads the {@code retry-agent} MBeans of its own platform MBeanServer, as any JMX client
 * would, and prints them.
 *
 * <pre>
 * --call "id=ID;client=okhttp|jdk;url=URL;method=GET|POST"   repeatable, run in order
 * --expect-calls N      wait (up to 20 s) until retry-agent:type=total and the destinations' MBeans together show
 *                       N calls: MBeans appear within a second or so of the first call, off the call path, each new
 *                       destination's at the housekeeping tick after its first call
 * --hold                print HOLDING, then wait for a line on stdin before exiting (to be scraped meanwhile)
 * --idle-ms N           instead of reading the MBeans: sleep N ms, print DONE and exit (JMX left alone)
 * </pre>
 * Prints {@code RESULT id=.. status=..} per call, then per MBean {@code MBEAN name=OBJECTNAME calls=.. ...
 * give_ups.REASON=..}, then {@code DONE}.
 */
public final class MetricsApp {

    public static void main(String[] argv) throws Exception {
        List<Map<String, List<String>>> calls = new ArrayList<>();
        long expectCalls = -1;
        boolean hold = false;
        long idleMillis = -1;
        for (int i = 0; i < argv.length; i++) {
            switch (argv[i]) {
                case "--call":
                    calls.add(parse(argv[++i]));
                    break;
                case "--expect-calls":
                    expectCalls = Long.parseLong(argv[++i]);
                    break;
                case "--hold":
                    hold = true;
                    break;
                case "--idle-ms":
                    idleMillis = Long.parseLong(argv[++i]);
                    break;
                default:
                    throw new IllegalArgumentException("unknown argument " + argv[i]);
            }
        }
        Kits kits = new Kits();
        kits.kit("okhttp"); // built before the first call, as a service builds its client
        for (Map<String, List<String>> call : calls) {
            String id = one(call, "id", "call");
            String method = one(call, "method", "GET");
            KitRequest request = KitRequest.of(method, one(call, "url", null));
            if (!method.equals("GET")) {
                request = request.body("payload".getBytes(StandardCharsets.UTF_8), "text/plain");
            }
            try {
                int status = kits.kit(one(call, "client", "okhttp")).call(request).status();
                Report.line("RESULT", "id", id, "status", status);
            } catch (IOException e) {
                Report.line("RESULT", "id", id, "failure", e.getClass().getName());
            }
        }
        if (idleMillis >= 0) {
            Thread.sleep(idleMillis);
            Report.line("DONE");
            System.exit(0);
        }

        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName total = new ObjectName("retry-agent:type=total");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        long seen = -1;
        ObjectName destinations = new ObjectName("retry-agent:type=destination,*");
        while (System.nanoTime() < deadline) {
            seen = server.isRegistered(total) ? (Long) server.getAttribute(total, "calls") : -1;
            long inDestinations = 0;
            for (ObjectName destination : server.queryNames(destinations, null)) {
                inDestinations += (Long) server.getAttribute(destination, "calls");
            }
            if (expectCalls < 0 ? seen >= 0 : seen == expectCalls && inDestinations == expectCalls) {
                break;
            }
            Thread.sleep(50);
        }
        Report.line("WAITED", "totalCalls", seen);
        for (ObjectName name : new TreeSet<>(server.queryNames(new ObjectName("retry-agent:*"), null))) {
            List<Object> kv = new ArrayList<>(Arrays.<Object>asList("name", name.toString()));
            for (MBeanAttributeInfo info : server.getMBeanInfo(name).getAttributes()) {
                Object value = server.getAttribute(name, info.getName());
                if (value instanceof TabularData) {
                    TabularData table = (TabularData) value;
                    for (Object row : table.values()) {
                        CompositeData c = (CompositeData) row;
                        kv.add(info.getName() + "." + c.get("reason"));
                        kv.add(c.get("value"));
                    }
                } else {
                    kv.add(info.getName());
                    kv.add(value + ":" + value.getClass().getSimpleName());
                }
            }
            Report.line("MBEAN", kv.toArray());
        }
        if (hold) {
            Report.line("HOLDING");
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        }
        Report.line("DONE");
        System.exit(0);
    }
}
