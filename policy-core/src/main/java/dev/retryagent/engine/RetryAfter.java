package dev.retryagent.engine;

/**
 * Parses a Retry-After header value (RFC 9110 section 10.2.3).
 *
 * <p>Parsed by hand, without allocation or exceptions, because it runs on every retryable response and
 * must never throw on whatever a server sends; {@code SimpleDateFormat} is neither cheap nor thread-safe.
 *
 * <p>The grammar is applied strictly, as RFC 9110 section 5.6.7 writes it: HTTP-date is case-sensitive
 * (so {@code gmt} or {@code sun} is malformed), separators are exactly one space except the asctime
 * day's padding, and the day-name must be the day that the date falls on. A value that breaks the
 * grammar is ignored rather than guessed at: plain backoff applies (docs/reference.md#retry-after). Only optional
 * whitespace (spaces and tabs) around the whole value is tolerated, and one form outside the grammar is accepted:
 * the RFC 1123 date with a one-digit day ({@code Sun, 6 Nov 1994 08:49:37 GMT}), which Java's own
 * {@code DateTimeFormatter.RFC_1123_DATE_TIME} writes on the first nine days of every month. Ignoring it
 * would bring the client back before the time the server named.
 */
public final class RetryAfter {
    /** The value to ignore: malformed, negative or out of range. */
    public static final long IGNORE = -1;

    private static final long MILLIS_PER_SECOND = 1000;
    private static final long SECONDS_PER_DAY = 86400;
    private static final long MILLIS_PER_DAY = SECONDS_PER_DAY * MILLIS_PER_SECOND;
    /** The largest delay-seconds whose milliseconds still fit in a long. */
    private static final long MAX_DELAY_SECONDS = Long.MAX_VALUE / MILLIS_PER_SECOND;

    /** Indexed by ISO day of week - 1, Monday first. */
    private static final String[] SHORT_DAY_NAMES = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
    private static final String[] LONG_DAY_NAMES =
            {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};
    private static final String[] MONTH_NAMES =
            {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

    /** {@code Sun, 06 Nov 1994 08:49:37 GMT} */
    private static final int IMF_FIXDATE_LENGTH = 29;
    /** {@code Sun, 6 Nov 1994 08:49:37 GMT} */
    private static final int RFC1123_ONE_DIGIT_DAY_LENGTH = 28;
    /** {@code Sun Nov  6 08:49:37 1994} */
    private static final int ASCTIME_LENGTH = 24;
    /** {@code , 06-Nov-94 08:49:37 GMT}: an RFC 850 date after its day-name. */
    private static final int RFC850_LENGTH_AFTER_DAY_NAME = 24;

    private RetryAfter() {
    }

    /**
     * The delay the server asked for, in milliseconds, or -1 when the value must be ignored.
     * Accepts delay-seconds and the three HTTP-date forms (IMF-fixdate, RFC 850, asctime); a date in the
     * past means 0. Negative, malformed or overflowing values give -1.
     */
    public static long delayMillis(String headerValue, long nowEpochMillis) {
        if (headerValue == null) {
            return IGNORE;
        }
        int start = 0;
        int end = headerValue.length();
        while (start < end && isOptionalWhitespace(headerValue.charAt(start))) {
            start++;
        }
        while (end > start && isOptionalWhitespace(headerValue.charAt(end - 1))) {
            end--;
        }
        if (start == end) {
            return IGNORE;
        }
        if (isDigit(headerValue.charAt(start))) {
            return delaySecondsMillis(headerValue, start, end);
        }
        return httpDateDelayMillis(headerValue, start, end, nowEpochMillis);
    }

    /** delay-seconds = 1*DIGIT; a sign, a fraction or an exponent makes it malformed. */
    private static long delaySecondsMillis(String value, int start, int end) {
        long seconds = 0;
        for (int i = start; i < end; i++) {
            char c = value.charAt(i);
            if (!isDigit(c)) {
                return IGNORE;
            }
            seconds = seconds * 10 + (c - '0');
            if (seconds > MAX_DELAY_SECONDS) {
                return IGNORE;
            }
        }
        return seconds * MILLIS_PER_SECOND;
    }

    private static long httpDateDelayMillis(String value, int start, int end, long nowEpochMillis) {
        int length = end - start;
        if (length == IMF_FIXDATE_LENGTH && value.charAt(start + 3) == ',') {
            return imfFixdateDelayMillis(value, start, 2, nowEpochMillis);
        }
        if (length == RFC1123_ONE_DIGIT_DAY_LENGTH && value.charAt(start + 3) == ',') {
            return imfFixdateDelayMillis(value, start, 1, nowEpochMillis);
        }
        if (length == ASCTIME_LENGTH && value.charAt(start + 3) == ' ') {
            return asctimeDelayMillis(value, start, nowEpochMillis);
        }
        int comma = value.indexOf(',', start);
        if (comma > start && comma < end && end - comma == RFC850_LENGTH_AFTER_DAY_NAME) {
            return rfc850DelayMillis(value, start, comma, nowEpochMillis);
        }
        return IGNORE;
    }

    /** {@code Sun, 06 Nov 1994 08:49:37 GMT}, or with {@code dayDigits} 1, {@code Sun, 6 Nov 1994 08:49:37 GMT}. */
    private static long imfFixdateDelayMillis(String s, int at, int dayDigits, long nowEpochMillis) {
        int dayOfWeek = nameIndex(SHORT_DAY_NAMES, s, at, 3);
        int month = at + 6 + dayDigits;
        if (!matches(s, at + 3, ", ")
                || !matches(s, month - 1, " ")
                || !matches(s, month + 3, " ")
                || !matches(s, month + 8, " ")
                || !matches(s, month + 17, " GMT")) {
            return IGNORE;
        }
        int dayOfMonth = dayDigits == 2 ? twoDigits(s, at + 5) : digit(s, at + 5);
        return delayUntil(fourDigits(s, month + 4), nameIndex(MONTH_NAMES, s, month, 3), dayOfMonth,
                timeOfDaySeconds(s, month + 9), dayOfWeek, nowEpochMillis);
    }

    /** {@code Sunday, 06-Nov-94 08:49:37 GMT}, where {@code comma} is the index of the comma. */
    private static long rfc850DelayMillis(String s, int at, int comma, long nowEpochMillis) {
        int dayOfWeek = nameIndex(LONG_DAY_NAMES, s, at, comma - at);
        if (!matches(s, comma, ", ")
                || !matches(s, comma + 4, "-")
                || !matches(s, comma + 8, "-")
                || !matches(s, comma + 11, " ")
                || !matches(s, comma + 20, " GMT")) {
            return IGNORE;
        }
        int twoDigitYear = twoDigits(s, comma + 9);
        int year = twoDigitYear < 0 ? -1 : rfc850Year(twoDigitYear, nowEpochMillis);
        return delayUntil(year, nameIndex(MONTH_NAMES, s, comma + 5, 3), twoDigits(s, comma + 2),
                timeOfDaySeconds(s, comma + 12), dayOfWeek, nowEpochMillis);
    }

    /** {@code Sun Nov  6 08:49:37 1994}: the day is two digits or a space and one digit; no zone. */
    private static long asctimeDelayMillis(String s, int at, long nowEpochMillis) {
        int dayOfWeek = nameIndex(SHORT_DAY_NAMES, s, at, 3);
        if (!matches(s, at + 3, " ")
                || !matches(s, at + 7, " ")
                || !matches(s, at + 10, " ")
                || !matches(s, at + 19, " ")) {
            return IGNORE;
        }
        int dayOfMonth = s.charAt(at + 8) == ' ' ? digit(s, at + 9) : twoDigits(s, at + 8);
        return delayUntil(fourDigits(s, at + 20), nameIndex(MONTH_NAMES, s, at + 4, 3), dayOfMonth,
                timeOfDaySeconds(s, at + 11), dayOfWeek, nowEpochMillis);
    }

    /**
     * RFC 9110 section 5.6.7: a two-digit year that appears more than 50 years in the future is the most
     * recent past year with the same last two digits. Judged by calendar year in UTC, that puts the year
     * in {@code [now - 49, now + 50]}.
     */
    private static int rfc850Year(int twoDigitYear, long nowEpochMillis) {
        int currentYear = yearOfEpochDay(Math.floorDiv(nowEpochMillis, MILLIS_PER_DAY));
        int year = currentYear - Math.floorMod(currentYear, 100) + twoDigitYear;
        if (year > currentYear + 50) {
            year -= 100;
        } else if (year < currentYear - 49) {
            year += 100;
        }
        return year;
    }

    /**
     * max(0, date - now) for a date given by its fields, or -1 when a field is missing (negative) or the
     * fields do not make a real date: day 30 of February, hour 24, or a day-name the date does not fall on.
     */
    private static long delayUntil(int year, int month, int dayOfMonth, int secondOfDay, int dayOfWeek,
                                   long nowEpochMillis) {
        // HTTP-date years have four digits; the bound also keeps the arithmetic below from overflowing.
        if (year < 0 || year > 9999 || month < 1 || dayOfMonth < 1 || secondOfDay < 0 || dayOfWeek < 1
                || dayOfMonth > daysInMonth(year, month)) {
            return IGNORE;
        }
        long epochDay = epochDay(year, month, dayOfMonth);
        if (Math.floorMod(epochDay + 3, 7) + 1 != dayOfWeek) {
            return IGNORE;
        }
        long dateMillis = (epochDay * SECONDS_PER_DAY + secondOfDay) * MILLIS_PER_SECOND;
        if (dateMillis <= nowEpochMillis) {
            return 0;
        }
        long delay = dateMillis - nowEpochMillis;
        // Only a clock near Long.MIN_VALUE makes the difference overflow; no real delay is that long.
        return delay > 0 ? delay : IGNORE;
    }

    /**
     * {@code hh:mm:ss} as seconds since midnight, or -1. Second 60 is RFC 9110's leap second; it counts
     * as the first second of the next minute, since epoch time has no leap seconds.
     */
    private static int timeOfDaySeconds(String s, int at) {
        int hour = twoDigits(s, at);
        int minute = twoDigits(s, at + 3);
        int second = twoDigits(s, at + 6);
        if (s.charAt(at + 2) != ':' || s.charAt(at + 5) != ':'
                || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) {
            return -1;
        }
        return (hour * 60 + minute) * 60 + second;
    }

    /** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
    private static long epochDay(int year, int month, int dayOfMonth) {
        long y = month <= 2 ? year - 1 : year;
        long era = Math.floorDiv(y, 400);
        long yearOfEra = y - era * 400;
        long dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + dayOfMonth - 1;
        long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
        return era * 146097 + dayOfEra - 719468;
    }

    /** The proleptic Gregorian year of a day counted from 1970-01-01 (H. Hinnant's civil_from_days). */
    private static int yearOfEpochDay(long epochDay) {
        long shifted = epochDay + 719468;
        long era = Math.floorDiv(shifted, 146097);
        long dayOfEra = shifted - era * 146097;
        long yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365;
        long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        long marchBasedMonth = (5 * dayOfYear + 2) / 153;
        long year = yearOfEra + era * 400 + (marchBasedMonth >= 10 ? 1 : 0);
        return (int) year;
    }

    private static int daysInMonth(int year, int month) {
        switch (month) {
            case 2:
                boolean leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
                return leap ? 29 : 28;
            case 4:
            case 6:
            case 9:
            case 11:
                return 30;
            default:
                return 31;
        }
    }

    /** 1 + the index of the name that {@code s} holds at {@code at} with exactly {@code length} chars, or -1. */
    private static int nameIndex(String[] names, String s, int at, int length) {
        for (int i = 0; i < names.length; i++) {
            String name = names[i];
            if (name.length() == length && s.regionMatches(at, name, 0, length)) {
                return i + 1;
            }
        }
        return -1;
    }

    private static boolean matches(String s, int at, String literal) {
        return s.regionMatches(at, literal, 0, literal.length());
    }

    private static int fourDigits(String s, int at) {
        int high = twoDigits(s, at);
        int low = twoDigits(s, at + 2);
        return high < 0 || low < 0 ? -1 : high * 100 + low;
    }

    private static int twoDigits(String s, int at) {
        int tens = digit(s, at);
        int ones = digit(s, at + 1);
        return tens < 0 || ones < 0 ? -1 : tens * 10 + ones;
    }

    private static int digit(String s, int at) {
        char c = s.charAt(at);
        return isDigit(c) ? c - '0' : -1;
    }

    /** ASCII only: {@link Character#isDigit} would also accept other scripts' digits. */
    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** OWS in RFC 9110 section 5.6.3: space and horizontal tab. */
    private static boolean isOptionalWhitespace(char c) {
        return c == ' ' || c == '\t';
    }
}
