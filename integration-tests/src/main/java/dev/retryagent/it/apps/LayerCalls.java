package dev.retryagent.it.apps;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * What the applications with a retry library above their client share (compiled into each app module from here): the
 * calls of their command line, one after the other, each printed as {@code RESULT id=.. status=.. error=.. ms=..}
 * (status -1 where the failure carries none, error the root cause's class or {@code none}); then what the JVM's
 * {@code retry-agent} MBean counts, as an operator's JMX read: {@code UPPER attempts=N calls=N upperLayerCalls=N}
 * (-1 without the agent), and {@code DONE}.
 *
 * <pre>
 * --call ID METHOD WAY RETRIES URL   a call (repeatable): GET or POST, the way (client) the library is called with
 *                                    (per app), the library's own retries after the first attempt (0: its retries
 *                                    off; a library configured by on/off only reads a number above 0 as its
 *                                    default), URL the server's base URL (a comma-separated list where the library
 *                                    takes several nodes)
 * </pre>
 *
 * Plain application code: nothing here knows about the agent but its MBean's name.
 */
public final class LayerCalls {
    /** One call through the library; answers the HTTP status the application ends with. */
    public interface Caller {
        int call(String method, String way, int retries, String url) throws Exception;
    }

    /** A status the application treats as a failure for the library to retry. */
    public static final class StatusException extends java.io.IOException {
        private static final long serialVersionUID = 1L;
        public final int status;

        public StatusException(int status) {
            super("HTTP " + status);
            this.status = status;
        }
    }

    public static final byte[] BODY = "{\"payload\":1}".getBytes(StandardCharsets.UTF_8);

    /** The library's attempts so far, all calls together, where the application makes the client calls itself. */
    private static final AtomicLong ATTEMPTS = new AtomicLong();

    private LayerCalls() {
    }

    /** Called by an app at every attempt the library makes (each one client call), where it sees them. */
    public static void attempt() {
        ATTEMPTS.incrementAndGet();
    }

    public static void run(String[] args, Caller caller) {
        List<String[]> calls = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--call")) {
                calls.add(new String[]{args[i + 1], args[i + 2], args[i + 3], args[i + 4], args[i + 5]});
                i += 5;
            }
        }
        for (String[] c : calls) {
            long start = System.nanoTime();
            int status;
            String error = "none";
            try {
                status = caller.call(c[1], c[2], Integer.parseInt(c[3]), c[4]);
            } catch (Throwable t) {
                status = statusOf(t);
                Throwable root = t;
                while (root.getCause() != null && root.getCause() != root) {
                    root = root.getCause();
                }
                error = root instanceof StatusException ? "none" : root.getClass().getName();
            }
            Report.line("RESULT", "id", c[0], "status", status, "error", error,
                    "ms", (System.nanoTime() - start) / 1_000_000);
        }
        long attempts = ATTEMPTS.get();
        long[] counted = agentCounts(attempts);
        Report.line("UPPER", "attempts", attempts, "calls", counted[0], "upperLayerCalls", counted[1]);
        Report.line("DONE");
    }

    /** The status a failure carries: the app's own, or a library exception's the application can read; else -1. */
    private static int statusOf(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof StatusException) {
                return ((StatusException) t).status;
            }
            for (String getter : new String[] {"statusCode", "getStatusCode"}) {
                try {
                    Object v = t.getClass().getMethod(getter).invoke(t);
                    if (v instanceof Integer && (Integer) v > 0) {
                        return (Integer) v;
                    }
                } catch (ReflectiveOperationException | RuntimeException none) {
                    // not this library's kind of exception
                }
            }
            try {
                Object response = t.getClass().getMethod("getResponse").invoke(t);
                Object statusLine = response.getClass().getMethod("getStatusLine").invoke(response);
                return (Integer) statusLine.getClass().getMethod("getStatusCode").invoke(statusLine);
            } catch (ReflectiveOperationException | RuntimeException none) {
                // not an Elasticsearch ResponseException
            }
        }
        return -1;
    }

    /**
     * {@code calls} and {@code upper_layer_calls} of {@code retry-agent:type=total} once they are the totals (at most
     * 15 s): the MBeans take in a new destination's counters within a second, so they are read once {@code calls}
     * reaches the attempts the app counted, or, where the library makes the client calls out of the app's sight, once
     * both have stayed the same for 1.5 s. -1 when the JVM runs no agent.
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
            long until = System.nanoTime() + 15_000_000_000L;
            long[] seen = {-1, -1};
            long since = System.nanoTime();
            while (System.nanoTime() < until) {
                long[] now = server.isRegistered(total) ? new long[]{
                        ((Number) server.getAttribute(total, "calls")).longValue(),
                        ((Number) server.getAttribute(total, "upper_layer_calls")).longValue()} : new long[]{-1, -1};
                if (now[0] != seen[0] || now[1] != seen[1]) {
                    seen = now;
                    since = System.nanoTime();
                }
                boolean settled = attempts > 0 ? seen[0] >= attempts
                        : seen[0] >= 0 && System.nanoTime() - since > 1_500_000_000L;
                if (settled) {
                    break;
                }
                Thread.sleep(20);
            }
            return seen;
        } catch (Exception e) {
            return new long[]{-2, -2};
        }
    }

    public static void line(String tag, Object... keyValues) {
        Report.line(tag, keyValues);
    }
}
