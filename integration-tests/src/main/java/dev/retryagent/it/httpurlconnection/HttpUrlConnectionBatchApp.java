package dev.retryagent.it.httpurlconnection;

import static dev.retryagent.it.apps.BatchCalls.elapsedMs;
import static dev.retryagent.it.apps.BatchCalls.sinceInterruptUs;
import static dev.retryagent.it.apps.CallSpec.one;

import dev.retryagent.it.apps.BatchCalls;
import dev.retryagent.it.apps.CallSpec;
import dev.retryagent.it.apps.Report;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A plain application using the JDK's HttpURLConnection (http or https; no agent code) that makes several
 * independent calls at once, one thread each, so that one forked JVM covers many scenarios.
 *
 * <pre>
 * --await-go       print READY, then wait for a line on stdin before calling
 * --sequential     one call after the other (default: all at once)
 * --await-thread-end NAME   before calling, wait (up to 20 s) until no thread of that name is alive
 * --call "id=ID;url=URL;method=GET;body=TEXT;header=Name: value;streaming=none|fixed|chunked;
 *         read=code|stream|message|header|length|fields;readTimeoutMs=N;interruptAfterMs=N;disconnectAfterMs=N;
 *         afterWriteFailure=fail|read"
 *                  repeatable; header repeatable inside a call
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
 * {@code RESULT id=.. failure=CLASS message=.. stage=.. interrupted=.. sinceInterruptUs=..}; then {@code DONE}.
 * {@code sinceInterruptUs}: from the interrupt ({@code interruptAfterMs}) to the end of the call, or null.
 */
public final class HttpUrlConnectionBatchApp {

    public static void main(String[] argv) throws Exception {
        String[] awaitThreadEnd = {null};
        BatchCalls.Options options = BatchCalls.Options.parse(argv, (args, i) -> {
            if (!args[i].equals("--await-thread-end")) {
                return -1;
            }
            awaitThreadEnd[0] = args[i + 1];
            return i + 1;
        });
        Report.line("APP", "client", "httpurlconnection", "java", System.getProperty("java.version"));
        BatchCalls.awaitGo(options);
        if (awaitThreadEnd[0] != null) {
            awaitThreadEnd(awaitThreadEnd[0], 20_000);
        }
        BatchCalls.runEach(options, HttpUrlConnectionBatchApp::run, 60_000);
        Report.line("DONE");
        System.exit(0);
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

    private static void run(Map<String, List<String>> spec, String id) {
        long start = System.nanoTime();
        String stage = "open";
        String write = "ok";
        BatchCalls.interruptAfter(spec, id);
        try {
            HttpURLConnection conn = (HttpURLConnection) new URL(one(spec, "url", null)).openConnection();
            conn.setRequestMethod(one(spec, "method", "GET"));
            if (spec.containsKey("disconnectAfterMs")) {
                BatchCalls.TIMERS.schedule(conn::disconnect, Long.parseLong(one(spec, "disconnectAfterMs", "0")),
                        TimeUnit.MILLISECONDS);
            }
            if (spec.containsKey("readTimeoutMs")) {
                conn.setReadTimeout(Integer.parseInt(one(spec, "readTimeoutMs", "0")));
            }
            for (String[] header : CallSpec.headers(spec)) {
                conn.addRequestProperty(header[0], header[1]);
            }
            String text = one(spec, "body", null);
            if (text != null) {
                byte[] body = text.getBytes(StandardCharsets.UTF_8);
                conn.setDoOutput(true);
                conn.setRequestProperty("Content-Type", "text/plain; charset=utf-8");
                switch (one(spec, "streaming", "none")) {
                    case "fixed":
                        conn.setFixedLengthStreamingMode(body.length);
                        break;
                    case "chunked":
                        conn.setChunkedStreamingMode(16);
                        break;
                    default:
                        break;
                }
                stage = "write";
                try (OutputStream out = conn.getOutputStream()) {
                    out.write(body);
                } catch (IOException e) {
                    if (!"read".equals(one(spec, "afterWriteFailure", "fail"))) {
                        throw e;
                    }
                    write = e.getClass().getName();
                }
            }
            stage = "read";
            String first;
            switch (one(spec, "read", "code")) {
                case "stream":
                    try (InputStream in = conn.getInputStream()) {
                        first = "stream:" + Report.text(in);
                    } catch (IOException e) {
                        first = "stream-threw:" + e.getClass().getName();
                    }
                    break;
                case "message":
                    first = "message:" + conn.getResponseMessage();
                    break;
                case "header":
                    first = "header:" + conn.getHeaderField("X-Attempt");
                    break;
                case "length":
                    first = "length:" + conn.getContentLength();
                    break;
                case "fields":
                    first = "fields:" + conn.getHeaderFields().get("X-Attempt");
                    break;
                default:
                    first = "code:" + conn.getResponseCode();
                    break;
            }
            int status = conn.getResponseCode();
            String stream = "ok";
            String streamMessage = null;
            String body = null;
            if (status >= 400) {
                try {
                    conn.getInputStream().close();
                } catch (IOException e) {
                    stream = e.getClass().getName();
                    streamMessage = e.getMessage();
                }
            }
            InputStream errorStream = conn.getErrorStream();
            if (!first.startsWith("stream:")) {
                body = Report.text(status < 400 ? conn.getInputStream() : errorStream);
            } else {
                body = first.substring("stream:".length());
            }
            Report.line("RESULT", "id", id, "write", write, "first", first, "status", status,
                    "message", conn.getResponseMessage(), "length", conn.getContentLength(),
                    "h.Retry-After", conn.getHeaderField("Retry-After"),
                    "h.X-Attempt", conn.getHeaderField("X-Attempt"), "stream", stream, "streamMessage", streamMessage,
                    "body", body, "errorStream", errorStream == null ? "null" : "set",
                    "fields", conn.getHeaderFields().size(), "elapsedMs", elapsedMs(start),
                    "interrupted", Thread.currentThread().isInterrupted(), "sinceInterruptUs", sinceInterruptUs(id));
        } catch (IOException | RuntimeException e) {
            Long since = sinceInterruptUs(id);
            Report.line("RESULT", "id", id, "write", write, "failure", e.getClass().getName(),
                    "message", e.getMessage(), "stage", stage, "elapsedMs", elapsedMs(start),
                    "interrupted", Thread.currentThread().isInterrupted(), "sinceInterruptUs", since);
        }
    }

}
