package dev.retryagent.agent.operations.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict JSON parser (RFC 8259) for tests: objects become {@link LinkedHashMap}, arrays {@link ArrayList},
 * numbers {@link Long} or {@link Double}. Anything that is not JSON (trailing commas, single quotes, raw control
 * characters in strings, bad escapes, NaN, text after the value) is an {@link IllegalArgumentException}, so a
 * writer that escapes badly fails the tests that parse its output.
 */
final class MiniJson {
    private final String text;
    private int pos;

    private MiniJson(String text) {
        this.text = text;
    }

    static Object parse(String text) {
        MiniJson p = new MiniJson(text);
        p.space();
        Object value = p.value();
        p.space();
        if (p.pos != text.length()) {
            throw p.fail("text after the value");
        }
        return value;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Object value) {
        if (!(value instanceof Map)) {
            throw new AssertionError("not an object: " + value);
        }
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    static List<Object> array(Object value) {
        if (!(value instanceof List)) {
            throw new AssertionError("not an array: " + value);
        }
        return (List<Object>) value;
    }

    private Object value() {
        if (pos >= text.length()) {
            throw fail("a value expected");
        }
        char c = text.charAt(pos);
        switch (c) {
            case '{':
                return parseObject();
            case '[':
                return parseArray();
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", null);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return number();
                }
                throw fail("unexpected '" + c + "'");
        }
    }

    private Map<String, Object> parseObject() {
        Map<String, Object> map = new LinkedHashMap<>();
        pos++;
        space();
        if (peek('}')) {
            pos++;
            return map;
        }
        while (true) {
            space();
            if (!peek('"')) {
                throw fail("a string key expected");
            }
            String key = string();
            if (map.containsKey(key)) {
                throw fail("duplicate key " + key);
            }
            space();
            expect(':');
            space();
            map.put(key, value());
            space();
            if (peek(',')) {
                pos++;
                continue;
            }
            expect('}');
            return map;
        }
    }

    private List<Object> parseArray() {
        List<Object> list = new ArrayList<>();
        pos++;
        space();
        if (peek(']')) {
            pos++;
            return list;
        }
        while (true) {
            space();
            list.add(value());
            space();
            if (peek(',')) {
                pos++;
                continue;
            }
            expect(']');
            return list;
        }
    }

    private String string() {
        expect('"');
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw fail("unterminated string");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return sb.toString();
            }
            if (c < 0x20) {
                throw fail("raw control character in a string");
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (pos >= text.length()) {
                throw fail("unterminated escape");
            }
            char e = text.charAt(pos++);
            switch (e) {
                case '"' -> sb.append('"');
                case '\\' -> sb.append('\\');
                case '/' -> sb.append('/');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' -> {
                    if (pos + 4 > text.length()) {
                        throw fail("short \\u escape");
                    }
                    String hex = text.substring(pos, pos + 4);
                    if (!hex.matches("[0-9a-fA-F]{4}")) {
                        throw fail("bad \\u escape " + hex);
                    }
                    sb.append((char) Integer.parseInt(hex, 16));
                    pos += 4;
                }
                default -> throw fail("bad escape \\" + e);
            }
        }
    }

    private Object number() {
        int start = pos;
        if (peek('-')) {
            pos++;
        }
        if (peek('0')) {
            pos++;
        } else if (digit()) {
            while (digit()) {
                pos++;
            }
        } else {
            throw fail("a digit expected");
        }
        boolean fraction = false;
        if (peek('.')) {
            fraction = true;
            pos++;
            if (!digit()) {
                throw fail("a digit expected after '.'");
            }
            while (digit()) {
                pos++;
            }
        }
        if (peek('e') || peek('E')) {
            fraction = true;
            pos++;
            if (peek('+') || peek('-')) {
                pos++;
            }
            if (!digit()) {
                throw fail("a digit expected in the exponent");
            }
            while (digit()) {
                pos++;
            }
        }
        String n = text.substring(start, pos);
        return fraction ? (Object) Double.parseDouble(n) : (Object) Long.parseLong(n);
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, pos)) {
            throw fail(word + " expected");
        }
        pos += word.length();
        return value;
    }

    private boolean digit() {
        return pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9';
    }

    private boolean peek(char c) {
        return pos < text.length() && text.charAt(pos) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw fail("'" + c + "' expected");
        }
        pos++;
    }

    private void space() {
        while (pos < text.length() && " \t\r\n".indexOf(text.charAt(pos)) >= 0) {
            pos++;
        }
    }

    private IllegalArgumentException fail(String why) {
        return new IllegalArgumentException(why + " at " + pos + ": "
                + text.substring(Math.max(0, pos - 20), Math.min(text.length(), pos + 20)));
    }
}
