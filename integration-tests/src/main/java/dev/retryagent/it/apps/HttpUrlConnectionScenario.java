package dev.retryagent.it.apps;

import dev.retryagent.it.clients.HttpUrlConnectionKit;
import dev.retryagent.it.clients.KitRequest;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A "legacy" application using the JDK's {@link HttpURLConnection} (http or https), in the usual ways. It
 * knows nothing about the agent.
 *
 * <pre>
 * --url URL                  required
 * --method GET|POST|...      default GET
 * --body TEXT | --body-size N   sent with setDoOutput(true) and getOutputStream()
 * --content-type TYPE        default text/plain; charset=utf-8 (only with a body)
 * --header Name:value        repeatable (setRequestProperty / addRequestProperty)
 * --streaming none|fixed|chunked   default none (buffered); fixed = setFixedLengthStreamingMode,
 *                            chunked = setChunkedStreamingMode(--chunk-size, default 1024)
 * --read code|stream|header  how the response is first touched (default code):
 *                            code:   getResponseCode(), then getInputStream() below 400, else getErrorStream()
 *                            stream: getInputStream() (on IOException: getResponseCode(), getErrorStream())
 *                            header: getHeaderField("Content-Length"), then as code
 * --connect-timeout-ms N, --read-timeout-ms N
 * --repeat N, --pause-ms N, --interrupt-after-ms N, --print-header Name (repeatable), --disconnect
 * </pre>
 *
 * <p>Prints {@code APP ...}, per call {@code RESULT seq=N status=.. message=.. body=.. elapsedMs=..} (with
 * {@code streamFailure=CLASS} when --read stream threw) or {@code RESULT seq=N failure=CLASS message=..
 * stage=connect|write|read ...}, then {@code DONE}.
 */
public final class HttpUrlConnectionScenario {

    private static final Set<String> OPTIONS = new HashSet<>(Arrays.asList("url", "method", "body", "body-size",
            "content-type", "header", "streaming", "chunk-size", "read", "connect-timeout-ms", "read-timeout-ms",
            "repeat", "pause-ms", "interrupt-after-ms", "print-header"));
    private static final Set<String> FLAGS = new HashSet<>(Arrays.asList("disconnect"));

    public static void main(String[] argv) {
        Args args = Args.orUsageExit(() -> {
            Args parsed = Args.parse(argv, OPTIONS, FLAGS);
            parsed.required("url");
            String streaming = parsed.get("streaming", "none");
            String read = parsed.get("read", "code");
            if (!Arrays.asList("none", "fixed", "chunked").contains(streaming)
                    || !Arrays.asList("code", "stream", "header").contains(read)) {
                throw new IllegalArgumentException("bad --streaming or --read");
            }
            return parsed;
        });
        Report.line("APP", "client", "httpurlconnection", "java", System.getProperty("java.version"));
        args.repeatAndExit(seq -> call(args, seq), () -> { });
    }

    private static void call(Args args, int seq) {
        String stage = "connect";
        long start = System.nanoTime();
        HttpURLConnection conn = null;
        Integer status = null;
        if (args.has("interrupt-after-ms")) {
            Thread caller = Thread.currentThread();
            BatchCalls.TIMERS.schedule(caller::interrupt, args.getLong("interrupt-after-ms", 0),
                    TimeUnit.MILLISECONDS);
        }
        try {
            KitRequest request = args.request(false);
            conn = HttpUrlConnectionKit.open(request, args.getInt("connect-timeout-ms", 0),
                    args.getInt("read-timeout-ms", 0));
            stage = "write";
            HttpUrlConnectionKit.write(conn, request, args.get("streaming", "none"), args.getInt("chunk-size", 1024));
            stage = "read";
            String streamFailure = null;
            InputStream in;
            switch (args.get("read", "code")) {
                case "stream":
                    try {
                        in = conn.getInputStream();
                        status = conn.getResponseCode();
                    } catch (IOException e) {
                        streamFailure = e.getClass().getName();
                        status = conn.getResponseCode();
                        in = conn.getErrorStream();
                    }
                    break;
                case "header":
                    conn.getHeaderField("Content-Length");
                    status = conn.getResponseCode();
                    in = status < 400 ? conn.getInputStream() : conn.getErrorStream();
                    break;
                case "code":
                default:
                    status = conn.getResponseCode();
                    in = status < 400 ? conn.getInputStream() : conn.getErrorStream();
                    break;
            }
            String text = Report.text(in);
            Report.line("RESULT", Report.withHeaders(new Object[] {"seq", seq, "status", status,
                    "message", conn.getResponseMessage(), "body", text, "elapsedMs", BatchCalls.elapsedMs(start),
                    "streamFailure", streamFailure, "interrupted", Thread.currentThread().isInterrupted()},
                    args.all("print-header"), conn::getHeaderField));
        } catch (IOException | RuntimeException e) {
            Throwable cause = e.getCause();
            Report.line("RESULT", "seq", seq, "failure", e.getClass().getName(), "message", e.getMessage(),
                    "cause", cause == null ? null : cause.getClass().getName(), "stage", stage, "status", status,
                    "elapsedMs", BatchCalls.elapsedMs(start), "interrupted", Thread.currentThread().isInterrupted());
        } finally {
            if (conn != null && args.has("disconnect")) {
                conn.disconnect();
            }
            Thread.interrupted();
        }
    }
}
