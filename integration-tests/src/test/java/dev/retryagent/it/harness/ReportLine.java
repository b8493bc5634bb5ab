package dev.retryagent.it.harness;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One line a scenario application printed on stdout: {@code TAG key=value key=value ...}, values
 * percent-encoded by the application ({@code dev.retryagent.it.apps.Report}) so they never contain spaces.
 */
public final class ReportLine {

    private final String tag;
    private final Map<String, String> values;
    private final String raw;

    private ReportLine(String tag, Map<String, String> values, String raw) {
        this.tag = tag;
        this.values = values;
        this.raw = raw;
    }

    /** Parses a line; the tag is the first word. */
    public static ReportLine parse(String line) {
        String[] words = line.trim().split(" +");
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 1; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            if (eq < 0) {
                values.put(decode(words[i]), "");
            } else {
                values.put(decode(words[i].substring(0, eq)), decode(words[i].substring(eq + 1)));
            }
        }
        return new ReportLine(words[0], Collections.unmodifiableMap(values), line);
    }

    public String tag() {
        return tag;
    }

    public Map<String, String> values() {
        return values;
    }

    public boolean has(String key) {
        return values.containsKey(key);
    }

    /** The value of {@code key}; fails if absent. */
    public String get(String key) {
        String v = values.get(key);
        if (v == null) {
            throw new AssertionError("no '" + key + "' in: " + raw);
        }
        return v;
    }

    public String getOrNull(String key) {
        return values.get(key);
    }

    public int getInt(String key) {
        return Integer.parseInt(get(key));
    }

    public long getLong(String key) {
        return Long.parseLong(get(key));
    }

    public boolean getBoolean(String key) {
        return Boolean.parseBoolean(get(key));
    }

    @Override
    public String toString() {
        return raw;
    }

    static String decode(String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%' && i + 2 < s.length()) {
                out.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                out.write(b, 0, b.length);
            }
        }
        return new String(out.toByteArray(), StandardCharsets.UTF_8);
    }
}
