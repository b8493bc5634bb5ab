package dev.retryagent.it.okhttp;

import static dev.retryagent.it.apps.CallSpec.one;
import static dev.retryagent.it.apps.CallSpec.parse;

import dev.retryagent.it.apps.Report;
import dev.retryagent.it.apps.Signals;
import dev.retryagent.it.clients.OkHttpBody;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * A plain OkHttp application (no agent code) that makes several independent calls at once, so that one forked
 * JVM covers many scenarios. Compiled against OkHttp 4.12, runs unchanged on 5.x.
 *
 * <pre>
 * --client builder|new|newBuilder     how the one shared client is made (default builder)
 * --await-go                          print READY, then wait for a line on stdin before calling
 * --sequential                        one call after the other (default: all at once)
 * --call "id=ID;url=URL;method=GET;mode=sync|async;body=TEXT;header=Name:value;oneShot=true;cancelAfterMs=N;
 *         cancelOn=SIGNAL;client=own;cancelAllAfterMs=N;cancelAllOn=SIGNAL;interruptAfterMs=N;readTimeoutMs=N;
 *         callTimeoutMs=N"
 *                                     repeatable; header repeatable inside a call; client=own: a client of the
 *                                     call's own (built like the shared one), whose dispatcher cancelAll() cancels
 *                                     nothing else; interruptAfterMs: the calling thread (sync) is interrupted
 * </pre>
 * Prints {@code INTERCEPTORS agent=N total=N}, per call {@code RESULT id=.. status=.. body=.. elapsedMs=..
 * bodyWrites=.. thread=..} or {@code RESULT id=.. failure=CLASS message=..} (both with {@code interrupted=} the
 * caller's interrupt flag, and {@code sinceInterruptUs=} the time from the interrupt to the call's return), then per call
 * {@code CALLBACKS id=.. count=..}, {@code POOL idle=.. total=.. inUse=..} and {@code DONE}.
 */
public final class OkHttpBatchApp {
    /** How long after the dispatcher went idle a second callback, if there were one, is given to show. */
    private static final long QUIET_MS = 200;

    public static void main(String[] argv) throws Exception {
        String clientKind = "builder";
        boolean awaitGo = false;
        boolean sequential = false;
        List<Map<String, List<String>>> calls = new ArrayList<>();
        for (int i = 0; i < argv.length; i++) {
            switch (argv[i]) {
                case "--client":
                    clientKind = argv[++i];
                    break;
                case "--await-go":
                    awaitGo = true;
                    break;
                case "--sequential":
                    sequential = true;
                    break;
                case "--call":
                    calls.add(parse(argv[++i]));
                    break;
                default:
                    throw new IllegalArgumentException("unknown argument " + argv[i]);
            }
        }
        OkHttpClient client = build(clientKind);
        Report.line("APP", "client", "okhttp", "version", okHttpVersion(), "java", System.getProperty("java.version"));
        long agentInterceptors = client.interceptors().stream()
                .filter(i -> i.getClass().getName().startsWith("dev.retryagent")).count();
        Report.line("INTERCEPTORS", "agent", agentInterceptors, "total", client.interceptors().size());
        if (awaitGo) {
            Signals.awaitGo();
        }
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "batch-timer");
            t.setDaemon(true);
            return t;
        });
        Map<String, AtomicInteger> callbacks = new LinkedHashMap<>();
        List<Thread> threads = new ArrayList<>();
        for (Map<String, List<String>> call : calls) {
            String id = one(call, "id", "call" + threads.size());
            AtomicInteger count = new AtomicInteger();
            callbacks.put(id, count);
            OkHttpClient shared = "own".equals(one(call, "client", "shared")) ? build(clientKind) : client;
            OkHttpClient callClient = withTimeouts(shared, call);
            Thread t = new Thread(() -> run(callClient, call, id, count, timers), "call-" + id);
            threads.add(t);
            t.start();
            if (sequential) {
                t.join(60_000);
            }
        }
        for (Thread t : threads) {
            t.join(60_000);
        }
        // Every first callback has run (the call threads wait for it). Let anything still running on the dispatcher
        // finish, so that a second callback delivered there is counted; one from elsewhere is what must not happen,
        // so it cannot be waited for: a quiet period gives a late one time to show.
        long idle = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while ((client.dispatcher().runningCallsCount() > 0 || client.dispatcher().queuedCallsCount() > 0)
                && System.nanoTime() < idle) {
            Thread.sleep(10);
        }
        Thread.sleep(QUIET_MS);
        callbacks.forEach((id, count) -> Report.line("CALLBACKS", "id", id, "count", count.get()));
        int total = client.connectionPool().connectionCount();
        int idleCount = client.connectionPool().idleConnectionCount();
        Report.line("POOL", "idle", idleCount, "total", total, "inUse", total - idleCount);
        Report.line("DONE");
        System.exit(0);
    }

    /** {@code client}, or a client built from it with the call's own read and call timeouts. */
    private static OkHttpClient withTimeouts(OkHttpClient client, Map<String, List<String>> call) {
        if (!call.containsKey("readTimeoutMs") && !call.containsKey("callTimeoutMs")) {
            return client;
        }
        OkHttpClient.Builder builder = client.newBuilder();
        if (call.containsKey("readTimeoutMs")) {
            builder.readTimeout(Long.parseLong(one(call, "readTimeoutMs", "0")), TimeUnit.MILLISECONDS);
        }
        if (call.containsKey("callTimeoutMs")) {
            builder.callTimeout(Long.parseLong(one(call, "callTimeoutMs", "0")), TimeUnit.MILLISECONDS);
        }
        return builder.build();
    }

    private static OkHttpClient build(String kind) {
        switch (kind) {
            case "new":
                return new OkHttpClient();
            case "newBuilder":
                return new OkHttpClient().newBuilder().build();
            default:
                return new OkHttpClient.Builder().build();
        }
    }

    private static void run(OkHttpClient client, Map<String, List<String>> spec, String id, AtomicInteger callbacks,
            ScheduledExecutorService timers) {
        AtomicInteger bodyWrites = new AtomicInteger();
        String method = one(spec, "method", "GET");
        String text = one(spec, "body", null);
        if (text == null && (method.equals("POST") || method.equals("PUT"))) {
            text = "";
        }
        RequestBody body = text == null ? null
                : new OkHttpBody(text.getBytes(StandardCharsets.UTF_8), MediaType.parse("text/plain; charset=utf-8"),
                        Boolean.parseBoolean(one(spec, "oneShot", "false")), bodyWrites);
        Request.Builder builder = new Request.Builder().url(one(spec, "url", null)).method(method, body);
        for (String header : spec.getOrDefault("header", Collections.<String>emptyList())) {
            int colon = header.indexOf(':');
            builder.addHeader(header.substring(0, colon).trim(), header.substring(colon + 1).trim());
        }
        Call call = client.newCall(builder.build());
        if (spec.containsKey("cancelAfterMs")) {
            timers.schedule(call::cancel, Long.parseLong(one(spec, "cancelAfterMs", "0")), TimeUnit.MILLISECONDS);
        }
        if (spec.containsKey("cancelOn")) {
            Signals.on(one(spec, "cancelOn", null), call::cancel);
        }
        if (spec.containsKey("cancelAllOn")) {
            Signals.on(one(spec, "cancelAllOn", null), () -> client.dispatcher().cancelAll());
        }
        if (spec.containsKey("cancelAllAfterMs")) {
            timers.schedule(() -> client.dispatcher().cancelAll(), Long.parseLong(one(spec, "cancelAllAfterMs", "0")),
                    TimeUnit.MILLISECONDS);
        }
        if (spec.containsKey("interruptAfterMs")) {
            Thread caller = Thread.currentThread();
            timers.schedule(() -> {
                INTERRUPTED_AT.put(id, System.nanoTime());
                caller.interrupt();
            }, Long.parseLong(one(spec, "interruptAfterMs", "0")), TimeUnit.MILLISECONDS);
        }
        long start = System.nanoTime();
        if ("async".equals(one(spec, "mode", "sync"))) {
            CountDownLatch done = new CountDownLatch(1);
            call.enqueue(new Callback() {
                @Override
                public void onFailure(Call c, IOException e) {
                    callbacks.incrementAndGet();
                    failure(id, e, start, bodyWrites, c == call);
                    done.countDown();
                }

                @Override
                public void onResponse(Call c, Response response) {
                    callbacks.incrementAndGet();
                    try (Response r = response) {
                        success(id, r, r.body().string(), start, bodyWrites, c == call);
                    } catch (IOException e) {
                        failure(id, e, start, bodyWrites, c == call);
                    } finally {
                        done.countDown();
                    }
                }
            });
            try {
                done.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else {
            try (Response response = call.execute()) {
                callbacks.incrementAndGet();
                success(id, response, response.body().string(), start, bodyWrites, true);
            } catch (IOException | RuntimeException e) {
                callbacks.incrementAndGet();
                failure(id, e, start, bodyWrites, true);
            }
        }
    }

    private static void success(String id, Response r, String body, long start, AtomicInteger writes, boolean sameCall) {
        long now = System.nanoTime();
        Report.line("RESULT", "id", id, "status", r.code(), "body", body, "elapsedMs", elapsed(start),
                "bodyWrites", writes.get(), "thread", Thread.currentThread().getName(), "sameCall", sameCall,
                "h.Retry-After", r.header("Retry-After"), "interrupted", Thread.currentThread().isInterrupted(),
                "sinceInterruptUs", sinceInterruptUs(id, now));
    }

    private static void failure(String id, Exception e, long start, AtomicInteger writes, boolean sameCall) {
        long now = System.nanoTime();
        Report.line("RESULT", "id", id, "failure", e.getClass().getName(), "message", e.getMessage(),
                "elapsedMs", elapsed(start), "bodyWrites", writes.get(), "thread", Thread.currentThread().getName(),
                "sameCall", sameCall, "interrupted", Thread.currentThread().isInterrupted(),
                "sinceInterruptUs", sinceInterruptUs(id, now));
    }

    /** When each interrupted call's thread was interrupted (System.nanoTime). */
    private static final Map<String, Long> INTERRUPTED_AT = new java.util.concurrent.ConcurrentHashMap<>();

    private static Long sinceInterruptUs(String id, long now) {
        Long at = INTERRUPTED_AT.get(id);
        return at == null ? null : TimeUnit.NANOSECONDS.toMicros(now - at);
    }

    /** okhttp3.OkHttp.VERSION, read at run time (the compiler would inline the 4.12 constant). */
    private static String okHttpVersion() {
        try {
            return String.valueOf(Class.forName("okhttp3.OkHttp").getField("VERSION").get(null));
        } catch (ReflectiveOperationException | LinkageError e) {
            return "unknown";
        }
    }

    private static long elapsed(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
}
