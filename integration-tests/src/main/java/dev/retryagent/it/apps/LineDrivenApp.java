package dev.retryagent.it.apps;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
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
 * A "legacy" service that keeps making calls until told to stop: one GET with the JDK's {@link HttpURLConnection}
 * per line read on stdin, the line being the path, so that a test decides exactly when each call is made (after it
 * changed the policy file, say). Knows nothing about the agent.
 *
 * <pre>
 * --url BASE   required, such as http://127.0.0.1:PORT
 * </pre>
 *
 * <p>Prints {@code APP ...}, then per line {@code RESULT seq=N path=P status=.. elapsedMs=..} or
 * {@code RESULT seq=N path=P failure=CLASS}, and {@code DONE} at the end of stdin or on a line {@code quit}.
 */
public final class LineDrivenApp {
    private static final Set<String> OPTIONS = new HashSet<>(Arrays.asList("url"));

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
        Report.line("APP", "client", "httpurlconnection", "java", System.getProperty("java.version"));
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
            call(base + path, seq, path);
        }
        Report.line("DONE");
        System.exit(0);
    }

    private static void call(String url, int seq, String path) {
        long start = System.nanoTime();
        try {
            HttpURLConnection conn = (HttpURLConnection) new URL(url).openConnection();
            conn.setConnectTimeout(5_000);
            conn.setReadTimeout(5_000);
            int status = conn.getResponseCode();
            InputStream body = status < 400 ? conn.getInputStream() : conn.getErrorStream();
            if (body != null) {
                drain(body);
            }
            Report.line("RESULT", "seq", seq, "path", path, "status", status,
                    "elapsedMs", (System.nanoTime() - start) / 1_000_000);
        } catch (IOException e) {
            Report.line("RESULT", "seq", seq, "path", path, "failure", e.getClass().getName(),
                    "elapsedMs", (System.nanoTime() - start) / 1_000_000);
        }
    }

    private static void drain(InputStream body) throws IOException {
        try (InputStream in = body) {
            ByteArrayOutputStream sink = new ByteArrayOutputStream();
            byte[] chunk = new byte[4096];
            int n;
            while ((n = in.read(chunk)) >= 0) {
                sink.write(chunk, 0, n);
            }
        }
    }
}
