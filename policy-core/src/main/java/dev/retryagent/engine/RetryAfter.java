package dev.retryagent.engine;

/** Parses a Retry-After header value (RFC 9110 section 10.2.3). */
public final class RetryAfter {
    private RetryAfter() {
    }

    /**
     * The delay the server asked for, in milliseconds, or -1 when the value must be ignored.
     * Accepts delay-seconds and the three HTTP-date forms (IMF-fixdate, RFC 850, asctime); a date in the
     * past means 0. Negative, malformed or overflowing values give -1.
     */
    public static long delayMillis(String headerValue, long nowEpochMillis) {
        throw new UnsupportedOperationException("TODO");
    }
}
