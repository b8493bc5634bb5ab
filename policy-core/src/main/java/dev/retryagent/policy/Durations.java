package dev.retryagent.policy;

/** Durations as written in policy files: {@code 250ms}, {@code 2s}, {@code 1m}, {@code 1h}. */
public final class Durations {
    private Durations() {
    }

    /**
     * Milliseconds for {@code text}, or -1 when it is not a duration: a non-negative whole number followed
     * by one of {@code ms}, {@code s}, {@code m}, {@code h}, or -2 when it is one but does not fit in a long.
     */
    public static long parseMillis(String text) {
        if (text == null) {
            return -1;
        }
        String s = text.trim();
        int digits = 0;
        while (digits < s.length() && s.charAt(digits) >= '0' && s.charAt(digits) <= '9') {
            digits++;
        }
        if (digits == 0) {
            return -1;
        }
        long unit;
        String suffix = s.substring(digits);
        if (suffix.equals("ms")) {
            unit = 1L;
        } else if (suffix.equals("s")) {
            unit = 1000L;
        } else if (suffix.equals("m")) {
            unit = 60_000L;
        } else if (suffix.equals("h")) {
            unit = 3_600_000L;
        } else {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < digits; i++) {
            int digit = s.charAt(i) - '0';
            if (value > (Long.MAX_VALUE - digit) / 10) {
                return -2;
            }
            value = value * 10 + digit;
        }
        if (value > Long.MAX_VALUE / unit) {
            return -2;
        }
        return value * unit;
    }

    /** The shortest exact spelling of {@code millis}: 1m, 2s, 250ms. */
    public static String format(long millis) {
        if (millis != 0 && millis % 3_600_000L == 0) {
            return millis / 3_600_000L + "h";
        }
        if (millis != 0 && millis % 60_000L == 0) {
            return millis / 60_000L + "m";
        }
        if (millis != 0 && millis % 1000L == 0) {
            return millis / 1000L + "s";
        }
        return millis + "ms";
    }
}
