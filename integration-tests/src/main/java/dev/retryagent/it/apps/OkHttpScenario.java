package dev.retryagent.it.apps;

import dev.retryagent.it.clients.KitRequest;
import dev.retryagent.it.clients.OkHttpKit;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * A "legacy" OkHttp application: it makes calls the ordinary way and prints what it saw. It knows nothing
 * about the agent. Compiled against OkHttp 4.12; runs unchanged with OkHttp 5.x (same {@code okhttp3} API).
 *
 * <pre>
 * --url URL                  required
 * --method GET|POST|...      default GET (POST/PUT/PATCH without --body send an empty body)
 * --body TEXT | --body-size N
 * --content-type TYPE        default text/plain; charset=utf-8
 * --header Name:value        repeatable
 * --mode sync|async          Call.execute or Call.enqueue (default sync)
 * --one-shot                 the RequestBody is one-shot (isOneShot() = true, backed by a stream)
 * --cancel-after-ms N        Call.cancel() from another thread after N ms
 * --interrupt-after-ms N     interrupt the calling thread after N ms (sync)
 * --repeat N                 calls in sequence (default 1); --pause-ms N between them
 * --client new|builder|newBuilder   new OkHttpClient() / new OkHttpClient.Builder()...build() /
 *                            new OkHttpClient().newBuilder()...build() (default builder)
 * --connect-timeout-ms N, --read-timeout-ms N, --call-timeout-ms N, --retry-on-connection-failure true|false
 * --print-header Name        repeatable: adds h.Name=value to the RESULT line
 * --async-wait-ms N          how long to wait for an async callback (default 60000)
 * </pre>
 *
 * <p>Prints {@code APP ...}, then per call {@code RESULT seq=N status=.. message=.. body=.. elapsedMs=..
 * bodyWrites=.. thread=.. interrupted=..} or {@code RESULT seq=N failure=CLASS message=.. stage=execute|body
 * ...}, for async {@code CALLBACKS seq=N count=..}, then {@code POOL idle=.. total=..} and {@code DONE}.
 */
public final class OkHttpScenario {

    private static final Set<String> OPTIONS = new HashSet<>(Arrays.asList("url", "method", "body", "body-size",
            "content-type", "header", "mode", "cancel-after-ms", "interrupt-after-ms", "repeat", "pause-ms",
            "client", "connect-timeout-ms", "read-timeout-ms", "call-timeout-ms", "retry-on-connection-failure",
            "print-header", "async-wait-ms"));
    private static final Set<String> FLAGS = new HashSet<>(Arrays.asList("one-shot"));

    public static void main(String[] argv) {
        Args args = Args.orUsageExit(() -> {
            Args parsed = Args.parse(argv, OPTIONS, FLAGS);
            parsed.required("url");
            return parsed;
        });
        OkHttpClient client = Args.orUsageExit(() -> client(args));
        Report.line("APP", "client", "okhttp", "version", OkHttpKit.version(),
                "java", System.getProperty("java.version"));
        args.repeatAndExit(seq -> {
            if ("async".equals(args.get("mode", "sync"))) {
                callAsync(client, args, seq);
            } else {
                callSync(client, args, seq);
            }
        }, () -> Report.line("POOL", "idle", client.connectionPool().idleConnectionCount(),
                "total", client.connectionPool().connectionCount()));
    }

    private static OkHttpClient client(Args args) {
        String kind = args.get("client", "builder");
        boolean tuned = args.has("connect-timeout-ms") || args.has("read-timeout-ms") || args.has("call-timeout-ms")
                || args.has("retry-on-connection-failure");
        if (kind.equals("new")) {
            if (tuned) {
                throw new IllegalArgumentException("--client new cannot take timeouts or retry settings");
            }
            return OkHttpKit.newClient(kind);
        }
        OkHttpClient.Builder builder = OkHttpKit.builder(kind);
        if (args.has("connect-timeout-ms")) {
            builder.connectTimeout(args.getLong("connect-timeout-ms", 0), TimeUnit.MILLISECONDS);
        }
        if (args.has("read-timeout-ms")) {
            builder.readTimeout(args.getLong("read-timeout-ms", 0), TimeUnit.MILLISECONDS);
        }
        if (args.has("call-timeout-ms")) {
            builder.callTimeout(args.getLong("call-timeout-ms", 0), TimeUnit.MILLISECONDS);
        }
        if (args.has("retry-on-connection-failure")) {
            builder.retryOnConnectionFailure(Boolean.parseBoolean(args.get("retry-on-connection-failure", "true")));
        }
        return builder.build();
    }

    private static Request request(Args args, AtomicInteger bodyWrites) {
        KitRequest request = args.request(true);
        return OkHttpKit.request(args.has("one-shot") ? request.oneShot() : request, bodyWrites);
    }

    /** Reports a call's outcome as {@code seq}, counting its callbacks. */
    private static OkHttpKit.Outcome reporting(int seq, long start, AtomicInteger bodyWrites, List<String> printHeaders,
            AtomicInteger callbacks) {
        return new OkHttpKit.Outcome() {
            @Override
            public void response(Call call, Response response, String body) {
                callbacks.incrementAndGet();
                report(seq, response, body, start, bodyWrites, printHeaders);
            }

            @Override
            public void failure(Call call, Exception e, Integer status) {
                callbacks.incrementAndGet();
                reportFailure(seq, e, status == null ? "execute" : "body", status, start, bodyWrites);
            }
        };
    }

    private static void callSync(OkHttpClient client, Args args, int seq) {
        AtomicInteger bodyWrites = new AtomicInteger();
        Call call = client.newCall(request(args, bodyWrites));
        Thread caller = Thread.currentThread();
        if (args.has("cancel-after-ms")) {
            BatchCalls.TIMERS.schedule(call::cancel, args.getLong("cancel-after-ms", 0), TimeUnit.MILLISECONDS);
        }
        if (args.has("interrupt-after-ms")) {
            BatchCalls.TIMERS.schedule(caller::interrupt, args.getLong("interrupt-after-ms", 0), TimeUnit.MILLISECONDS);
        }
        long start = System.nanoTime();
        OkHttpKit.execute(call, reporting(seq, start, bodyWrites, args.all("print-header"), new AtomicInteger()));
        Thread.interrupted(); // the flag has been reported; do not let it leak into the next call's sleep
    }

    private static void callAsync(OkHttpClient client, Args args, int seq) throws InterruptedException {
        AtomicInteger bodyWrites = new AtomicInteger();
        AtomicInteger callbacks = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(1);
        Call call = client.newCall(request(args, bodyWrites));
        if (args.has("cancel-after-ms")) {
            BatchCalls.TIMERS.schedule(call::cancel, args.getLong("cancel-after-ms", 0), TimeUnit.MILLISECONDS);
        }
        long start = System.nanoTime();
        OkHttpKit.Outcome reporting = reporting(seq, start, bodyWrites, args.all("print-header"), callbacks);
        OkHttpKit.enqueue(call, new OkHttpKit.Outcome() {
            @Override
            public void response(Call c, Response response, String body) {
                reporting.response(c, response, body);
            }

            @Override
            public void failure(Call c, Exception e, Integer status) {
                reporting.failure(c, e, status);
            }

            @Override
            public void done() {
                done.countDown();
            }
        });
        boolean called = done.await(args.getLong("async-wait-ms", 60_000), TimeUnit.MILLISECONDS);
        // let anything still running on the dispatcher finish, so a second callback would be counted
        OkHttpKit.awaitIdle(client);
        Report.line("CALLBACKS", "seq", seq, "count", callbacks.get(), "timedOut", !called);
    }

    private static void report(int seq, Response response, String body, long start, AtomicInteger bodyWrites,
            List<String> printHeaders) {
        Report.line("RESULT", Report.withHeaders(new Object[] {"seq", seq, "status", response.code(),
                "message", response.message(), "body", body, "elapsedMs", BatchCalls.elapsedMs(start),
                "bodyWrites", bodyWrites.get(), "thread", Thread.currentThread().getName(),
                "interrupted", Thread.currentThread().isInterrupted()}, printHeaders, response::header));
    }

    private static void reportFailure(int seq, Throwable e, String stage, Integer status, long start,
            AtomicInteger bodyWrites) {
        Throwable cause = e.getCause();
        Report.line("RESULT", "seq", seq, "failure", e.getClass().getName(), "message", e.getMessage(),
                "cause", cause == null ? null : cause.getClass().getName(), "stage", stage,
                "status", status, "elapsedMs", BatchCalls.elapsedMs(start), "bodyWrites", bodyWrites.get(),
                "thread", Thread.currentThread().getName(), "interrupted", Thread.currentThread().isInterrupted());
    }
}
