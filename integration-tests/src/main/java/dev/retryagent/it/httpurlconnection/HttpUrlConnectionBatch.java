package dev.retryagent.it.httpurlconnection;

import static dev.retryagent.it.apps.BatchCalls.elapsedMs;
import static dev.retryagent.it.apps.BatchCalls.sinceInterruptUs;
import static dev.retryagent.it.apps.CallSpec.one;

import dev.retryagent.it.apps.BatchApp;
import dev.retryagent.it.apps.BatchCalls;
import dev.retryagent.it.apps.CallSpec;
import dev.retryagent.it.apps.Report;
import dev.retryagent.it.clients.HttpUrlConnectionKit;
import dev.retryagent.it.clients.KitRequest;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * HttpURLConnection's part of the batch application ({@link BatchApp}{@code  httpurlconnection}): a plain
 * application using the JDK's HttpURLConnection (http or https; no agent code).
 *
 * <pre>
 * --await-thread-end NAME   before calling, wait (up to 20 s) until no thread of that name is alive
 * --call "id=ID;url=URL;method=GET;body=TEXT;header=Name: value;streaming=none|fixed|chunked;
 *         read=code|stream|message|header|length|fields;readTimeoutMs=N;interruptAfterMs=N;disconnectAfterMs=N;
 *         afterWriteFailure=fail|read"
 *                  header repeatable inside a call
 * </pre>
 *
 * {@code afterWriteFailure=read}: when writing the body throws (a server that refused {@code Expect: 100-continue}),
 * the call goes on to the reads, as an application that then asks for the status does. Either {@code RESULT} line
 * has {@code write=}: that exception's class, or {@code ok} when the write went through (or there was none).
 *
 * Per call, after the first read (which sends the request lazily, as {@code read} says), every read path:
 * {@code RESULT id=.. first=<what the first read gave> status=<getResponseCode> message=<getResponseMessage>
 * length=<getContentLength> h.Retry-After=<getHeaderField> h.X-Attempt=.. stream=<getInputStream: ok or the
 * exception class> streamMessage=.. body=<getInputStream's body below 400, getErrorStream's from 400>
 * errorStream=<null|set> fields=<getHeaderFields().size()> elapsedMs=.. interrupted=.. sinceInterruptUs=..}, or
 * {@code RESULT id=.. failure=CLASS message=.. stage=.. interrupted=.. sinceInterruptUs=..}.
 * {@code sinceInterruptUs}: from the interrupt ({@code interruptAfterMs}) to the end of the call, or null.
 */
public final class HttpUrlConnectionBatch implements BatchApp.Client {
    private String awaitThreadEnd;

    @Override
    public int take(String[] argv, int i) {
        if (!argv[i].equals("--await-thread-end")) {
            return -1;
        }
        awaitThreadEnd = argv[i + 1];
        return i + 1;
    }

    @Override
    public void beforeCalls(List<Map<String, List<String>>> calls) throws InterruptedException {
        if (awaitThreadEnd != null) {
            awaitThreadEnd(awaitThreadEnd, 20_000);
        }
    }

    private static void awaitThreadEnd(String name, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < deadline) {
            boolean alive = Thread.getAllStackTraces().keySet().stream()
                    .anyMatch(t -> t.getName().equals(name) && t.isAlive());
            if (!alive) {
                return;
            }
            Thread.sleep(10);
        }
        Report.line("TIMEOUT", "thread", name);
    }

    @Override
    public void call(Map<String, List<String>> spec, String id) {
        long start = System.nanoTime();
        String stage = "open";
        String write = "ok";
        BatchCalls.interruptAfter(spec, id);
        try {
            KitRequest request = CallSpec.requestAsGiven(spec, "text/plain; charset=utf-8");
            HttpURLConnection conn = HttpUrlConnectionKit.open(request, 0,
                    Integer.parseInt(one(spec, "readTimeoutMs", "0")));
            if (spec.containsKey("disconnectAfterMs")) {
                BatchCalls.TIMERS.schedule(conn::disconnect, Long.parseLong(one(spec, "disconnectAfterMs", "0")),
                        TimeUnit.MILLISECONDS);
            }
            stage = "write";
            try {
                HttpUrlConnectionKit.write(conn, request, one(spec, "streaming", "none"), 16);
            } catch (IOException e) {
                if (!"read".equals(one(spec, "afterWriteFailure", "fail"))) {
                    throw e;
                }
                write = e.getClass().getName();
            }
            stage = "read";
            String first = HttpUrlConnectionKit.firstRead(conn, one(spec, "read", "code"));
            List<Object> line = new ArrayList<>(Arrays.<Object>asList("id", id, "write", write, "first", first));
            line.addAll(HttpUrlConnectionKit.everyRead(conn, first));
            line.addAll(Arrays.<Object>asList("elapsedMs", elapsedMs(start),
                    "interrupted", Thread.currentThread().isInterrupted(), "sinceInterruptUs", sinceInterruptUs(id)));
            Report.line("RESULT", line.toArray());
        } catch (IOException | RuntimeException e) {
            Long since = sinceInterruptUs(id);
            Report.line("RESULT", "id", id, "write", write, "failure", e.getClass().getName(),
                    "message", e.getMessage(), "stage", stage, "elapsedMs", elapsedMs(start),
                    "interrupted", Thread.currentThread().isInterrupted(), "sinceInterruptUs", since);
        }
    }

}
