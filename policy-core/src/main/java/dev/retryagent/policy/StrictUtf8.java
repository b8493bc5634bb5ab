package dev.retryagent.policy;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** UTF-8 as a policy file must be: decoded without replacement, a bad byte reported with its line. */
final class StrictUtf8 {
    private StrictUtf8() {
    }

    static String decode(byte[] bytes, String source) throws PolicyException {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length + 1);
        CoderResult result = decoder.decode(in, out, true);
        if (!result.isError()) {
            result = decoder.flush(out);
        }
        if (result.isError()) {
            int at = in.position();
            int line = 1;
            for (int i = 0; i < at && i < bytes.length; i++) {
                if (bytes[i] == '\n') {
                    line++;
                }
            }
            throw new PolicyException(new PolicyError(source, line, PolicyErrors.FILE_KEY,
                    "the policy file is not valid UTF-8 (bad byte at offset " + at + ")"));
        }
        out.flip();
        return out.toString();
    }

    /** How many bytes {@code text} takes in UTF-8, counted without encoding it. */
    static long length(String text) {
        long bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
