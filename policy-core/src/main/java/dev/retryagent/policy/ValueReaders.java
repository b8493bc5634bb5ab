package dev.retryagent.policy;

import static dev.retryagent.policy.PolicyMessages.closest;
import static dev.retryagent.policy.PolicyMessages.describe;
import static dev.retryagent.policy.PolicyMessages.join;
import static dev.retryagent.policy.PolicyMessages.quote;
import static dev.retryagent.policy.PolicyMessages.show;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;

import dev.retryagent.policy.PolicySchema.Place;

/**
 * Reads one typed value of a policy file (a mapping, a list, an integer, a duration, a header name, ...) from
 * its YAML node. A value that is not what it should be is reported and read as null; an absent value (null, a
 * key not given) and a refused alias are read as null without a word, the alias since it was reported when it
 * was parsed.
 */
final class ValueReaders {
    private final PolicyErrors errors;

    ValueReaders(PolicyErrors errors) {
        this.errors = errors;
    }

    /** The entries of a mapping whose keys are all known; unknown and repeated keys are reported. */
    Map<String, YamlValue> mapping(YamlValue value, Place place) {
        Map<String, YamlValue> result = new LinkedHashMap<String, YamlValue>();
        if (absentOrRefused(value)) {
            return null;
        }
        List<String> allowed = place.keys();
        if (value.kind() != YamlKind.MAP) {
            typeError(value, "a mapping with the keys " + join(allowed));
            return null;
        }
        Map<String, Integer> seen = new LinkedHashMap<String, Integer>();
        for (NodeTuple tuple : ((MappingNode) value.node).getValue()) {
            if (errors.overflowed()) {
                break;
            }
            Node keyNode = tuple.getKeyNode();
            Node valueNode = tuple.getValueNode();
            int keyLine = YamlValue.lineOf(keyNode);
            if (!(keyNode instanceof ScalarNode)) {
                errors.add(keyLine, YamlValue.childPath(value.path, "?"),
                        "a key must be a plain name, found " + describe(keyNode));
                continue;
            }
            if (keyNode instanceof RefusedAliasNode) {
                continue;
            }
            String key = ((ScalarNode) keyNode).getValue();
            String path = YamlValue.childPath(value.path, key);
            Integer first = seen.get(key);
            if (first != null) {
                errors.add(keyLine, path, "duplicate key `" + show(key) + "` (first given on line " + first
                        + "); give each key once");
                continue;
            }
            seen.put(key, keyLine);
            if (!allowed.contains(key)) {
                errors.add(keyLine, path, KeyHints.unknownKey(key, place));
                continue;
            }
            int valueLine = YamlValue.isEmptyScalar(valueNode) ? keyLine : YamlValue.lineOf(valueNode);
            result.put(key, new YamlValue(path, valueNode, valueLine));
        }
        return result;
    }

    /** The items of a list of {@code what}. */
    List<YamlValue> list(YamlValue value, String what) {
        if (absentOrRefused(value)) {
            return null;
        }
        if (value.kind() != YamlKind.LIST) {
            typeError(value, "a list of " + what);
            return null;
        }
        List<YamlValue> items = new ArrayList<YamlValue>();
        List<Node> nodes = ((SequenceNode) value.node).getValue();
        for (int i = 0; i < nodes.size(); i++) {
            Node node = nodes.get(i);
            items.add(new YamlValue(value.path + "[" + i + "]", node,
                    YamlValue.isEmptyScalar(node) ? value.line : YamlValue.lineOf(node)));
        }
        return items;
    }

    /** Reads one item of a list. */
    interface ItemReader<T> {
        /** The item's value, or null when it is not valid (and was reported). */
        T read(YamlValue item);
    }

    /**
     * Every item of a list of {@code what}, each read by {@code reader}; null when the value is no list or any
     * item is not valid (every invalid item is reported).
     */
    <T> List<T> listOf(YamlValue value, String what, ItemReader<T> reader) {
        List<YamlValue> items = list(value, what);
        if (items == null) {
            return null;
        }
        List<T> values = new ArrayList<T>();
        boolean ok = true;
        for (YamlValue item : items) {
            if (errors.overflowed()) {
                return null;
            }
            T read = reader.read(item);
            ok &= read != null;
            values.add(read);
        }
        return ok ? values : null;
    }

    /** An integer from {@code min} to {@code max}; {@code range} says which, in messages. */
    Integer integer(YamlValue value, int min, int max, String range) {
        if (absentOrRefused(value)) {
            return null;
        }
        if (value.kind() != YamlKind.INT) {
            typeError(value, min == max ? "the integer " + min : "an integer " + range);
            return null;
        }
        BigInteger n = YamlNumbers.parseInteger(value.scalar());
        if (n == null || n.compareTo(BigInteger.valueOf(min)) < 0 || n.compareTo(BigInteger.valueOf(max)) > 0) {
            errors.add(value, "must be " + range + "; found " + show(value.scalar()));
            return null;
        }
        return n.intValue();
    }

    /** A finite number, integer or float, from {@code min} to {@code max}. */
    Double number(YamlValue value, double min, double max, String range) {
        if (absentOrRefused(value)) {
            return null;
        }
        YamlKind kind = value.kind();
        if (kind != YamlKind.INT && kind != YamlKind.FLOAT) {
            typeError(value, "a number " + range);
            return null;
        }
        String text = value.scalar();
        double d;
        if (kind == YamlKind.INT) {
            BigInteger n = YamlNumbers.parseInteger(text);
            d = n == null ? Double.NaN : n.doubleValue();
        } else {
            d = YamlNumbers.parseFloat(text);
        }
        if (Double.isNaN(d) || Double.isInfinite(d) || d < min || d > max) {
            errors.add(value, "must be " + range + "; found " + show(text));
            return null;
        }
        return d;
    }

    Boolean bool(YamlValue value) {
        if (absentOrRefused(value)) {
            return null;
        }
        if (value.kind() != YamlKind.BOOL) {
            typeError(value, "true or false");
            return null;
        }
        return Boolean.valueOf(value.scalar().toLowerCase(Locale.ROOT));
    }

    /** A non-empty string. */
    String text(YamlValue value, String what) {
        if (absentOrRefused(value)) {
            return null;
        }
        if (value.kind() != YamlKind.STR) {
            typeError(value, what);
            return null;
        }
        String text = value.scalar();
        if (Tag.ENV_TAG.equals(value.node.getTag())) {
            errors.add(value, "environment variables are not expanded in policy files: found " + quote(text)
                    + "; write the value itself");
            return null;
        }
        if (text.trim().isEmpty()) {
            errors.add(value, "must not be empty; expected " + what);
            return null;
        }
        return text;
    }

    /** A duration with its unit ({@link Durations}), in milliseconds. */
    Long duration(YamlValue value) {
        if (absentOrRefused(value)) {
            return null;
        }
        YamlKind kind = value.kind();
        String text = value.node instanceof ScalarNode ? value.scalar() : null;
        if (kind == YamlKind.INT || kind == YamlKind.FLOAT) {
            if (text.trim().startsWith("-")) {
                errors.add(value, "found " + show(text) + ", a negative bare number: a duration must not be negative"
                        + " and needs a unit (ms, s, m, h); write 250ms or 2s");
            } else {
                errors.add(value, "found the bare number " + show(text) + ": a duration needs a unit (ms, s, m, h);"
                        + " write 250ms or 2s");
            }
            return null;
        }
        if (kind != YamlKind.STR) {
            typeError(value, "a duration such as 250ms, 2s, 1m or 1h");
            return null;
        }
        long ms = Durations.parseMillis(text);
        if (ms == -2) {
            errors.add(value, "the duration " + quote(text) + " is too large");
            return null;
        }
        if (ms < 0) {
            if (text.trim().startsWith("-")) {
                errors.add(value, "a duration must not be negative; found " + quote(text));
            } else {
                errors.add(value, "expected a duration: a whole number with a unit ms, s, m or h, such as 250ms, 2s,"
                        + " 1m; found " + quote(text));
            }
            return null;
        }
        return ms;
    }

    /** The value of one of {@code words}, matched case-insensitively. */
    <E> E choice(YamlValue value, ConfigWords<E> words, String what) {
        List<String> allowed = words.names();
        String text = text(value, "one of " + join(allowed));
        if (text == null) {
            return null;
        }
        for (String name : allowed) {
            if (name.equalsIgnoreCase(text.trim())) {
                return words.valueOf(name);
            }
        }
        String suggestion = closest(text.trim(), allowed);
        errors.add(value, "unknown " + what + " " + quote(text) + "; allowed: " + join(allowed)
                + (suggestion == null ? "" : " (did you mean `" + suggestion + "`?)"));
        return null;
    }

    /** The value of one of {@code words}, or {@code otherwise} when {@code value} is absent or invalid. */
    <E> E choice(YamlValue value, ConfigWords<E> words, String what, E otherwise) {
        E chosen = choice(value, words, what);
        return chosen == null ? otherwise : chosen;
    }

    /** One of {@link PolicySchema#METHODS}, in any case; returns it upper-case. */
    String method(YamlValue value) {
        String text = text(value, "an HTTP method such as GET");
        if (text == null) {
            return null;
        }
        String method = text.trim().toUpperCase(Locale.ROOT);
        if (!PolicySchema.METHODS.contains(method)) {
            String suggestion = closest(method, PolicySchema.METHODS);
            errors.add(value, "unknown HTTP method " + quote(text) + "; allowed: " + join(PolicySchema.METHODS)
                    + (suggestion == null ? "" : " (did you mean `" + suggestion + "`?)"));
            return null;
        }
        return method;
    }

    /**
     * The longest header name accepted. Servers refuse a request whose header lines pass a few KiB (often with 431),
     * so a marker name of that size would fail every call it is sent on.
     */
    static final int MAX_HEADER_NAME = 128;

    /** An HTTP header name: a token of RFC 9110 (letters, digits and !#$%&'*+-.^_`|~). */
    String token(YamlValue value, String what) {
        String text = text(value, "a " + what);
        if (text == null) {
            return null;
        }
        if (text.length() > MAX_HEADER_NAME) {
            errors.add(value, "a " + what + " of " + text.length() + " characters is too long; the limit is "
                    + MAX_HEADER_NAME);
            return null;
        }
        for (int i = 0; i < text.length(); i++) {
            if (!isTokenChar(text.charAt(i))) {
                errors.add(value, quote(text) + " is not a valid " + what + ": it may contain only letters, digits"
                        + " and !#$%&'*+-.^_`|~ (no spaces, colons or quotes)");
                return null;
            }
        }
        return text;
    }

    static boolean isTokenChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }

    /** A host name or host glob, without scheme, port or path. */
    String hostPattern(YamlValue value) {
        String text = text(value, "a host name or glob, such as api.internal or \"*.partner.example\"");
        if (text == null) {
            return null;
        }
        if (text.contains("/")) {
            errors.add(value, quote(text) + " is not a host pattern: write only the host, such as api.internal or"
                    + " \"*.partner.example\" (no scheme or path; use `path:` for paths)");
            return null;
        }
        int colon = text.indexOf(':');
        if (colon >= 0 && colon == text.lastIndexOf(':') && !text.startsWith("[")) {
            errors.add(value, quote(text) + " is not a host pattern: write the port under `port:`, not in the host");
            return null;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '.' || c == '_' || c == '*' || c == ':' || c == '[' || c == ']';
            if (!ok) {
                errors.add(value, quote(text) + " is not a host pattern: a host may contain letters, digits, `-`,"
                        + " `.` and `*` (one label), such as \"*.partner.example\"");
                return null;
            }
        }
        return text;
    }

    /** A path glob: begins with {@code /}, no query, fragment, spaces or control characters. */
    String pathPattern(YamlValue value) {
        String text = text(value, "a path glob beginning with `/`, such as \"/v1/sync/**\"");
        if (text == null) {
            return null;
        }
        if (!text.startsWith("/")) {
            errors.add(value, "a path pattern must begin with `/`; found " + quote(text));
            return null;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '?' || c == '#') {
                errors.add(value, "a path pattern matches the path only, without a query (`?`) or fragment (`#`);"
                        + " found " + quote(text));
                return null;
            }
            if (Character.isWhitespace(c) || Character.isISOControl(c)) {
                errors.add(value, "a path pattern must not contain spaces or control characters; found "
                        + quote(text));
                return null;
            }
        }
        return text;
    }

    private static boolean absentOrRefused(YamlValue value) {
        return value == null || value.isRefusedAlias();
    }

    /** Reports that {@code value} is not {@code expected}, and says when quotes made a number or boolean text. */
    void typeError(YamlValue value, String expected) {
        String found = describe(value.node);
        Node node = value.node;
        if (node instanceof ScalarNode && ((ScalarNode) node).getScalarStyle() != ScalarStyle.PLAIN
                && YamlKind.of(node) == YamlKind.STR) {
            String text = ((ScalarNode) node).getValue();
            if (YamlNumbers.parseInteger(text) != null || !Double.isNaN(YamlNumbers.parseFloat(text))
                    || text.equals("true") || text.equals("false")) {
                found += " (quoted, so it is text; remove the quotes)";
            }
        }
        errors.add(value, "expected " + expected + "; found " + found);
    }
}
