package dev.retryagent.it.apps;

import dev.retryagent.it.clients.HttpClient4Kit;
import dev.retryagent.it.clients.HttpClient5Kit;
import dev.retryagent.it.clients.KitRequest;
import dev.retryagent.it.clients.Kits;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A long-running "legacy" service for {@code attach}: it builds its clients once, at start-up, and keeps using
 * the same objects, as a service does. Needs OkHttp and HttpClient 5 on its class path. Knows nothing of the
 * agent.
 *
 * <p>Prints {@code READY pid=N}, then reads commands from stdin, one per line:
 * <pre>
 * call ID CLIENT URL   one GET through the client object built at start-up; CLIENT is okhttp (execute),
 *                      okhttp-async (enqueue), httpclient5 (HttpClients.createDefault()), httpclient5-async
 *                      (HttpAsyncClients.createDefault()), httpclient4, httpclient4-async (HttpClient 4.5's
 *                      createDefault(), HttpAsyncClient 4.1's, built only when they are on the class path), or
 *                      httpurlconnection (a new connection, as always)
 * exit                 ends the application (so does the end of stdin)
 * </pre>
 * Each call goes through its client's kit and prints {@code RESULT id=ID client=CLIENT status=N} or
 * {@code RESULT id=ID client=CLIENT failure=CLASS}.
 */
public final class LongRunningClientsApp {
    private static final Set<String> CLIENTS = new HashSet<>(Arrays.asList("okhttp", "okhttp-async", "httpclient5",
            "httpclient5-async", "httpclient4", "httpclient4-async", "httpurlconnection"));

    private static final Kits KITS = new Kits()
            .use("httpclient5", () -> new HttpClient5Kit().startAsync())
            .use("httpclient4", () -> new HttpClient4Kit().startAsync());

    private LongRunningClientsApp() {
    }

    public static void main(String[] args) throws Exception {
        KITS.kit("okhttp");
        KITS.kit("httpclient5");
        // HttpClient 4's kit is made only when HttpClient 4 is there: making it loads HttpClient 4's types.
        if (present("org.apache.http.impl.client.HttpClients")) {
            KITS.kit("httpclient4");
        }
        Report.line("READY", "pid", pid(), "java", System.getProperty("java.version"));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split(" ");
            if (words[0].equals("exit")) {
                break;
            }
            if (words[0].equals("call") && words.length == 4) {
                call(words[1], words[2], words[3]);
            } else if (!line.trim().isEmpty()) {
                Report.line("UNKNOWN", "line", line);
            }
        }
        KITS.close();
        Report.line("DONE");
    }

    private static void call(String id, String client, String url) {
        if (!CLIENTS.contains(client)) {
            Report.line("RESULT", "id", id, "client", client, "failure", "unknown-client");
            return;
        }
        try {
            int status = KITS.call(client, KitRequest.get(url), 60, TimeUnit.SECONDS).status();
            Report.line("RESULT", "id", id, "client", client, "status", status);
        } catch (Exception e) {
            Throwable cause = e.getCause() != null && !(e instanceof IOException) ? e.getCause() : e;
            Report.line("RESULT", "id", id, "client", client, "failure", cause.getClass().getName());
        }
    }

    /** This JVM's process id, from the runtime's name ("pid@host" on HotSpot and OpenJ9). */
    private static long pid() {
        String name = ManagementFactory.getRuntimeMXBean().getName();
        return Long.parseLong(name.substring(0, name.indexOf('@')));
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, LongRunningClientsApp.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
