package dev.retryagent.it.apps;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
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
        Args args;
        try {
            args = Args.parse(argv, OPTIONS, FLAGS);
            args.required("url");
            String streaming = args.get("streaming", "none");
            String read = args.get("read", "code");
            if (!Arrays.asList("none", "fixed", "chunked").contains(streaming)
                    || !Arrays.asList("code", "stream", "header").contains(read)) {
                throw new IllegalArgumentException("bad --streaming or --read");
            }
        } catch (IllegalArgumentException e) {
            System.err.println("usage error: " + e.getMessage());
            System.exit(2);
            return;
        }
        Report.line("APP", "client", "httpurlconnection", "java", System.getProperty("java.version"));
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "scenario-timer");
            t.setDaemon(true);
            return t;
        });
        try {
            int repeat = args.getInt("repeat", 1);
            for (int seq = 1; seq <= repeat; seq++) {
                if (seq > 1 && args.has("pause-ms")) {
                    Thread.sleep(args.getLong("pause-ms", 0));
                }
                call(args, seq, timers);
            }
            Report.line("DONE");
            System.exit(0);
        } catch (Throwable t) {
            System.err.println("scenario failed unexpectedly:");
            t.printStackTrace();
            System.exit(1);
        }
    }

    private static void call(Args args, int seq, ScheduledExecutorService timers) {
        String stage = "connect";
        long start = System.nanoTime();
        HttpURLConnection conn = null;
        Integer status = null;
        if (args.has("interrupt-after-ms")) {
            Thread caller = Thread.currentThread();
            timers.schedule(caller::interrupt, args.getLong("interrupt-after-ms", 0), TimeUnit.MILLISECONDS);
        }
        try {
            conn = (HttpURLConnection) new URL(args.required("url")).openConnection();
            conn.setRequestMethod(args.get("method", "GET").toUpperCase());
            if (args.has("connect-timeout-ms")) {
                conn.setConnectTimeout(args.getInt("connect-timeout-ms", 0));
            }
            if (args.has("read-timeout-ms")) {
                conn.setReadTimeout(args.getInt("read-timeout-ms", 0));
            }
            for (String h : args.all("header")) {
                String[] kv = Args.splitHeader(h);
                conn.addRequestProperty(kv[0], kv[1]);
            }
            byte[] body = args.body();
            if (body != null) {
                conn.setDoOutput(true);
                conn.setRequestProperty("Content-Type", args.get("content-type", "text/plain; charset=utf-8"));
                String streaming = args.get("streaming", "none");
                if (streaming.equals("fixed")) {
                    conn.setFixedLengthStreamingMode(body.length);
                } else if (streaming.equals("chunked")) {
                    conn.setChunkedStreamingMode(args.getInt("chunk-size", 1024));
                }
                stage = "write";
                try (OutputStream out = conn.getOutputStream()) {
                    out.write(body);
                }
            }
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
            List<String> printHeaders = args.all("print-header");
            Object[] base = {"seq", seq, "status", status, "message", conn.getResponseMessage(), "body", text,
                    "elapsedMs", elapsedMs(start), "streamFailure", streamFailure,
                    "interrupted", Thread.currentThread().isInterrupted()};
            Object[] all = Arrays.copyOf(base, base.length + 2 * printHeaders.size());
            int i = base.length;
            for (String name : printHeaders) {
                all[i++] = "h." + name;
                all[i++] = conn.getHeaderField(name);
            }
            Report.line("RESULT", all);
        } catch (IOException | RuntimeException e) {
            Throwable cause = e.getCause();
            Report.line("RESULT", "seq", seq, "failure", e.getClass().getName(), "message", e.getMessage(),
                    "cause", cause == null ? null : cause.getClass().getName(), "stage", stage, "status", status,
                    "elapsedMs", elapsedMs(start), "interrupted", Thread.currentThread().isInterrupted());
        } finally {
            if (conn != null && args.has("disconnect")) {
                conn.disconnect();
            }
            Thread.interrupted();
        }
    }

    private static long elapsedMs(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
}
