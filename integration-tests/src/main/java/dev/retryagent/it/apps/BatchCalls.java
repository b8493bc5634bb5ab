package dev.retryagent.it.apps;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What the batch apps of the Apache clients share around one call of a {@code --call} spec: its start delay, its
 * {@code repeat}, the interrupt of the caller's thread ({@code interruptAfterMs}), and the {@code RESULT} line it
 * reports. How a call is made is the app's ({@link Call}).
 */
public final class BatchCalls {
    /** The apps' timers (interrupts, cancels): one daemon thread. */
    public static final ScheduledExecutorService TIMERS = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "scenario-timer");
        t.setDaemon(true);
        return t;
    });
    /** When each interrupted call's thread was interrupted (System.nanoTime). */
    private static final Map<String, Long> INTERRUPTED_AT = new ConcurrentHashMap<>();

    /** What the application saw of a response. */
    public record Seen(int status, String body, String retryAfter) {
    }

    /** One call of a spec, made as the app makes it. */
    public interface Call {
        Seen make(Map<String, List<String>> spec, String id) throws Exception;
    }

    private BatchCalls() {
    }

    /** Makes the call of {@code spec} (or its repeats) on this thread and reports it. */
    public static void run(Map<String, List<String>> spec, String id, Call call) {
        try {
            long startAfter = Long.parseLong(one(spec, "startAfterMs", "0"));
            if (startAfter > 0) {
                Thread.sleep(startAfter);
            }
            int repeat = Integer.parseInt(one(spec, "repeat", "1"));
            if (repeat > 1) {
                repeated(spec, id, repeat, call);
                return;
            }
            if (spec.containsKey("interruptAfterMs")) {
                Thread caller = Thread.currentThread();
                TIMERS.schedule(() -> {
                    INTERRUPTED_AT.put(id, System.nanoTime());
                    caller.interrupt();
                }, Long.parseLong(one(spec, "interruptAfterMs", "0")), TimeUnit.MILLISECONDS);
            }
            long start = System.nanoTime();
            try {
                Seen seen = call.make(spec, id);
                Report.line("RESULT", "id", id, "status", seen.status(), "body", seen.body(),
                        "retryAfter", seen.retryAfter(), "elapsedMs", elapsedMs(start),
                        "thread", Thread.currentThread().getName(), "interrupted", Thread.currentThread().isInterrupted(),
                        "sinceInterruptUs", sinceInterruptUs(id));
            } catch (Exception e) {
                failure(id, e, start);
            }
        } catch (Throwable t) {
            System.err.println("call " + id + " failed unexpectedly:");
            t.printStackTrace();
        }
    }

    private static void repeated(Map<String, List<String>> spec, String id, int repeat, Call call) {
        long start = System.nanoTime();
        int ok = 0;
        int failures = 0;
        String firstFailure = null;
        for (int i = 0; i < repeat; i++) {
            try {
                Seen seen = call.make(spec, id);
                if (seen.status() == 200) {
                    ok++;
                } else if (firstFailure == null) {
                    firstFailure = "status " + seen.status() + " at call " + i;
                }
            } catch (Exception e) {
                failures++;
                if (firstFailure == null) {
                    firstFailure = e.getClass().getName() + ": " + e.getMessage() + " at call " + i;
                }
            }
        }
        Report.line("RESULT", "id", id, "calls", repeat, "ok", ok, "failures", failures, "firstFailure", firstFailure,
                "elapsedMs", elapsedMs(start));
    }

    private static Long sinceInterruptUs(String id) {
        long now = System.nanoTime();
        Long at = INTERRUPTED_AT.get(id);
        return at == null ? null : TimeUnit.NANOSECONDS.toMicros(now - at);
    }

    private static void failure(String id, Exception e, long start) {
        Long since = sinceInterruptUs(id);
        Throwable reported = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        Throwable cause = reported.getCause();
        Report.line("RESULT", "id", id, "failure", reported.getClass().getName(), "message", reported.getMessage(),
                "cause", cause == null ? null : cause.getClass().getName(),
                "cancelled", e instanceof CancellationException, "elapsedMs", elapsedMs(start),
                "thread", Thread.currentThread().getName(), "interrupted", Thread.currentThread().isInterrupted(),
                "sinceInterruptUs", since);
    }

    private static long elapsedMs(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    /** A {@code --call} spec: {@code key=value;key=value}, a key may repeat. */
    public static Map<String, List<String>> parse(String spec) {
        Map<String, List<String>> map = new LinkedHashMap<>();
        for (String part : spec.split(";")) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("key=value expected, got " + part);
            }
            map.computeIfAbsent(part.substring(0, eq), k -> new ArrayList<>()).add(part.substring(eq + 1));
        }
        return map;
    }

    /** The last value of {@code key}, or {@code fallback}. */
    public static String one(Map<String, List<String>> spec, String key, String fallback) {
        List<String> values = spec.get(key);
        return values == null ? fallback : values.get(values.size() - 1);
    }
}
