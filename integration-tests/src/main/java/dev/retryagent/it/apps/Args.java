package dev.retryagent.it.apps;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
