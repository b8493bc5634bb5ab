package dev.retryagent.policy;

import java.util.List;
import java.util.Locale;

import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

/** How values, nodes, lists of words, suggestions and exceptions are written in policy error messages. */
final class PolicyMessages {
    private PolicyMessages() {
    }

    /**
     * A value as it may appear in a message: at most 60 characters, with every character escaped that could end, forge
     * or hide part of a log line (controls, line separators, bidi overrides and other invisible format characters, a
     * lone surrogate).
     */
    static String show(String text) {
        StringBuilder sb = new StringBuilder();
        int limit = Math.min(text.length(), 60);
        for (int i = 0; i < limit; i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                sb.append(c).append(text.charAt(i + 1));
                i++;
            } else if (unsafe(c)) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        if (text.length() > limit) {
            sb.append("...");
        }
        return sb.toString();
    }

    /** A character (a lone surrogate included) that is unsafe in a log line as it is. */
    static boolean unsafe(char c) {
        int type = Character.getType(c);
        return Character.isISOControl(c) || type == Character.FORMAT || type == Character.LINE_SEPARATOR
                || type == Character.PARAGRAPH_SEPARATOR || type == Character.SURROGATE;
    }

    static String quote(String text) {
        return "`" + show(text) + "`";
    }

    static String join(List<String> names) {
        StringBuilder sb = new StringBuilder();
        for (String name : names) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(name);
        }
        return sb.toString();
    }

    /** What a node is, as an error message says what was found: "a list", "the integer 3", ... */
    static String describe(Node node) {
        switch (YamlKind.of(node)) {
            case MAP:
                return "a mapping";
            case LIST:
                return "a list";
            case NULL:
                return ((ScalarNode) node).getValue().isEmpty() ? "no value" : "null";
            case BOOL:
                return "the boolean " + ((ScalarNode) node).getValue();
            case INT:
                return "the integer " + show(((ScalarNode) node).getValue());
            case FLOAT:
                return "the number " + show(((ScalarNode) node).getValue());
            default:
                return "the text \"" + show(((ScalarNode) node).getValue()) + "\"";
        }
    }

    /** The first line of an exception's message, or its class's name when it has none. */
    static String describe(Throwable e) {
        String message = e.getMessage();
        if (message == null || message.trim().isEmpty()) {
            return e.getClass().getSimpleName();
        }
        message = message.trim();
        int newline = message.indexOf('\n');
        if (newline >= 0) {
            message = message.substring(0, newline).trim();
        }
        return message;
    }

    /** The allowed name within edit distance 2 of {@code text} (ignoring case), or null. */
    static String closest(String text, List<String> allowed) {
        if (text.length() > 64) {
            return null;
        }
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        String lower = text.toLowerCase(Locale.ROOT);
        for (String name : allowed) {
            int d = distance(lower, name.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                bestDistance = d;
                best = name;
            }
        }
        return bestDistance <= 2 && bestDistance < text.length() ? best : null;
    }

    /** The Levenshtein distance between {@code a} and {@code b}. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
