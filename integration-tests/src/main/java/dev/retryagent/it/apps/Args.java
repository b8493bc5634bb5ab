package dev.retryagent.it.apps;

import dev.retryagent.it.clients.KitRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/** A tiny {@code --key value} / {@code --flag} command-line parser for the scenario applications. */
final class Args {

    private final Map<String, List<String>> values = new LinkedHashMap<>();

    private Args() {
    }

    /**
     * Parses {@code args}; names in {@code flags} take no value, every other {@code --name} takes the next
     * argument. Unknown names are an error, so a typo in a test fails loudly.
     */
    static Args parse(String[] args, Set<String> options, Set<String> flags) {
        Args parsed = new Args();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument: " + a);
            }
            String name = a.substring(2);
            if (flags.contains(name)) {
                parsed.values.computeIfAbsent(name, k -> new ArrayList<>()).add("true");
            } else if (options.contains(name)) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("--" + name + " needs a value");
                }
                parsed.values.computeIfAbsent(name, k -> new ArrayList<>()).add(args[++i]);
            } else {
                throw new IllegalArgumentException("unknown option --" + name);
            }
        }
        return parsed;
    }

    /** What {@code parse} gives; an {@link IllegalArgumentException} is a usage error: its message, exit code 2. */
    static <T> T orUsageExit(Supplier<T> parse) {
        try {
            return parse.get();
        } catch (IllegalArgumentException e) {
            System.err.println("usage error: " + e.getMessage());
            System.exit(2);
            throw e;
        }
    }

    /** One call of a scenario application, numbered from 1. */
    interface Call {
        void call(int seq) throws Exception;
    }

    /**
     * Makes {@code --repeat} calls (default 1), {@code --pause-ms} apart, then runs {@code end}, prints {@code DONE}
     * and exits 0; whatever a call throws ends the application with its stack trace and exit code 1.
     */
    void repeatAndExit(Call call, Runnable end) {
        try {
            int repeat = getInt("repeat", 1);
            for (int seq = 1; seq <= repeat; seq++) {
                if (seq > 1 && has("pause-ms")) {
                    Thread.sleep(getLong("pause-ms", 0));
                }
                call.call(seq);
            }
            end.run();
            Report.line("DONE");
            System.exit(0);
        } catch (Throwable t) {
            System.err.println("scenario failed unexpectedly:");
            t.printStackTrace();
            System.exit(1);
        }
    }

    /**
     * The request of {@code --method} (upper case), {@code --url}, {@code --header}s and {@link #body} of
     * {@code --content-type} (default {@code text/plain; charset=utf-8}); with {@code uploadsCarryBody} a POST, PUT or
     * PATCH without a body has an empty one.
     */
    KitRequest request(boolean uploadsCarryBody) {
        KitRequest request = KitRequest.of(get("method", "GET").toUpperCase(), required("url"));
        for (String h : all("header")) {
            String[] kv = splitHeader(h);
            request = request.header(kv[0], kv[1]);
        }
        byte[] body = body();
        if (body == null && uploadsCarryBody && (request.method().equals("POST") || request.method().equals("PUT")
                || request.method().equals("PATCH"))) {
            body = new byte[0];
        }
        return body == null ? request : request.body(body, get("content-type", "text/plain; charset=utf-8"));
    }

    String get(String name, String fallback) {
        List<String> v = values.get(name);
        return v == null ? fallback : v.get(v.size() - 1);
    }

    String required(String name) {
        String v = get(name, null);
        if (v == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return v;
    }

    List<String> all(String name) {
        List<String> v = values.get(name);
        return v == null ? new ArrayList<>() : v;
    }

    boolean has(String name) {
        return values.containsKey(name);
    }

    long getLong(String name, long fallback) {
        String v = get(name, null);
        return v == null ? fallback : Long.parseLong(v);
    }

    int getInt(String name, int fallback) {
        String v = get(name, null);
        return v == null ? fallback : Integer.parseInt(v);
    }

    /** The request body: {@code --body TEXT}, or {@code --body-size N} deterministic bytes, or null. */
    byte[] body() {
        if (has("body")) {
            return get("body", "").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
        if (has("body-size")) {
            int n = getInt("body-size", 0);
            byte[] b = new byte[n];
            for (int i = 0; i < n; i++) {
                b[i] = (byte) ('a' + (i % 26));
            }
            return b;
        }
        return null;
    }

    /** {@code --header Name:value}, repeatable; the value may contain ':'. */
    static String[] splitHeader(String spec) {
        int colon = spec.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("--header wants Name:value, got " + spec);
        }
        return new String[] {spec.substring(0, colon).trim(), spec.substring(colon + 1).trim()};
    }
}
