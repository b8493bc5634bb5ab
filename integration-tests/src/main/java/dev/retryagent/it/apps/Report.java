package dev.retryagent.it.apps;

import java.nio.charset.StandardCharsets;

/**
 * Prints the lines a test parses: {@code TAG key=value key=value ...}. Values are percent-encoded where
 * needed (space, '%', '=', control and non-ASCII characters as UTF-8 bytes), so a line splits on spaces.
 * Plain application code: nothing here knows about the agent.
 */
public final class Report {

    private Report() {
    }

    /** Prints {@code tag} followed by {@code key, value} pairs; a null value is printed as {@code null}. */
    public static void line(String tag, Object... keyValues) {
        if (keyValues.length % 2 != 0) {
            throw new IllegalArgumentException("key/value pairs expected");
        }
        StringBuilder sb = new StringBuilder(tag);
        for (int i = 0; i < keyValues.length; i += 2) {
            sb.append(' ').append(encode(String.valueOf(keyValues[i]))).append('=')
                    .append(encode(String.valueOf(keyValues[i + 1])));
        }
        synchronized (System.out) {
            System.out.println(sb);
            System.out.flush();
        }
    }

    static String encode(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c <= 0x20 || c >= 0x7f || c == '%' || c == '=') {
                sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            } else {
                sb.append((char) c);
            }
        }
        return sb.toString();
    }
}
