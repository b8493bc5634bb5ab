package dev.retryagent.it.clients;

import dev.retryagent.it.apps.Report;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UnsupportedEncodingException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One kit in its own JVM, driven line by line on stdin, so that a test in another JVM runs the kit with the client
 * library set and the JDK it chooses ({@code KitContract} through {@code ForkedKit}). Takes the client's name
 * ({@link Kits}); prints {@code APP client=.. kit=CLASS version=..} ({@code version}: the implementation version of
 * the package of the class named by an optional second argument), then for each call line its outcome.
 *
 * <pre>
 * call ID sync|async REQUEST   REQUEST as {@link #encode}; prints REPLY id=ID status=.. body=BASE64 h.N=NAME:VALUE..
 *                              or FAILURE id=ID io=true|false class=.. message=..
 * cancel ID                    cancels the async call ID; prints CANCELLED id=ID when its future is cancelled
 * quit                         (or the end of stdin) closes the kit, prints DONE
 * </pre>
 */
public final class KitPipe {
    private static final Map<String, CompletableFuture<KitReply>> CALLS = new ConcurrentHashMap<>();

    private KitPipe() {
    }

    public static void main(String[] args) throws Exception {
        String client = args[0];
        String version = "unknown";
        if (args.length > 1) {
            Package p = Class.forName(args[1]).getPackage();
            version = p == null || p.getImplementationVersion() == null ? "unknown" : p.getImplementationVersion();
        }
        HttpKit kit = Kits.create(client);
        Report.line("APP", "client", client, "kit", kit.getClass().getName(), "version", version,
                "java", System.getProperty("java.version"));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null && !line.equals("quit"); line = in.readLine()) {
            String[] words = line.split(" ");
            if (words[0].equals("cancel")) {
                CompletableFuture<KitReply> call = CALLS.get(words[1]);
                if (call != null && call.cancel(true)) {
                    Report.line("CANCELLED", "id", words[1]);
                }
            } else if (words[0].equals("call")) {
                call(kit, words[1], words[2].equals("async"), decode(words, 3));
            }
        }
        for (CompletableFuture<KitReply> call : CALLS.values()) {
            call.cancel(true);
        }
        kit.close();
        Report.line("DONE");
        System.exit(0);
    }

    private static void call(HttpKit kit, String id, boolean async, KitRequest request) {
        if (!async) {
            try {
                reply(id, kit.call(request));
            } catch (IOException | RuntimeException e) {
                failure(id, e);
            }
            return;
        }
        CompletableFuture<KitReply> call;
        try {
            call = ((AsyncHttpKit) kit).callAsync(request);
        } catch (RuntimeException e) {
            failure(id, e);
            return;
        }
        CALLS.put(id, call);
        call.whenComplete((reply, failure) -> {
            if (reply != null) {
                reply(id, reply);
            } else if (!call.isCancelled()) {
                failure(id, failure);
            }
        });
    }

    private static void reply(String id, KitReply reply) {
        List<Object> values = new ArrayList<>();
        values.add("id");
        values.add(id);
        values.add("status");
        values.add(reply.status());
        values.add("body");
        values.add(Base64.getEncoder().encodeToString(reply.body()));
        int n = 0;
        for (Map.Entry<String, List<String>> h : reply.headers().entrySet()) {
            for (String value : h.getValue()) {
                values.add("h." + n++);
                values.add(h.getKey() + ":" + value);
            }
        }
        Report.line("REPLY", values.toArray());
    }

    private static void failure(String id, Throwable e) {
        Report.line("FAILURE", "id", id, "io", e instanceof IOException, "class", e.getClass().getName(),
                "message", String.valueOf(e.getMessage()));
    }

    /**
     * {@code request} as one line's words: method, URL, one-shot, content type ({@code -}: none), body in Base64
     * ({@code -}: none), then each header's name and value; each word URL-encoded.
     */
    public static String encode(KitRequest request) {
        StringBuilder line = new StringBuilder();
        line.append(word(request.method())).append(' ').append(word(request.url())).append(' ')
                .append(request.isOneShot()).append(' ')
                .append(request.contentType() == null ? "-" : word(request.contentType())).append(' ')
                .append(request.hasBody() ? Base64.getEncoder().encodeToString(request.body()) : "-");
        for (Map.Entry<String, String> h : request.headers()) {
            line.append(' ').append(word(h.getKey())).append(' ').append(word(h.getValue()));
        }
        return line.toString();
    }

    private static KitRequest decode(String[] words, int from) {
        KitRequest request = KitRequest.of(unword(words[from]), unword(words[from + 1]));
        for (int i = from + 5; i + 1 < words.length; i += 2) {
            request = request.header(unword(words[i]), unword(words[i + 1]));
        }
        if (!words[from + 4].equals("-")) {
            String type = words[from + 3].equals("-") ? null : unword(words[from + 3]);
            request = request.body(Base64.getDecoder().decode(words[from + 4]), type);
        }
        return Boolean.parseBoolean(words[from + 2]) ? request.oneShot() : request;
    }

    private static String word(String s) {
        try {
            return URLEncoder.encode(s, "UTF-8");
        } catch (UnsupportedEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String unword(String s) {
        try {
            return URLDecoder.decode(s, "UTF-8");
        } catch (UnsupportedEncodingException e) {
            throw new IllegalStateException(e);
        }
    }
}
