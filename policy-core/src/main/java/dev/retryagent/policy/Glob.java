package dev.retryagent.policy;

import java.util.Locale;

/**
 * A host or path pattern from a rule's {@code match}. Host globs: {@code *} matches within one label,
 * case-insensitive. Path globs: {@code *} matches within one segment, a {@code **} segment matches any
 * number of segments (none included, so {@code /v1/sync/**} also matches {@code /v1/sync}).
 *
 * <p>Matching runs on every request, so it walks the text in place: no regex, no allocation, and
 * no exponential backtracking (the classic two-pointer wildcard walk, once over segments and once
 * over the characters of a segment, is at worst proportional to pattern length times text length).
 */
public final class Glob {
    private static final int END = -1;

    private final String pattern;
    private final char separator;
    private final boolean ignoreCase;
    private final boolean literal;
    private final String[] segments;
    private final boolean[] anySegments;

    private Glob(String pattern, char separator, boolean ignoreCase) {
        this.pattern = ignoreCase ? pattern.toLowerCase(Locale.ROOT) : pattern;
        this.separator = separator;
        this.ignoreCase = ignoreCase;
        this.literal = pattern.indexOf('*') < 0;
        this.segments = split(this.pattern, separator);
        this.anySegments = new boolean[segments.length];
        for (int i = 0; i < segments.length; i++) {
            anySegments[i] = separator == '/' && segments[i].equals("**");
        }
    }

    private static String[] split(String s, char separator) {
        int count = 1;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == separator) {
                count++;
            }
        }
        String[] parts = new String[count];
        int start = 0;
        for (int i = 0; i < count; i++) {
            int end = s.indexOf(separator, start);
            if (end < 0) {
                end = s.length();
            }
            parts[i] = s.substring(start, end);
            start = end + 1;
        }
        return parts;
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
        int p = 0;
        int t = 0;
        int anyP = -1;
        int anyT = END;
        while (t != END) {
            if (p < segments.length && anySegments[p]) {
                anyP = p++;
                anyT = t;
            } else if (p < segments.length && segmentMatches(segments[p], text, t, segmentEnd(text, t))) {
                p++;
                t = nextSegment(text, t);
            } else if (anyP >= 0) {
                // Let the last ** take one more segment and try again from there.
                p = anyP + 1;
                anyT = nextSegment(text, anyT);
                t = anyT;
            } else {
                return false;
            }
        }
        while (p < segments.length && anySegments[p]) {
            p++;
        }
        return p == segments.length;
    }

    private int segmentEnd(String text, int start) {
        int end = text.indexOf(separator, start);
        return end < 0 ? text.length() : end;
    }

    private int nextSegment(String text, int start) {
        int end = text.indexOf(separator, start);
        return end < 0 ? END : end + 1;
    }

    /** Whether {@code text[from, to)}, which holds no separator, matches one pattern segment. */
    private boolean segmentMatches(String segment, String text, int from, int to) {
        int p = 0;
        int t = from;
        int starP = -1;
        int starT = 0;
        while (t < to) {
            if (p < segment.length() && segment.charAt(p) == '*') {
                starP = p++;
                starT = t;
            } else if (p < segment.length() && same(segment.charAt(p), text.charAt(t))) {
                p++;
                t++;
            } else if (starP >= 0) {
                p = starP + 1;
                t = ++starT;
            } else {
                return false;
            }
        }
        while (p < segment.length() && segment.charAt(p) == '*') {
            p++;
        }
        return p == segment.length();
    }

    private boolean same(char patternChar, char textChar) {
        return patternChar == textChar || ignoreCase && patternChar == Character.toLowerCase(textChar);
    }

    @Override
    public String toString() {
        return pattern;
    }
}
