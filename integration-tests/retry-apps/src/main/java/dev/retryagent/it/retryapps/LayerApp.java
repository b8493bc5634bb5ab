package dev.retryagent.it.retryapps;

import dev.retryagent.it.apps.Report;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The calls of one application with a retry library, one after the other, as its arguments say:
 * <pre>
 * --call ID|VARIANT|METHOD|URL   repeatable, run in order; VARIANT says which client and whether the library retries
 * --jmx                          afterwards wait (up to 20 s) for the retry-agent:type=total MBean to show
 *                                upper_layer_calls above 0 and print the first such value, as any JMX client
 *                                would read it (the MBean is refreshed off the call path: not yet the total)
 * </pre>
 * Prints {@code RESULT id=.. status=..} (the status the library returned) or {@code RESULT id=.. failure=CLASS
 * message=..} per call, {@code MBEAN upperLayerCalls=N} with {@code --jmx}, then {@code DONE}. Plain application
 * code: nothing here knows about the agent.
 */
final class LayerApp {
    /** One call through the library. */
    interface Caller {
        /** @return the HTTP status the library handed back */
        int call(String variant, String method, String url) throws Exception;
    }

    private LayerApp() {
    }

    static void run(String[] argv, Caller caller) throws Exception {
        List<String[]> calls = new ArrayList<>();
        boolean jmx = false;
        for (int i = 0; i < argv.length; i++) {
            switch (argv[i]) {
                case "--call" -> calls.add(argv[++i].split("\\|", 4));
                case "--jmx" -> jmx = true;
                default -> throw new IllegalArgumentException("unknown argument " + argv[i]);
            }
        }
        for (String[] call : calls) {
            try {
                int status = caller.call(call[1], call[2], call[3]);
                Report.line("RESULT", "id", call[0], "status", status);
            } catch (Exception e) {
                Report.line("RESULT", "id", call[0], "failure", e.getClass().getName(), "message", e.getMessage());
            }
        }
        if (jmx) {
            Report.line("MBEAN", "upperLayerCalls", awaitUpperLayerCalls());
        }
        Report.line("DONE");
        System.exit(0);
    }

    /** The agent's MBeans appear off the call path, within a second or so of the first call. */
    private static long awaitUpperLayerCalls() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName total = new ObjectName("retry-agent:type=total");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        long seen = -1;
        while (System.nanoTime() < deadline) {
            seen = server.isRegistered(total) ? (Long) server.getAttribute(total, "upper_layer_calls") : -1;
            if (seen > 0) {
                break;
            }
            Thread.sleep(20);
        }
        return seen;
    }
}
