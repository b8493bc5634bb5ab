package dev.retryagent.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class RetryAfterTest {
    /** Sunday 1994-11-06 08:49:00 UTC: 37 seconds before RFC 9110's example date. */
    private static final long NOW = millis("1994-11-06T08:49:00");

    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM uuuu HH:mm:ss 'GMT'", Locale.US);
    private static final DateTimeFormatter RFC_850 =
            DateTimeFormatter.ofPattern("EEEE, dd-MMM-uu HH:mm:ss 'GMT'", Locale.US);
    private static final DateTimeFormatter ASCTIME =
            DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss uuuu", Locale.US);

    private static long millis(String utcDateTime) {
        return LocalDateTime.parse(utcDateTime).toInstant(ZoneOffset.UTC).toEpochMilli();
    }

    private static String format(DateTimeFormatter form, long epochMillis) {
        return form.format(Instant.ofEpochMilli(epochMillis).atOffset(ZoneOffset.UTC));
    }

    // --- delay-seconds ---

    @Test
    void delaySecondsAreMilliseconds() {
        assertEquals(0, RetryAfter.delayMillis("0", NOW));
        assertEquals(1_000, RetryAfter.delayMillis("1", NOW));
        assertEquals(120_000, RetryAfter.delayMillis("120", NOW));
        assertEquals(7_000, RetryAfter.delayMillis("007", NOW));
        assertEquals(86_400_000, RetryAfter.delayMillis("86400", NOW));
    }

    @Test
    void delaySecondsDoNotDependOnNow() {
        assertEquals(5_000, RetryAfter.delayMillis("5", 0));
        assertEquals(5_000, RetryAfter.delayMillis("5", Long.MIN_VALUE));
        assertEquals(5_000, RetryAfter.delayMillis("5", Long.MAX_VALUE));
    }

    @ParameterizedTest
    @ValueSource(strings = {" 120", "120 ", "  120  ", "\t120\t", " \t120 \t"})
    void whitespaceAroundDelaySecondsIsTolerated(String value) {
        assertEquals(120_000, RetryAfter.delayMillis(value, NOW));
    }

    @Test
    void theLargestDelaySecondsThatFitInMillisecondsIsAccepted() {
        long largest = Long.MAX_VALUE / 1000;
        assertEquals(largest * 1000, RetryAfter.delayMillis(Long.toString(largest), NOW));
        assertEquals(-1, RetryAfter.delayMillis(Long.toString(largest + 1), NOW));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "99999999999999999999",
            "9223372036854775807",
            "9223372036854775808",
            "000000000000000000000000000000009223372036854776",
            "123456789012345678901234567890",
    })
    void overflowingDelaySecondsAreIgnored(String value) {
        assertEquals(-1, RetryAfter.delayMillis(value, NOW));
    }

    @Test
    void leadingZerosDoNotOverflow() {
        assertEquals(9_000, RetryAfter.delayMillis("000000000000000000000000000000000000009", NOW));
    }

    @ParameterizedTest
    @ValueSource(strings = {"-5", "-0", "+5", "- 5"})
    void signedDelaySecondsAreIgnored(String value) {
        assertEquals(-1, RetryAfter.delayMillis(value, NOW));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "1.5", "1,5", "1e3", "0x10", "120s", "12 3", "1\u00a0", "\u0661\u0662", "\uff11\uff12",
            "abc", "", " ", "\t", "  \t  ", "now", "Infinity", "NaN", "\r\n120",
    })
    void malformedDelaySecondsAreIgnored(String value) {
        assertEquals(-1, RetryAfter.delayMillis(value, NOW));
    }

    @ParameterizedTest
    @NullSource
    void nullIsIgnored(String value) {
        assertEquals(-1, RetryAfter.delayMillis(value, NOW));
    }

    // --- HTTP-date: the three forms of RFC 9110 section 5.6.7 ---

    @ParameterizedTest
    @ValueSource(strings = {
            "Sun, 06 Nov 1994 08:49:37 GMT",   // IMF-fixdate
            "Sunday, 06-Nov-94 08:49:37 GMT",  // obsolete RFC 850
            "Sun Nov  6 08:49:37 1994",        // ANSI C asctime()
            "Sun Nov 06 08:49:37 1994",        // asctime's day as 2DIGIT is in the grammar too
            "Sun, 6 Nov 1994 08:49:37 GMT",    // RFC 1123's one-digit day, as DateTimeFormatter.RFC_1123_DATE_TIME writes it
    })
    void eachDateFormIsTheDelayUntilThatDate(String value) {
        assertEquals(37_000, RetryAfter.delayMillis(value, NOW));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "  Sun, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT\t",
            " \tSunday, 06-Nov-94 08:49:37 GMT ",
            " Sun Nov  6 08:49:37 1994 ",
    })
    void whitespaceAroundADateIsTolerated(String value) {
        assertEquals(37_000, RetryAfter.delayMillis(value, NOW));
    }

    @Test
    void aDateKeepsItsMilliseconds() {
        assertEquals(36_999, RetryAfter.delayMillis("Sun, 06 Nov 1994 08:49:37 GMT", NOW + 1));
        assertEquals(1, RetryAfter.delayMillis("Sun, 06 Nov 1994 08:49:37 GMT", NOW + 36_999));
    }

    @Test
    void aDateExactlyNowIsZero() {
        long now = millis("1994-11-06T08:49:37");
        assertEquals(0, RetryAfter.delayMillis("Sun, 06 Nov 1994 08:49:37 GMT", now));
        assertEquals(0, RetryAfter.delayMillis("Sunday, 06-Nov-94 08:49:37 GMT", now));
        assertEquals(0, RetryAfter.delayMillis("Sun Nov  6 08:49:37 1994", now));
    }

    @Test
    void aDateInThePastIsZero() {
        long now = millis("2026-03-01T12:00:00");
        assertEquals(0, RetryAfter.delayMillis("Sun, 06 Nov 1994 08:49:37 GMT", now));
        assertEquals(0, RetryAfter.delayMillis("Sun Nov  6 08:49:37 1994", now));
        assertEquals(0, RetryAfter.delayMillis("Sunday, 01-Mar-26 11:59:59 GMT", now));
        assertEquals(0, RetryAfter.delayMillis("Thu, 01 Jan 1970 00:00:00 GMT", now));
        assertEquals(0, RetryAfter.delayMillis("Mon, 01 Jan 0001 00:00:00 GMT", now));
    }

    @Test
    void javasOwnRfc1123FormatIsReadOnEveryDayOfTheMonth() {
        java.time.format.DateTimeFormatter rfc1123 = java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME
                .withZone(java.time.ZoneOffset.UTC);
        for (int day = 1; day <= 31; day++) {
            long until = millis(String.format("2026-12-%02dT02:27:39", day));
            String value = rfc1123.format(java.time.Instant.ofEpochMilli(until));
            assertEquals(3_000, RetryAfter.delayMillis(value, until - 3_000), value);
        }
    }

    @Test
    void aFarFutureDateIsAPositiveDelay() {
        long expected = millis("9999-12-31T23:59:59") - NOW;
        assertEquals(expected, RetryAfter.delayMillis("Fri, 31 Dec 9999 23:59:59 GMT", NOW));
    }

    @Test
    void leapDaysAreValidOnlyInLeapYears() {
        long now = millis("1890-01-01T00:00:00");
        assertEquals(millis("1996-02-29T00:00:00") - now, RetryAfter.delayMillis("Thu, 29 Feb 1996 00:00:00 GMT", now));
        assertEquals(millis("2000-02-29T00:00:00") - now, RetryAfter.delayMillis("Tue, 29 Feb 2000 00:00:00 GMT", now));
        assertEquals(-1, RetryAfter.delayMillis("Thu, 29 Feb 1900 00:00:00 GMT", now));
        assertEquals(-1, RetryAfter.delayMillis("Tue, 29 Feb 2022 00:00:00 GMT", now));
    }

    @Test
    void secondSixtyIsALeapSecondCountedAsTheNextMinute() {
        assertEquals(60_000, RetryAfter.delayMillis("Sun, 06 Nov 1994 08:49:60 GMT", NOW));
    }

    @Test
    void everyDateAgreesWithJavaTime() {
        // Before year 1, so that every date is in the future and the full arithmetic is checked.
        long now = millis("0000-01-01T00:00:00") - 1;
        long first = millis("0001-01-01T00:00:00");
        long last = millis("9999-12-31T23:59:59");
        SplittableRandom random = new SplittableRandom(2024);
        for (int i = 0; i < 20_000; i++) {
            long date = first + (long) (random.nextDouble() * (last - first)) / 1000 * 1000;
            String imf = format(IMF_FIXDATE, date);
            String asctime = format(ASCTIME, date);
            assertEquals(date - now, RetryAfter.delayMillis(imf, now), imf);
            assertEquals(date - now, RetryAfter.delayMillis(asctime, now), asctime);
        }
    }

    @Test
    void everyRfc850DateNearNowAgreesWithJavaTime() {
        long now = millis("2026-03-01T12:00:00");
        SplittableRandom random = new SplittableRandom(850);
        for (int i = 0; i < 20_000; i++) {
            // Within 40 years either side: the two-digit year is unambiguous.
            long date = now + (random.nextLong(80L * 365 * 86_400) - 40L * 365 * 86_400) * 1000;
            String rfc850 = format(RFC_850, date);
            assertEquals(Math.max(0, date - now), RetryAfter.delayMillis(rfc850, now), rfc850);
        }
    }

    // --- RFC 850's two-digit year (RFC 9110 section 5.6.7) ---

    @Test
    void aTwoDigitYearMoreThanFiftyYearsAheadIsTheMostRecentPastYear() {
        long now = millis("2026-06-15T00:00:00");
        // 30 -> 2030 and 76 -> 2076 (not more than 50 years ahead); 77 -> 1977, not 2077.
        assertEquals(millis("2030-01-01T00:00:00") - now, RetryAfter.delayMillis("Tuesday, 01-Jan-30 00:00:00 GMT", now));
        assertEquals(millis("2076-01-01T00:00:00") - now, RetryAfter.delayMillis("Wednesday, 01-Jan-76 00:00:00 GMT", now));
        assertEquals(0, RetryAfter.delayMillis("Saturday, 01-Jan-77 00:00:00 GMT", now));
        assertEquals(0, RetryAfter.delayMillis("Sunday, 06-Nov-94 08:49:37 GMT", now));
        assertEquals(0, RetryAfter.delayMillis("Saturday, 01-Jan-00 00:00:00 GMT", now));
        // The weekday proves the century: 01-Jan-77 was a Saturday in 1977 but a Friday in 2077.
        assertEquals(-1, RetryAfter.delayMillis("Friday, 01-Jan-77 00:00:00 GMT", now));
    }

    @Test
    void theTwoDigitYearWindowSlidesIntoTheNextCentury() {
        long now = millis("2090-06-15T00:00:00");
        // The window is 2041..2140: 10 is 2110, 40 is 2140, 41 is 2041.
        assertEquals(millis("2110-01-01T00:00:00") - now, RetryAfter.delayMillis("Wednesday, 01-Jan-10 00:00:00 GMT", now));
        assertEquals(millis("2140-01-01T00:00:00") - now, RetryAfter.delayMillis("Friday, 01-Jan-40 00:00:00 GMT", now));
        assertEquals(0, RetryAfter.delayMillis("Tuesday, 01-Jan-41 00:00:00 GMT", now));
    }

    @Test
    void theTwoDigitYearRuleUsesTheYearInUtc() {
        // 23:30 on 31 Dec 1999 UTC: the current year is 1999, so 49 is 2049 and 50 is 1950.
        long now = millis("1999-12-31T23:30:00");
        assertEquals(millis("2049-01-01T00:00:00") - now, RetryAfter.delayMillis("Friday, 01-Jan-49 00:00:00 GMT", now));
        assertEquals(0, RetryAfter.delayMillis("Sunday, 01-Jan-50 00:00:00 GMT", now));
    }

    // --- invalid dates ---

    @ParameterizedTest
    @ValueSource(strings = {
            "Wed, 30 Feb 1994 08:49:37 GMT",   // no such day
            "Thu, 31 Nov 1994 08:49:37 GMT",
            "Sun, 00 Nov 1994 08:49:37 GMT",
            "Sun, 32 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 25:49:37 GMT",   // hour 25
            "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1994 08:60:37 GMT",
            "Sun, 06 Nov 1994 08:49:61 GMT",
            "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 06 Nov 19x4 08:49:37 GMT",
            "Sun, 0 Nov 1994 08:49:37 GMT",    // the one-digit day is a day all the same
            "Sun, 6 Nov 1994 8:49:37 GMT",
            "Sun, 6 Nov 94 08:49:37 GMT",
            "Sun,  6 Nov 1994 08:49:37 GMT",   // not padded with a space, as asctime is
            "Sun, 06 Nov 94 08:49:37 GMT",
            "Sun, 06 Nov 1994 8:49:37 GMT",
            "Sun, 06 Nov 1994 08.49.37 GMT",
            "Mon, 06 Nov 1994 08:49:37 GMT",   // 6 Nov 1994 was a Sunday
            "Sunday, 06 Nov 1994 08:49:37 GMT", // the long day-name belongs to RFC 850
            "Sun, 06-Nov-94 08:49:37 GMT",     // the short day-name belongs to IMF-fixdate
            "Sundy, 06-Nov-94 08:49:37 GMT",
            "Foo, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37",       // GMT is required in the first two forms
            "Sunday, 06-Nov-94 08:49:37",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 06 Nov 1994 08:49:37 +0000",
            "Sun, 06 Nov 1994 08:49:37 GMT+1",
            "Sunday, 06-Nov-94 08:49:37 UTC",
            "Sunday, 06-Nov-1994 08:49:37 GMT",
            "Monday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994 GMT",    // asctime carries no zone
            "Sun Nov 6 08:49:37 1994",         // a one-digit asctime day is padded with a space
            "Sun Nov  6 8:49:37 1994",
            "Sun Nov  6 08:49:37 94",
            "Mon Nov  6 08:49:37 1994",
            "Sun, 06  Nov 1994 08:49:37 GMT",  // separators are single spaces
            "Sun,06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994T08:49:37 GMT",
            "1994-11-06T08:49:37Z",            // ISO 8601 is not an HTTP-date
            "Sun, 06 Nov 1994",
            "Sun,",
            ",",
            "Sun",
            "GMT",
    })
    void invalidDatesAreIgnored(String value) {
        assertEquals(-1, RetryAfter.delayMillis(value, NOW));
    }

    /** RFC 9110 section 5.6.7: "HTTP-date is case sensitive". A mis-cased date is ignored, not guessed at. */
    @ParameterizedTest
    @ValueSource(strings = {
            "Sun, 06 Nov 1994 08:49:37 gmt",
            "Sun, 06 Nov 1994 08:49:37 Gmt",
            "sun, 06 Nov 1994 08:49:37 GMT",
            "SUN, 06 NOV 1994 08:49:37 GMT",
            "Sun, 06 nov 1994 08:49:37 GMT",
            "sunday, 06-Nov-94 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 gmt",
            "sun nov  6 08:49:37 1994",
    })
    void httpDatesAreCaseSensitive(String value) {
        assertEquals(-1, RetryAfter.delayMillis(value, NOW));
    }

    // --- garbage never throws ---

    @Test
    void extremeClocksNeverThrowNorGoNegative() {
        String[] dates = {
                "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
        };
        for (String date : dates) {
            for (long now : new long[] {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, Long.MAX_VALUE}) {
                long delay = RetryAfter.delayMillis(date, now);
                assertTrue(delay >= -1, date + " at " + now + " gave " + delay);
            }
        }
        assertEquals(0, RetryAfter.delayMillis("Sun, 06 Nov 1994 08:49:37 GMT", Long.MAX_VALUE));
        // The true delay does not fit in a long: ignored rather than wrapped.
        assertEquals(-1, RetryAfter.delayMillis("Sun, 06 Nov 1994 08:49:37 GMT", Long.MIN_VALUE));
    }

    @Test
    void mutatedAndRandomValuesNeverThrow() {
        String[] seeds = {
                "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
                "Wednesday, 06-Nov-94 08:49:37 GMT", "120",
        };
        String alphabet = " \t,:-0123456789SunMoWedGMTNovFebxyz\u00e9\u0000\uffff";
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 200_000; i++) {
            StringBuilder value = new StringBuilder(seeds[random.nextInt(seeds.length)]);
            int edits = 1 + random.nextInt(3);
            for (int e = 0; e < edits; e++) {
                int at = random.nextInt(value.length() + 1);
                char c = alphabet.charAt(random.nextInt(alphabet.length()));
                switch (random.nextInt(3)) {
                    case 0 -> value.insert(at, c);
                    case 1 -> { if (at < value.length()) value.setCharAt(at, c); }
                    default -> { if (at < value.length()) value.deleteCharAt(at); }
                }
            }
            if (random.nextInt(4) == 0) {
                value.setLength(random.nextInt(value.length() + 1));
            }
            long delay = RetryAfter.delayMillis(value.toString(), NOW);
            assertTrue(delay >= -1, value + " gave " + delay);
        }
    }
}
