package dev.retryagent.it.harness;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Header fields in the order received; names compare case-insensitively, a name may repeat. */
public final class HttpHeaders {

    private final List<Map.Entry<String, String>> fields;

    HttpHeaders(List<Map.Entry<String, String>> fields) {
        this.fields = Collections.unmodifiableList(new ArrayList<>(fields));
    }

    /** Every field in arrival order, names as the client spelled them. */
    public List<Map.Entry<String, String>> fields() {
        return fields;
    }

    /** The first value of {@code name}, if present. */
    public Optional<String> first(String name) {
        for (Map.Entry<String, String> field : fields) {
            if (field.getKey().equalsIgnoreCase(name)) {
                return Optional.of(field.getValue());
            }
        }
        return Optional.empty();
    }

    /** The first value of {@code name}, or null. */
    public String get(String name) {
        return first(name).orElse(null);
    }

    /** Every value of {@code name}, in order (one entry per header line). */
    public List<String> all(String name) {
        List<String> values = new ArrayList<>();
        for (Map.Entry<String, String> field : fields) {
            if (field.getKey().equalsIgnoreCase(name)) {
                values.add(field.getValue());
            }
        }
        return values;
    }

    public boolean contains(String name) {
        return first(name).isPresent();
    }

    /** The distinct names, lower case, in order of first appearance. */
    public Set<String> names() {
        Set<String> names = new LinkedHashSet<>();
        for (Map.Entry<String, String> field : fields) {
            names.add(field.getKey().toLowerCase(Locale.ROOT));
        }
        return names;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, String> field : fields) {
            sb.append(field.getKey()).append(": ").append(field.getValue()).append('\n');
        }
        return sb.toString();
    }
}
