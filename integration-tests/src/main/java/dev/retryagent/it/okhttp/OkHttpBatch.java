package dev.retryagent.it.okhttp;

import static dev.retryagent.it.apps.BatchCalls.elapsedMs;
import static dev.retryagent.it.apps.BatchCalls.sinceInterruptUs;
import static dev.retryagent.it.apps.CallSpec.one;

import dev.retryagent.it.apps.BatchApp;
import dev.retryagent.it.apps.BatchCalls;
import dev.retryagent.it.apps.CallSpec;
import dev.retryagent.it.apps.Report;
import dev.retryagent.it.apps.Signals;
import dev.retryagent.it.clients.OkHttpKit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Response;

/**
 * OkHttp's part of the batch application ({@link BatchApp}{@code  okhttp}): a plain OkHttp application (no agent
 * code), compiled against OkHttp 4.12, that runs unchanged on 5.x.
 *
 * <pre>
 * --make builder|new|newBuilder       how the one shared client is made (default builder)
 * --call "id=ID;url=URL;method=GET;mode=sync|async;body=TEXT;header=Name:value;oneShot=true;cancelAfterMs=N;
 *         cancelOn=SIGNAL;client=own;cancelAllAfterMs=N;cancelAllOn=SIGNAL;interruptAfterMs=N;readTimeoutMs=N;
 *         callTimeoutMs=N"
 *                                     header repeatable inside a call; client=own: a client of the call's own (built
 *                                     like the shared one), whose dispatcher cancelAll() cancels nothing else;
 *                                     interruptAfterMs: the calling thread (sync) is interrupted
 * </pre>
 * Prints {@code APP .. version=..}, {@code INTERCEPTORS agent=N total=N}, per call {@code RESULT id=.. status=..
 * body=.. elapsedMs=.. bodyWrites=.. thread=..} or {@code RESULT id=.. failure=CLASS message=..} (both with
 * {@code interrupted=} the caller's interrupt flag, and {@code sinceInterruptUs=} the time from the interrupt to the
 * call's return), then per call {@code CALLBACKS id=.. count=..} and {@code POOL idle=.. total=.. inUse=..}.
 */
public final class OkHttpBatch implements BatchApp.Client {
    /** How long after the dispatcher went idle a second callback, if there were one, is given to show. */
    private static final long QUIET_MS = 200;

    private String clientKind = "builder";
    private OkHttpClient client;
    private final Map<String, AtomicInteger> callbacks = new LinkedHashMap<>();
    private final Map<String, OkHttpClient> clients = new LinkedHashMap<>();

    @Override
    public int take(String[] argv, int i) {
        if (!argv[i].equals("--make")) {
            return -1;
        }
        clientKind = argv[i + 1];
        return i + 1;
    }

    @Override
    public List<Object> about() {
        return new ArrayList<>(Arrays.<Object>asList("version", OkHttpKit.version()));
    }

    @Override
    public void prepare(List<Map<String, List<String>>> calls) {
        client = OkHttpKit.newClient(clientKind);
        long agentInterceptors = client.interceptors().stream()
                .filter(i -> i.getClass().getName().startsWith("dev.retryagent")).count();
        Report.line("INTERCEPTORS", "agent", agentInterceptors, "total", client.interceptors().size());
    }

    @Override
    public void beforeCalls(List<Map<String, List<String>>> calls) {
        for (Map<String, List<String>> call : calls) {
            String id = one(call, "id", "call" + callbacks.size());
            callbacks.put(id, new AtomicInteger());
            OkHttpClient shared = "own".equals(one(call, "client", "shared")) ? OkHttpKit.newClient(clientKind) : client;
            clients.put(id, withTimeouts(shared, call));
        }
    }

    @Override
    public void call(Map<String, List<String>> spec, String id) {
        run(clients.get(id), spec, id, callbacks.get(id));
    }

    /**
     * Every first callback has run (the call threads wait for it). Lets anything still running on the dispatcher
     * finish, so that a second callback delivered there is counted; one from elsewhere is what must not happen, so it
     * cannot be waited for: a quiet period gives a late one time to show.
     */
    @Override
    public void afterCalls() throws InterruptedException {
        OkHttpKit.awaitIdle(client);
        Thread.sleep(QUIET_MS);
        callbacks.forEach((id, count) -> Report.line("CALLBACKS", "id", id, "count", count.get()));
        int total = client.connectionPool().connectionCount();
        int idleCount = client.connectionPool().idleConnectionCount();
        Report.line("POOL", "idle", idleCount, "total", total, "inUse", total - idleCount);
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

    private static void run(OkHttpClient client, Map<String, List<String>> spec, String id, AtomicInteger callbacks) {
        AtomicInteger bodyWrites = new AtomicInteger();
        Call call = client.newCall(OkHttpKit.request(CallSpec.request(spec), bodyWrites));
        if (spec.containsKey("cancelAfterMs")) {
            BatchCalls.TIMERS.schedule(call::cancel, Long.parseLong(one(spec, "cancelAfterMs", "0")),
                    TimeUnit.MILLISECONDS);
        }
        if (spec.containsKey("cancelOn")) {
            Signals.on(one(spec, "cancelOn", null), call::cancel);
        }
        if (spec.containsKey("cancelAllOn")) {
            Signals.on(one(spec, "cancelAllOn", null), () -> client.dispatcher().cancelAll());
        }
        if (spec.containsKey("cancelAllAfterMs")) {
            BatchCalls.TIMERS.schedule(() -> client.dispatcher().cancelAll(),
                    Long.parseLong(one(spec, "cancelAllAfterMs", "0")), TimeUnit.MILLISECONDS);
        }
        BatchCalls.interruptAfter(spec, id);
        long start = System.nanoTime();
        CountDownLatch done = new CountDownLatch(1);
        OkHttpKit.Outcome outcome = new OkHttpKit.Outcome() {
            @Override
            public void response(Call c, Response r, String body) {
                callbacks.incrementAndGet();
                Report.line("RESULT", "id", id, "status", r.code(), "body", body, "elapsedMs", elapsedMs(start),
                        "bodyWrites", bodyWrites.get(), "thread", Thread.currentThread().getName(),
                        "sameCall", c == call, "h.Retry-After", r.header("Retry-After"),
                        "interrupted", Thread.currentThread().isInterrupted(),
                        "sinceInterruptUs", sinceInterruptUs(id));
            }

            @Override
            public void failure(Call c, Exception e, Integer status) {
                callbacks.incrementAndGet();
                Report.line("RESULT", "id", id, "failure", e.getClass().getName(), "message", e.getMessage(),
                        "elapsedMs", elapsedMs(start), "bodyWrites", bodyWrites.get(),
                        "thread", Thread.currentThread().getName(), "sameCall", c == call,
                        "interrupted", Thread.currentThread().isInterrupted(),
                        "sinceInterruptUs", sinceInterruptUs(id));
            }

            @Override
            public void done() {
                done.countDown();
            }
        };
        if (!"async".equals(one(spec, "mode", "sync"))) {
            OkHttpKit.execute(call, outcome);
            return;
        }
        OkHttpKit.enqueue(call, outcome);
        try {
            done.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
