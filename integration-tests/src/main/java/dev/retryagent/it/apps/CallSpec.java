package dev.retryagent.it.apps;

import dev.retryagent.it.clients.KitRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The batch applications' {@code --call} argument: {@code key=value} pairs separated by {@code ;}, a key may
 * come more than once; {@code %3B} in a value is a {@code ;}. Every batch application parses its calls here (JDK
 * types and the kits' {@link KitRequest} only: it runs in the forked JVMs, and in the Spring Boot applications' jars).
 */
public final class CallSpec {
    private CallSpec() {
    }

    /** Every value of every key of {@code spec}, in order. */
    public static Map<String, List<String>> parse(String spec) {
        Map<String, List<String>> map = new LinkedHashMap<>();
        for (String part : spec.split(";")) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("key=value expected, got " + part);
            }
            map.computeIfAbsent(part.substring(0, eq), k -> new ArrayList<>())
                    .add(part.substring(eq + 1).replace("%3B", ";"));
        }
        return map;
    }

    /** The last value of {@code key}, or {@code fallback} when {@code spec} has none. */
    public static String one(Map<String, List<String>> spec, String key, String fallback) {
        List<String> values = spec.get(key);
        return values == null ? fallback : values.get(values.size() - 1);
    }

    /** The spec's {@code header=Name:value} parts as name and value, in order. */
    public static List<String[]> headers(Map<String, List<String>> spec) {
        List<String[]> headers = new ArrayList<>();
        for (String header : spec.getOrDefault("header", Collections.<String>emptyList())) {
            int colon = header.indexOf(':');
            headers.add(new String[] {header.substring(0, colon).trim(), header.substring(colon + 1).trim()});
        }
        return headers;
    }

    /** The spec's {@code body}; an empty one for a POST or PUT without it; null for no body. */
    public static String body(Map<String, List<String>> spec) {
        String text = one(spec, "body", null);
        String method = one(spec, "method", "GET");
        return text == null && (method.equals("POST") || method.equals("PUT")) ? "" : text;
    }

    /**
     * The spec's request: {@code method}, {@code url}, {@code header}s and {@link #body} as {@code text/plain} in
     * UTF-8, one-shot under {@code oneShot=true}.
     */
    public static KitRequest request(Map<String, List<String>> spec) {
        return request(spec, "text/plain; charset=utf-8", "oneShot");
    }

    /**
     * As {@link #request(Map)}, the body of type {@code contentType} (still UTF-8 bytes), one-shot under
     * {@code oneShotKey=true}.
     */
    public static KitRequest request(Map<String, List<String>> spec, String contentType, String oneShotKey) {
        KitRequest request = withBody(spec, body(spec), contentType);
        return Boolean.parseBoolean(one(spec, oneShotKey, "false")) ? request.oneShot() : request;
    }

    /**
     * The spec's {@code method}, {@code url}, {@code header}s and its {@code body} as it stands (none without one,
     * whatever the method) of type {@code contentType}: for the applications that send a POST without a body too.
     */
    public static KitRequest requestAsGiven(Map<String, List<String>> spec, String contentType) {
        return withBody(spec, one(spec, "body", null), contentType);
    }

    private static KitRequest withBody(Map<String, List<String>> spec, String text, String contentType) {
        KitRequest request = KitRequest.of(one(spec, "method", "GET"), one(spec, "url", null));
        for (String[] header : headers(spec)) {
            request = request.header(header[0], header[1]);
        }
        if (text != null) {
            request = request.body(text.getBytes(StandardCharsets.UTF_8), contentType);
        }
        return request;
    }
}
