package dev.retryagent.analysis;

/** Figures for people: durations (700ms, 3.3s, 2m, 2m30s), shares, lists. */
public final class Human {
    private Human() {
    }

    public static String duration(long millis) {
        if (millis < 1000) {
            return millis + "ms";
        }
        if (millis < 60_000) {
            return seconds(millis) + "s";
        }
        long minutes = millis / 60_000;
        long rest = millis % 60_000;
        if (minutes >= 60) {
            long hours = minutes / 60;
            minutes %= 60;
            return hours + "h" + (minutes > 0 ? minutes + "m" : "") + (rest > 0 ? seconds(rest) + "s" : "");
        }
        return minutes + "m" + (rest > 0 ? seconds(rest) + "s" : "");
    }

    /** A share as a whole percentage; {@code <1%} for a share above 0 that would round to 0. */
    public static String percent(double share) {
        double p = share * 100;
        if (p > 0 && p < 1) {
            return "<1%";
        }
        return Math.round(p) + "%";
    }

    /** The items, comma-separated. */
    public static String join(Iterable<?> items) {
        StringBuilder sb = new StringBuilder();
        for (Object item : items) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(item);
        }
        return sb.toString();
    }

    /** Seconds with up to two decimals, rounded, trailing zeros dropped: 3.3, 10.25, 7. */
    private static String seconds(long millis) {
        long hundredths = (millis + 5) / 10;
        long whole = hundredths / 100;
        long fraction = hundredths % 100;
        if (fraction == 0) {
            return Long.toString(whole);
        }
        return whole + "." + (fraction % 10 == 0 ? Long.toString(fraction / 10) : (fraction < 10 ? "0" : "") + fraction);
    }
}
