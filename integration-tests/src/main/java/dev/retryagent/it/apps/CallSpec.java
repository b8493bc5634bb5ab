package dev.retryagent.it.apps;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The batch applications' {@code --call} argument: {@code key=value} pairs separated by {@code ;}, a key may
 * come more than once; {@code %3B} in a value is a {@code ;}. Every batch application parses its calls here (JDK
 * types only: it runs in the forked JVMs, and in the Spring Boot applications' jars).
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
}
