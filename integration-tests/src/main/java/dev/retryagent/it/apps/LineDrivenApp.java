package dev.retryagent.it.apps;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;

/**
 * A "legacy" service that keeps making calls until told to stop: one GET per line read on stdin, the line being the
 * path, so that a test decides exactly when each call is made (after it changed the policy file, say). The client
 * object is built once, at start, and used for every call, as a service does. Knows nothing about the agent.
 *
 * <pre>
 * --url BASE              required, such as http://127.0.0.1:PORT
 * --client jdk|okhttp|httpclient5   default jdk ({@link HttpURLConnection}); okhttp: one {@code new OkHttpClient()};
 *                         httpclient5: one {@code HttpClients.createDefault()}
 * </pre>
 *
 * <p>Prints {@code APP ...}, then per line {@code RESULT seq=N path=P status=.. elapsedMs=..} or
 * {@code RESULT seq=N path=P failure=CLASS}, and {@code DONE} at the end of stdin or on a line {@code quit}.
 */
public final class LineDrivenApp {
    private static final Set<String> OPTIONS = new HashSet<>(Arrays.asList("url", "client"));

    /** One GET; returns the status, the body read to its end and closed. */
    interface Caller {
        int get(String url) throws IOException;
    }

    public static void main(String[] argv) throws IOException {
        Args args;
        try {
            args = Args.parse(argv, OPTIONS, Collections.<String>emptySet());
            args.required("url");
        } catch (IllegalArgumentException e) {
            System.err.println("usage error: " + e.getMessage());
            System.exit(2);
            return;
        }
        String base = args.get("url", null);
        String client = args.get("client", "jdk");
        Caller caller;
        switch (client) {
            case "jdk":
                caller = new JdkCaller();
                break;
            case "okhttp":
                caller = new OkHttpCaller();
                break;
            case "httpclient5":
                caller = new HttpClient5Caller();
                break;
            default:
                System.err.println("usage error: --client jdk|okhttp|httpclient5");
                System.exit(2);
                return;
        }
        Report.line("APP", "client", client, "java", System.getProperty("java.version"));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int seq = 0;
        String line;
        while ((line = in.readLine()) != null) {
            String path = line.trim();
            if (path.equals("quit")) {
                break;
            }
            if (path.isEmpty()) {
                continue;
            }
            seq++;
            call(caller, base + path, seq, path);
        }
        Report.line("DONE");
        System.exit(0);
    }

    private static void call(Caller caller, String url, int seq, String path) {
        long start = System.nanoTime();
        try {
            int status = caller.get(url);
            Report.line("RESULT", "seq", seq, "path", path, "status", status,
                    "elapsedMs", (System.nanoTime() - start) / 1_000_000);
        } catch (IOException e) {
            Report.line("RESULT", "seq", seq, "path", path, "failure", e.getClass().getName(),
                    "elapsedMs", (System.nanoTime() - start) / 1_000_000);
        }
    }

    static final class JdkCaller implements Caller {
        @Override
        public int get(String url) throws IOException {
            HttpURLConnection conn = (HttpURLConnection) new URL(url).openConnection();
            conn.setConnectTimeout(5_000);
            conn.setReadTimeout(5_000);
            int status = conn.getResponseCode();
            InputStream body = status < 400 ? conn.getInputStream() : conn.getErrorStream();
            if (body != null) {
                drain(body);
            }
            return status;
        }
    }

    /** In a class of its own, so that OkHttp is only loaded when it is used. */
    static final class OkHttpCaller implements Caller {
        private final okhttp3.OkHttpClient client = new okhttp3.OkHttpClient();

        @Override
        public int get(String url) throws IOException {
            try (okhttp3.Response response = client.newCall(new okhttp3.Request.Builder().url(url).build()).execute()) {
                okhttp3.ResponseBody body = response.body();
                if (body != null) {
                    body.bytes();
                }
                return response.code();
            }
        }
    }

    /** In a class of its own, so that HttpClient 5 is only loaded when it is used. */
    static final class HttpClient5Caller implements Caller {
        private final org.apache.hc.client5.http.impl.classic.CloseableHttpClient client =
                org.apache.hc.client5.http.impl.classic.HttpClients.createDefault();

        @Override
        public int get(String url) throws IOException {
            return client.execute(new org.apache.hc.client5.http.classic.methods.HttpGet(url), response -> {
                org.apache.hc.core5.http.io.entity.EntityUtils.consume(response.getEntity());
                return response.getCode();
            });
        }
    }

    private static void drain(InputStream body) throws IOException {
        try (InputStream in = body) {
            Report.drain(in);
        }
    }
}
