package dev.retryagent.it.layers;

import java.lang.management.ManagementFactory;
import dev.retryagent.it.apps.Report;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * What the applications of this module share: the calls of their command line, one after the other, each printed as
 * {@code RESULT id=.. status=.. error=..}; then what the JVM's {@code retry-agent} MBean counts (an operator's JMX
 * read, {@code UPPER attempts=N calls=N upperLayerCalls=N}, -1 without the agent) and {@code DONE}. Each app counts
 * the attempts its library makes ({@link #attempt()}): each is one call to the client, so one call the agent counts;
 * the MBean is read once it shows them all (a destination's counters join the total within the agent's second).
 *
 * <pre>
 * --retries N                       the library's own retries after the first attempt (0: its retries are off)
 * --call ID METHOD WAY URL          a call (repeatable): GET or POST, the way the library is called (per app)
 * </pre>
 */
final class LayerCalls {
    /** One call through the library; answers the HTTP status the application ends with. */
    interface Caller {
        int call(String method, String way, String url) throws Exception;
    }

    /** A status the application treats as a failure for the library to retry (Resilience4j, Failsafe 2.4). */
    static final class StatusException extends java.io.IOException {
        private static final long serialVersionUID = 1L;
        final int status;

        StatusException(int status) {
            super("HTTP " + status);
            this.status = status;
        }
    }

    static final byte[] BODY = "{\"payload\":1}".getBytes(StandardCharsets.UTF_8);

    /** The library's attempts so far, all calls together. */
    private static final AtomicLong ATTEMPTS = new AtomicLong();

    private LayerCalls() {
    }

    /** Called by the apps at every attempt the library makes (each one client call). */
    static void attempt() {
        ATTEMPTS.incrementAndGet();
    }

    static int retries(String[] args) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals("--retries")) {
                return Integer.parseInt(args[i + 1]);
            }
        }
        throw new IllegalArgumentException("--retries N expected");
    }

    static void run(String[] args, Caller caller) {
        List<String[]> calls = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--call")) {
                calls.add(new String[]{args[i + 1], args[i + 2], args[i + 3], args[i + 4]});
                i += 4;
            }
        }
        for (String[] c : calls) {
            long start = System.nanoTime();
            int status;
            String error = "none";
            try {
                status = caller.call(c[1], c[2], c[3]);
            } catch (Throwable t) {
                StatusException s = statusOf(t);
                status = s != null ? s.status : -1;
                if (s == null) {
                    Throwable root = t;
                    while (root.getCause() != null && root.getCause() != root) {
                        root = root.getCause();
                    }
                    error = root.getClass().getName();
                }
            }
            line("RESULT", "id", c[0], "status", status, "error", error,
                    "ms", (System.nanoTime() - start) / 1_000_000);
        }
        long attempts = ATTEMPTS.get();
        long[] counted = agentCounts(attempts);
        line("UPPER", "attempts", attempts, "calls", counted[0], "upperLayerCalls", counted[1]);
        line("DONE");
    }

    private static StatusException statusOf(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof StatusException) {
                return (StatusException) c;
            }
        }
        return null;
    }

    /**
     * {@code calls} and {@code upper_layer_calls} of {@code retry-agent:type=total}, once it counts {@code attempts}
     * calls (at most 10 s); -1 when the JVM runs no agent.
     */
    private static long[] agentCounts(long attempts) {
        boolean agent = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .anyMatch(a -> a.startsWith("-javaagent:"));
        if (!agent) {
            return new long[]{-1, -1};
        }
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName total = new ObjectName("retry-agent:type=total");
            long until = System.nanoTime() + 10_000_000_000L;
            long calls = -1;
            while (System.nanoTime() < until) {
                calls = server.isRegistered(total) ? ((Number) server.getAttribute(total, "calls")).longValue() : -1;
                if (calls >= attempts) {
                    break;
                }
                Thread.sleep(20);
            }
            long upper = server.isRegistered(total)
                    ? ((Number) server.getAttribute(total, "upper_layer_calls")).longValue() : -1;
            return new long[]{calls, upper};
        } catch (Exception e) {
            return new long[]{-2, -2};
        }
    }

    static void line(String tag, Object... keyValues) {
        Report.line(tag, keyValues);
    }
}
