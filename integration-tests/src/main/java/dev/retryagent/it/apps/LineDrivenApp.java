package dev.retryagent.it.apps;

import dev.retryagent.it.clients.HttpKit;
import dev.retryagent.it.clients.HttpUrlConnectionKit;
import dev.retryagent.it.clients.KitRequest;
import dev.retryagent.it.clients.Kits;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;

/**
 * A "legacy" service that keeps making calls until told to stop: one GET per line read on stdin, the line being the
 * path, so that a test decides exactly when each call is made (after it changed the policy file, say). The client
 * object (its kit's) is built once, at start, and used for every call, as a service does. Knows nothing about the
 * agent.
 *
 * <pre>
 * --url BASE              required, such as http://127.0.0.1:PORT
 * --client jdk|okhttp|httpclient5   default jdk (HttpURLConnection, 5 s timeouts); okhttp: one default
 *                         {@code OkHttpClient}; httpclient5: one {@code HttpClients.createDefault()}
 * </pre>
 *
 * <p>Prints {@code APP ...}, then per line {@code RESULT seq=N path=P status=.. elapsedMs=..} or
 * {@code RESULT seq=N path=P failure=CLASS}, and {@code DONE} at the end of stdin or on a line {@code quit}.
 */
public final class LineDrivenApp {
    private static final Set<String> OPTIONS = new HashSet<>(Arrays.asList("url", "client"));

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
        HttpKit kit;
        switch (client) {
            case "jdk":
                kit = new HttpUrlConnectionKit(5_000, 5_000);
                break;
            case "okhttp":
            case "httpclient5":
                kit = Kits.create(client);
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
            call(kit, base + path, seq, path);
        }
        Report.line("DONE");
        System.exit(0);
    }

    private static void call(HttpKit kit, String url, int seq, String path) {
        long start = System.nanoTime();
        try {
            int status = kit.call(KitRequest.get(url)).status();
            Report.line("RESULT", "seq", seq, "path", path, "status", status,
                    "elapsedMs", (System.nanoTime() - start) / 1_000_000);
        } catch (IOException e) {
            Report.line("RESULT", "seq", seq, "path", path, "failure", e.getClass().getName(),
                    "elapsedMs", (System.nanoTime() - start) / 1_000_000);
        }
    }
}
