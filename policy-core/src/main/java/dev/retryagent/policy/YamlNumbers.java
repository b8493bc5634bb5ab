package dev.retryagent.policy;

import java.math.BigInteger;
import java.util.Locale;

/** The integer and float syntax of the YAML 1.2 core schema, read without loss or overflow. */
final class YamlNumbers {
    private YamlNumbers() {
    }

    /** A YAML 1.2 core-schema integer ({@code 12}, {@code -3}, {@code +4}, {@code 0x1f}, {@code 0o17}), or null. */
    static BigInteger parseInteger(String text) {
        String s = text.trim();
        try {
            if (s.startsWith("0x")) {
                return new BigInteger(s.substring(2), 16);
            }
            if (s.startsWith("0o")) {
                return new BigInteger(s.substring(2), 8);
            }
            if (s.startsWith("+")) {
                s = s.substring(1);
            }
            if (s.isEmpty() || s.startsWith("+") || s.startsWith("-") && s.length() == 1) {
                return null;
            }
            for (int i = s.startsWith("-") ? 1 : 0; i < s.length(); i++) {
                if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                    return null;
                }
            }
            return new BigInteger(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** A YAML 1.2 core-schema float, or NaN when it is none (or is {@code .nan}). */
    static double parseFloat(String text) {
        String s = text.trim();
        String lower = s.toLowerCase(Locale.ROOT);
        if (lower.equals(".inf") || lower.equals("+.inf")) {
            return Double.POSITIVE_INFINITY;
        }
        if (lower.equals("-.inf")) {
            return Double.NEGATIVE_INFINITY;
        }
        if (s.isEmpty()) {
            return Double.NaN;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) {
                return Double.NaN;
            }
        }
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }
}
