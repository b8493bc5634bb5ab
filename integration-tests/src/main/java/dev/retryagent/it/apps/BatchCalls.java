package dev.retryagent.it.apps;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What the clients of {@link BatchApp} share: their options ({@link Options}), the threads their calls run on
 * ({@link #runEach}); for the Apache clients ({@link #run}) around one call of a {@code --call} spec its start delay,
 * its {@code repeat} and the {@code RESULT} line it reports; the interrupt of the caller's
 * thread ({@code interruptAfterMs}), the cancel of an async future ({@link #cancelAfter}), and the {@code CALLBACKS}
 * ({@link Callbacks}) and {@code POOL} lines ({@link #pool}). How a call is made is the app's ({@link Call}).
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
    public static final class Seen {
        private final int status;
        private final String body;
        private final String retryAfter;

        public Seen(int status, String body, String retryAfter) {
            this.status = status;
            this.body = body;
            this.retryAfter = retryAfter;
        }

        public int status() {
            return status;
        }

        public String body() {
            return body;
        }

        public String retryAfter() {
            return retryAfter;
        }
    }

    /** One call of a spec, made as the app makes it. */
    public interface Call {
        Seen make(Map<String, List<String>> spec, String id) throws Exception;
    }

    /** One call of a spec, made and reported as the app makes and reports it. */
    public interface Runner {
        void run(Map<String, List<String>> spec, String id);
    }

    /** The options of one app alone. */
    public interface OwnOptions {
        /** Takes the option at {@code argv[i]} and its arguments: the index of the last one, or -1 if not its. */
        int take(String[] argv, int i);
    }

    /** A batch app's options: {@code --await-go}, {@code --sequential} and {@code --call SPEC} (repeatable). */
    public static final class Options {
        private final boolean awaitGo;
        private final boolean sequential;
        private final List<Map<String, List<String>>> calls;

        public Options(boolean awaitGo, boolean sequential, List<Map<String, List<String>>> calls) {
            this.awaitGo = awaitGo;
            this.sequential = sequential;
            this.calls = calls;
        }

        public boolean awaitGo() {
            return awaitGo;
        }

        public boolean sequential() {
            return sequential;
        }

        public List<Map<String, List<String>>> calls() {
            return calls;
        }

        /** The options of {@code argv}, the app's {@code own} among them; an unknown one ends the app with exit code 2. */
        public static Options parse(String[] argv, OwnOptions own) {
            boolean awaitGo = false;
            boolean sequential = false;
            List<Map<String, List<String>>> calls = new ArrayList<>();
            for (int i = 0; i < argv.length; i++) {
                switch (argv[i]) {
                    case "--await-go":
                        awaitGo = true;
                        break;
                    case "--sequential":
                        sequential = true;
                        break;
                    case "--call":
                        calls.add(CallSpec.parse(argv[++i]));
                        break;
                    default:
                        int last = own.take(argv, i);
                        if (last < 0) {
                            System.err.println("usage error: unknown argument " + argv[i]);
                            System.exit(2);
                        }
                        i = last;
                }
            }
            return new Options(awaitGo, sequential, calls);
        }
    }

    /**
     * What an async call was called back with ({@code completed:STATUS@THREAD}, {@code failed:EXCEPTION},
     * {@code cancelled}), per call id: a call must be called back exactly once.
     */
    public static final class Callbacks {
        private static final Map<String, Callbacks> BY_ID = new ConcurrentHashMap<>();
        /** How long after the first callbacks a second one, if there were one, is given to show. */
        private static final long QUIET_MS = 300;
        private final List<String> kinds = new CopyOnWriteArrayList<>();

        private Callbacks() {
        }

        /** The record of the async call {@code id}, whose callbacks are to come. */
        public static Callbacks of(String id) {
            Callbacks callbacks = new Callbacks();
            BY_ID.put(id, callbacks);
            return callbacks;
        }

        public void completed(int status) {
            kinds.add("completed:" + status + "@" + Thread.currentThread().getName());
        }

        public void failed(Exception ex) {
            kinds.add("failed:" + ex.getClass().getSimpleName());
        }

        public void cancelled() {
            kinds.add("cancelled");
        }

        /**
         * Prints {@code CALLBACKS id=.. count=.. kinds=..} per async call. A callback may run after {@code get()}
         * returned: this waits (up to 5 s) for every first one. A second callback is what must not happen, so it
         * cannot be waited for; a quiet period after the first ones gives a late one time to show.
         */
        public static void report() throws InterruptedException {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (BY_ID.values().stream().anyMatch(c -> c.kinds.isEmpty()) && System.nanoTime() < end) {
                Thread.sleep(5);
            }
            Thread.sleep(QUIET_MS);
            BY_ID.forEach((id, c) -> Report.line("CALLBACKS", "id", id, "count", c.kinds.size(),
                    "kinds", String.join(",", c.kinds)));
        }
    }

    private BatchCalls() {
    }

    /** Prints READY and waits for a line on stdin, under {@code --await-go}. */
    public static void awaitGo(Options options) throws IOException {
        if (options.awaitGo()) {
            Signals.awaitGo();
        }
    }

    /**
     * Runs every call on a thread of its own ({@code call-ID}), all at once or one after the other under
     * {@code --sequential}, and waits for each up to {@code joinMillis}.
     */
    public static void runEach(Options options, Runner runner, long joinMillis) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (Map<String, List<String>> spec : options.calls()) {
            String id = CallSpec.one(spec, "id", "call" + threads.size());
            Thread t = new Thread(() -> runner.run(spec, id), "call-" + id);
            threads.add(t);
            t.start();
            if (options.sequential()) {
                t.join(joinMillis);
            }
        }
        for (Thread t : threads) {
            t.join(joinMillis);
        }
    }

    /** Interrupts this thread, the call's, after the spec's {@code interruptAfterMs}, if it has one. */
    public static void interruptAfter(Map<String, List<String>> spec, String id) {
        if (spec.containsKey("interruptAfterMs")) {
            Thread caller = Thread.currentThread();
            TIMERS.schedule(() -> {
                INTERRUPTED_AT.put(id, System.nanoTime());
                caller.interrupt();
            }, Long.parseLong(CallSpec.one(spec, "interruptAfterMs", "0")), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Cancels {@code future} ({@code cancel(true)}) after the spec's {@code cancelAfterMs}, or when its {@code cancelOn}
     * signal arrives ({@link Signals}), if it has one.
     */
    public static void cancelAfter(Map<String, List<String>> spec, Future<?> future) {
        if (spec.containsKey("cancelOn")) {
            Signals.on(CallSpec.one(spec, "cancelOn", null), () -> future.cancel(true));
        }
        if (spec.containsKey("cancelAfterMs")) {
            TIMERS.schedule(() -> future.cancel(true), Long.parseLong(CallSpec.one(spec, "cancelAfterMs", "0")),
                    TimeUnit.MILLISECONDS);
        }
    }

    /** Prints {@code POOL api=.. client=.. leased=.. available=.. pending=.. max=..} for a pool of the app's. */
    public static void pool(String api, String kind, int leased, int available, int pending, int max) {
        Report.line("POOL", "api", api, "client", kind, "leased", leased, "available", available, "pending", pending,
                "max", max);
    }

    /** Makes the call of {@code spec} (or its repeats) on this thread and reports it. */
    public static void run(Map<String, List<String>> spec, String id, Call call) {
        try {
            long startAfter = Long.parseLong(CallSpec.one(spec, "startAfterMs", "0"));
            if (startAfter > 0) {
                Thread.sleep(startAfter);
            }
            int repeat = Integer.parseInt(CallSpec.one(spec, "repeat", "1"));
            if (repeat > 1) {
                repeated(spec, id, repeat, call);
                return;
            }
            interruptAfter(spec, id);
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

    /** The time from the interrupt of call {@code id}'s thread to now, or null when it was not interrupted. */
    public static Long sinceInterruptUs(String id) {
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

    /** Milliseconds since {@code start} (System.nanoTime). */
    public static long elapsedMs(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
}
