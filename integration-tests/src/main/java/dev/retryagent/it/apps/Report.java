package dev.retryagent.it.apps;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

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

    /** {@code base}, then {@code h.NAME} and its value for each of {@code names}. */
    public static Object[] withHeaders(Object[] base, List<String> names, Function<String, String> value) {
        Object[] all = Arrays.copyOf(base, base.length + 2 * names.size());
        int i = base.length;
        for (String name : names) {
            all[i++] = "h." + name;
            all[i++] = value.apply(name);
        }
        return all;
    }

    /** Every byte {@code in} has left, read up to its end; {@code in} is left open for the caller to close. */
    public static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n = in.read(buffer); n != -1; n = in.read(buffer)) {
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    /** Reads {@code in} to its end and drops the bytes, as a caller that reuses the connection does; left open. */
    public static void drain(InputStream in) throws IOException {
        byte[] buffer = new byte[8192];
        while (in.read(buffer) != -1) {
            // dropped
        }
    }

    /** {@code in} read to its end as UTF-8, then closed; the empty string for no stream. */
    public static String text(InputStream in) throws IOException {
        if (in == null) {
            return "";
        }
        try (InputStream input = in) {
            return new String(readAll(input), StandardCharsets.UTF_8);
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
