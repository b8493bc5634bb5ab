package dev.retryagent.agent.operations.cli;

import java.util.Iterator;
import java.util.Map;

/**
 * Writes a tree of {@link Map} (string keys, in their iteration order), {@link Iterable}, {@link String},
 * {@link Number}, {@link Boolean} and null as JSON, two spaces per level. The output is ASCII: every character
 * outside printable ASCII is written as a backslash-u escape, so no console encoding can garble it, and a lone
 * surrogate in a file name still gives valid JSON text.
 */
final class JsonWriter {
    private final StringBuilder out = new StringBuilder();

    private JsonWriter() {
    }

    static String write(Object value) {
        JsonWriter writer = new JsonWriter();
        writer.value(value, 0);
        return writer.out.toString();
    }

    private void value(Object value, int depth) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String) {
            string((String) value);
        } else if (value instanceof Boolean) {
            out.append(((Boolean) value).booleanValue() ? "true" : "false");
        } else if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            // JSON has no NaN or Infinity.
            out.append(Double.isNaN(d) || Double.isInfinite(d) ? "null" : Double.toString(d));
        } else if (value instanceof Number) {
            out.append(((Number) value).longValue());
        } else if (value instanceof Map) {
            object((Map<?, ?>) value, depth);
        } else if (value instanceof Iterable) {
            array((Iterable<?>) value, depth);
        } else {
            throw new IllegalArgumentException("not a JSON value: " + value.getClass().getName());
        }
    }

    private void object(Map<?, ?> map, int depth) {
        if (map.isEmpty()) {
            out.append("{}");
            return;
        }
        out.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            out.append(first ? "\n" : ",\n");
            first = false;
            indent(depth + 1);
            string(String.valueOf(entry.getKey()));
            out.append(": ");
            value(entry.getValue(), depth + 1);
        }
        out.append('\n');
        indent(depth);
        out.append('}');
    }

    private void array(Iterable<?> items, int depth) {
        Iterator<?> it = items.iterator();
        if (!it.hasNext()) {
            out.append("[]");
            return;
        }
        boolean scalars = true;
        for (Object item : items) {
            scalars &= !(item instanceof Map) && !(item instanceof Iterable);
        }
        out.append('[');
        boolean first = true;
        while (it.hasNext()) {
            Object item = it.next();
            if (scalars) {
                // A list of numbers or names stays on one line: [408, 429, 503].
                out.append(first ? "" : ", ");
            } else {
                out.append(first ? "\n" : ",\n");
                indent(depth + 1);
            }
            first = false;
            value(item, depth + 1);
        }
        if (!scalars) {
            out.append('\n');
            indent(depth);
        }
        out.append(']');
    }

    private void string(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    out.append("\\\"");
                    break;
                case '\\':
                    out.append("\\\\");
                    break;
                case '\n':
                    out.append("\\n");
                    break;
                case '\r':
                    out.append("\\r");
                    break;
                case '\t':
                    out.append("\\t");
                    break;
                case '\b':
                    out.append("\\b");
                    break;
                case '\f':
                    out.append("\\f");
                    break;
                default:
                    if (c < 0x20 || c > 0x7e) {
                        out.append("\\u");
                        String hex = Integer.toHexString(c);
                        for (int pad = hex.length(); pad < 4; pad++) {
                            out.append('0');
                        }
                        out.append(hex);
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }

    private void indent(int depth) {
        for (int i = 0; i < depth; i++) {
            out.append("  ");
        }
    }
}
