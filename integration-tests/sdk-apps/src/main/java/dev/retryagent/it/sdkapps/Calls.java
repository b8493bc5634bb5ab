package dev.retryagent.it.sdkapps;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * What every application here shares: its arguments and its report lines. Plain application code: it knows
 * nothing of the agent, and reads its counters only as any JMX client would (an MBean by name, when asked to).
 *
 * <p>Arguments: {@code --retries on|off} (the library's own retries), {@code --call CLIENT SCENARIO URL} (repeated:
 * one call each, in order), {@code --mbean} (print the agent's total {@code upper_layer_calls} at the end).
 * Scenarios: {@code always503}, {@code recover} (503, 503, 200), {@code droppedGet}, {@code droppedPost} (the
 * library's non-idempotent call), and per library more. Prints {@code RESULT client=.. scenario=.. status=..
 * failure=.. ms=..}, then {@code MBEAN upperLayerCalls=..} and {@code DONE}.
 */
final class Calls {
    /** One call of the application: what it returns is the HTTP status the library handed back. */
    interface Call {
        int run(String client, String scenario, String url) throws Exception;
    }

    final boolean retries;
    final List<String[]> calls = new ArrayList<>();
    final boolean mbean;

    Calls(String[] args) {
        boolean r = true;
        boolean m = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--retries" -> r = args[++i].equals("on");
                case "--call" -> calls.add(new String[] {args[++i], args[++i], args[++i]});
                case "--mbean" -> m = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        this.retries = r;
        this.mbean = m;
    }

    /** Makes every call, reports each, then the counter if asked; exits 0. */
    void runAll(Call call) throws Exception {
        for (String[] c : calls) {
            long start = System.nanoTime();
            int status = -1;
            String failure = "none";
            String message = "none";
            try {
                status = call.run(c[0], c[1], c[2]);
            } catch (Exception e) {
                status = statusOf(e);
                failure = e.getClass().getName();
                message = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
                message = message.length() > 160 ? message.substring(0, 160) : message;
            }
            line("RESULT", "client", c[0], "scenario", c[1], "status", status, "failure", failure,
                    "ms", (System.nanoTime() - start) / 1_000_000, "message", message);
        }
        if (mbean) {
            line("MBEAN", "upperLayerCalls", upperLayerCalls());
        }
        line("DONE");
        System.exit(0);
    }

    /** The status a library's exception carries, where it has one the application can read; else -1. */
    private static int statusOf(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            for (String getter : new String[] {"statusCode", "getStatusCode"}) {
                try {
                    Object v = t.getClass().getMethod(getter).invoke(t);
                    if (v instanceof Integer i && i > 0) {
                        return i;
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
     * The agent's total {@code upper_layer_calls} over JMX, once its MBean is there and the value has stayed the same
     * for 1.5 s (the MBeans take in new destinations once a second); waits 15 s at most. -1: no such MBean.
     */
    private static long upperLayerCalls() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName total = new ObjectName("retry-agent:type=total");
        long deadline = System.nanoTime() + 15_000_000_000L;
        long value = -1;
        long since = System.nanoTime();
        while (System.nanoTime() < deadline) {
            long now = server.isRegistered(total) ? (Long) server.getAttribute(total, "upper_layer_calls") : -1;
            if (now != value) {
                value = now;
                since = System.nanoTime();
            } else if (value >= 0 && System.nanoTime() - since > 1_500_000_000L) {
                break;
            }
            Thread.sleep(100);
        }
        return value;
    }

    static void line(String tag, Object... keyValues) {
        StringBuilder sb = new StringBuilder(tag);
        for (int i = 0; i < keyValues.length; i += 2) {
            String value = String.valueOf(keyValues[i + 1]).replaceAll("[\\s=%]", "_");
            sb.append(' ').append(keyValues[i]).append('=').append(value);
        }
        synchronized (System.out) {
            System.out.println(sb);
            System.out.flush();
        }
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
