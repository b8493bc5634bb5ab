package dev.retryagent.policy;

import java.util.Locale;

/**
 * A host or path pattern from a rule's {@code match}. Host globs: {@code *} matches within one label,
 * case-insensitive. Path globs: {@code *} matches within one segment, {@code **} across segments.
 * Matching walks the pattern directly: no regex, no allocation per call.
 */
public final class Glob {
    private final String pattern;
    private final char separator;
    private final boolean ignoreCase;
    private final boolean literal;

    private Glob(String pattern, char separator, boolean ignoreCase) {
        this.pattern = ignoreCase ? pattern.toLowerCase(Locale.ROOT) : pattern;
        this.separator = separator;
        this.ignoreCase = ignoreCase;
        this.literal = pattern.indexOf('*') < 0;
    }

    public static Glob host(String pattern) {
        return new Glob(pattern, '.', true);
    }

    public static Glob path(String pattern) {
        return new Glob(pattern, '/', false);
    }

    public String pattern() {
        return pattern;
    }

    public boolean matches(String text) {
        if (text == null) {
            return false;
        }
        if (literal) {
            return ignoreCase ? pattern.equalsIgnoreCase(text) : pattern.equals(text);
        }
        return matchFrom(0, text, 0);
    }

    private boolean matchFrom(int p, String text, int t) {
        while (p < pattern.length()) {
            char pc = pattern.charAt(p);
            if (pc == '*') {
                boolean crossesSeparators = separator == '/' && p + 1 < pattern.length() && pattern.charAt(p + 1) == '*';
                int next = crossesSeparators ? p + 2 : p + 1;
                // Try every split: the star takes text[t, end) for end from t upwards.
                for (int end = t; ; end++) {
                    if (matchFrom(next, text, end)) {
                        return true;
                    }
                    if (end >= text.length() || (!crossesSeparators && text.charAt(end) == separator)) {
                        return false;
                    }
                }
            }
            if (t >= text.length() || !same(pc, text.charAt(t))) {
                return false;
            }
            p++;
            t++;
        }
        return t == text.length();
    }

    private boolean same(char patternChar, char textChar) {
        if (patternChar == textChar) {
            return true;
        }
        return ignoreCase && patternChar == Character.toLowerCase(textChar);
    }

    @Override
    public String toString() {
        return pattern;
    }
}
