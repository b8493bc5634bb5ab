package dev.retryagent.policy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A seeded generator of malformed and adversarial policy contents, several variants of each kind, so that the same
 * seed gives the same files on every run. Special files (a FIFO, a directory, a huge sparse file, links) are made by
 * the test itself, since they are no content.
 */
final class HostilePolicies {
    /** One generated input: its kind, a name for the report, and its bytes. */
    static final class Input {
        final String kind;
        final String name;
        final byte[] bytes;

        Input(String kind, String name, byte[] bytes) {
            this.kind = kind;
            this.name = name;
            this.bytes = bytes;
        }

        /** Lines in the content (a last line without a line break counts). */
        int lines() {
            int lines = 1;
            for (byte b : bytes) {
                if (b == '\n' || b == '\r') {
                    lines++;
                }
            }
            return lines;
        }
    }

    private final Random random;
    private final List<Input> inputs = new ArrayList<>();

    private HostilePolicies(long seed) {
        this.random = new Random(seed);
    }

    static List<Input> generate(long seed) {
        HostilePolicies g = new HostilePolicies(seed);
        for (int i = 0; i < 12; i++) {
            g.deepNesting(i);
        }
        for (int i = 0; i < 16; i++) {
            g.hugeNumber(i);
        }
        for (int i = 0; i < 12; i++) {
            g.aliasBomb(i);
        }
        for (int i = 0; i < 20; i++) {
            g.binaryJunk(i);
        }
        for (int i = 0; i < 14; i++) {
            g.typeTag(i);
        }
        for (int i = 0; i < 14; i++) {
            g.duplicateKeys(i);
        }
        for (int i = 0; i < 12; i++) {
            g.longKeysAndStrings(i);
        }
        for (int i = 0; i < 20; i++) {
            g.unicodeTrick(i);
        }
        for (int i = 0; i < 14; i++) {
            g.invalidUtf8(i);
        }
        for (int i = 0; i < 10; i++) {
            g.manyErrors(i);
        }
        for (int i = 0; i < 12; i++) {
            g.directivesAndDocuments(i);
        }
        for (int i = 0; i < 16; i++) {
            g.truncatedValid(i);
        }
        for (int i = 0; i < 10; i++) {
            g.sizeLimit(i);
        }
        for (int i = 0; i < 24; i++) {
            g.mutatedValid(i);
        }
        for (int i = 0; i < 16; i++) {
            g.denseNodes(i);
        }
        return g.inputs;
    }

    static final String VALID = "version: 1\n"
            + "mode: enforce\n"
            + "defaults:\n"
            + "  maxAttempts: 3\n"
            + "  backoff: { base: 100ms, cap: 2s, multiplier: 2.0, jitter: full }\n"
            + "  deadline: 10s\n"
            + "  retryOn:\n"
            + "    statuses: [502, 503, 504]\n"
            + "rules:\n"
            + "  - match: { host: \"*.internal\" }\n"
            + "    maxAttempts: 4\n";

    private void add(String kind, String name, String text) {
        add(kind, name, text.getBytes(StandardCharsets.UTF_8));
    }

    private void add(String kind, String name, byte[] bytes) {
        inputs.add(new Input(kind, kind + "-" + name, bytes));
    }

    private static String repeat(String s, int n) {
        StringBuilder sb = new StringBuilder(s.length() * n);
        for (int i = 0; i < n; i++) {
            sb.append(s);
        }
        return sb.toString();
    }

    private void deepNesting(int i) {
        int depth = new int[] {33, 64, 200, 1_000, 5_000, 20_000}[i % 6];
        if (i < 6) {
            // flow style on one line: [[[[...]]]] and {a: {a: ...}} alternately
            String open = i % 2 == 0 ? "[" : "{a: ";
            String close = i % 2 == 0 ? "]" : "}";
            add("deep-nesting", "flow-" + depth, "version: 1\ndefaults: " + repeat(open, depth) + repeat(close, depth) + "\n");
        } else {
            StringBuilder sb = new StringBuilder("version: 1\ndefaults:\n");
            int lines = Math.min(depth, 2_000);
            for (int d = 1; d <= lines && sb.length() < 60_000; d++) {
                sb.append(repeat(" ", d)).append(i % 2 == 0 ? "- " : "k: ").append('\n');
                if (i % 2 == 0) {
                    sb.setLength(sb.length() - 3);
                    sb.append("-\n");
                }
            }
            add("deep-nesting", "block-" + lines, sb.toString());
        }
    }

    private void hugeNumber(int i) {
        String digits = repeat("9", new int[] {19, 20, 40, 400, 4_000, 30_000}[i % 6]);
        String[] forms = {digits, "-" + digits, "0x" + repeat("f", 40), "0o" + repeat("7", 60), "1e" + digits,
                digits + "." + digits, ".inf", "-.inf", ".nan", "1e309", "-1e309", "4.9e-325"};
        String value = forms[i % forms.length];
        String key = new String[] {"defaults:\n  maxAttempts: ", "defaults:\n  backoff: { multiplier: ",
                "defaults:\n  retryOn:\n    statuses: [", "version: "}[i % 4];
        String tail = key.endsWith("{ multiplier: ") ? " }" : key.endsWith("[") ? "]" : "";
        String text = key.equals("version: ") ? "version: " + value + "\n" : "version: 1\n" + key + value + tail + "\n";
        add("huge-number", i + "-" + value.substring(0, Math.min(8, value.length())) + "-" + value.length(), text);
    }

    private void aliasBomb(int i) {
        // billion laughs: each level refers to the previous one ten times
        int levels = 3 + i % 9;
        StringBuilder sb = new StringBuilder("version: 1\n");
        if (i % 3 == 2) {
            sb.append("defaults: &a0 { maxAttempts: 3 }\nrules:\n");
            for (int l = 0; l < levels; l++) {
                sb.append("  - &r").append(l).append(" { match: { host: a }, <<: *").append(l == 0 ? "a0" : "r" + (l - 1))
                        .append(" }\n");
            }
        } else {
            sb.append("lol0: &a0 [lol]\n");
            for (int l = 1; l <= levels; l++) {
                sb.append("lol").append(l).append(": &a").append(l).append(" [");
                for (int k = 0; k < 10; k++) {
                    sb.append(k == 0 ? "" : ", ").append("*a").append(l - 1);
                }
                sb.append("]\n");
            }
            if (i % 3 == 1) {
                sb.append("defaults: *a").append(levels).append('\n');
            }
        }
        add("alias-bomb", "levels-" + levels + "-" + i, sb.toString());
    }

    private void binaryJunk(int i) {
        int length = new int[] {1, 7, 100, 4_096, 65_536}[i % 5];
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        if (i % 4 == 1) {
            bytes[0] = 0; // leading NUL
        } else if (i % 4 == 2) {
            // a valid head, then junk
            byte[] head = "version: 1\ndefaults:\n  maxAttempts: ".getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(head, 0, bytes, 0, Math.min(head.length, bytes.length));
        } else if (i % 4 == 3) {
            // ASCII printable junk, with line breaks, that decodes but is no policy
            for (int b = 0; b < bytes.length; b++) {
                bytes[b] = (byte) (random.nextInt(12) == 0 ? '\n' : 0x20 + random.nextInt(0x5f));
            }
        }
        if (i == 19) {
            bytes = new byte[] {(byte) 0xca, (byte) 0xfe, (byte) 0xba, (byte) 0xbe, 0, 0, 0, 52}; // a class file head
        }
        add("binary-junk", i + "-" + bytes.length, bytes);
    }

    private void typeTag(int i) {
        String[] tags = {"!!python/object/apply:os.system [\"id\"]", "!!javax.script.ScriptEngineManager "
                + "[!!java.net.URLClassLoader [[!!java.net.URL [\"http://127.0.0.1/\"]]]]", "!!str 3", "!!int \"3\"",
                "!!binary aGVsbG8=", "!!set {a, b}", "!!omap [a: 1]", "!<tag:yaml.org,2002:int> 3", "!custom 3",
                "!!float 3", "!!null ''", "!!map {a: 1}", "!!seq [1]", "!!timestamp 2001-12-14"};
        String tag = tags[i % tags.length];
        String text = i % 2 == 0 ? "version: 1\ndefaults:\n  maxAttempts: " + tag + "\n"
                : "--- " + tag + "\n";
        add("type-tag", Integer.toString(i), text);
    }

    private void duplicateKeys(int i) {
        String[] texts = {
            "version: 1\nversion: 1\n",
            "version: 1\ndefaults:\n  maxAttempts: 3\n  maxAttempts: 4\n",
            "version: 1\ndefaults: {maxAttempts: 3, maxAttempts: 4}\n",
            "version: 1\nmode: off\nmode: enforce\n",
            "version: 1\ndefaults: {}\ndefaults: {}\n",
            "version: 1\nrules:\n  - match: { host: a, host: b }\n",
            "version: 1\n? version\n: 1\n",
            "version: 1\n\"version\": 1\n",
            "version: 1\n'mode': off\nmode: off\n",
        };
        if (i < texts.length) {
            add("duplicate-keys", Integer.toString(i), texts[i]);
        } else if (i == 12) {
            // the shortest duplicate, as often as the size limit allows
            add("duplicate-keys", "shortest", "version: 1\n" + repeat("a: 1\n", 13_000));
        } else if (i == 13) {
            add("duplicate-keys", "flow", "version: 1\ndefaults: {" + repeat("a: 1, ", 10_000) + "a: 1}\n");
        } else {
            // the same key thousands of times
            add("duplicate-keys", "many-" + i, "version: 1\n" + repeat("mode: off\n", 500 * i));
        }
    }

    private void longKeysAndStrings(int i) {
        int length = new int[] {1_000, 10_000, 60_000}[i % 3];
        String chars = i % 2 == 0 ? repeat("k", length) : repeat("\u00e9", length / 2);
        String text;
        switch (i % 4) {
            case 0:
                text = "version: 1\n" + chars + ": 1\n";
                break;
            case 1:
                text = "version: 1\nrules:\n  - match: { host: \"" + chars + "\" }\n";
                break;
            case 2:
                text = "version: 1\nmarker:\n  header: " + chars + "\n";
                break;
            default:
                text = "version: 1\ndefaults:\n  deadline: " + chars + "ms\n";
                break;
        }
        add("long-key-or-string", i + "-" + length, text);
    }

    private void unicodeTrick(int i) {
        String[] tricks = {
            "\u202e", "\u200b", "\u200d", "\ufeff", "\u2028", "\u2029", "\u0085", "\u00a0", "\u2063", "\u061c",
            "\u001b[31m", "\r", "\u0000", "\u007f", "\ud83d\ude00", "\u0131", "\u212a", "\uff56ersion", "\u0301", "\ufffe",
        };
        String trick = tricks[i % tricks.length];
        String text;
        switch (i % 4) {
            case 0:
                text = "version: 1\nmo" + trick + "de: enforce\n";
                break;
            case 1:
                text = "version: 1\nrules:\n  - match: { host: \"a" + trick + ".internal\" }\n    maxAttempts: 0\n";
                break;
            case 2:
                text = "version: 1\ndefaults:\n  maxAttempts: 3" + trick + "\n";
                break;
            default:
                text = trick + "version: 1\nmode: " + trick + "off\n";
                break;
        }
        add("unicode-trick", i + "-U+" + Integer.toHexString(trick.codePointAt(0)), text);
    }

    private void invalidUtf8(int i) {
        byte[][] sequences = {
            {(byte) 0xc0, (byte) 0xaf}, // overlong '/'
            {(byte) 0xe0, (byte) 0x80, (byte) 0xaf}, // overlong
            {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, // a surrogate
            {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, // beyond U+10FFFF
            {(byte) 0xff},
            {(byte) 0x80},
            {(byte) 0xc3}, // truncated
            {(byte) 0xfe, (byte) 0xff, 0, 'v'}, // a UTF-16 BOM
        };
        byte[] bad = sequences[i % sequences.length];
        byte[] head = ("version: 1\n" + repeat("# filler\n", i) + "mode: ").getBytes(StandardCharsets.US_ASCII);
        byte[] bytes = new byte[head.length + bad.length + 1];
        System.arraycopy(head, 0, bytes, 0, head.length);
        System.arraycopy(bad, 0, bytes, head.length, bad.length);
        bytes[bytes.length - 1] = '\n';
        add("invalid-utf8", Integer.toString(i), bytes);
    }

    private void manyErrors(int i) {
        // a file full of errors, up to the size limit: each line an unknown key or a bad value
        StringBuilder sb = new StringBuilder("version: 1\nrules:\n");
        int n = 0;
        while (sb.length() < 60_000 - 200 * i) {
            sb.append("  - match: { host: h").append(n).append(" }\n    maxAttempts: ").append(-n).append('\n')
                    .append("    bogus").append(n).append(": x\n");
            n++;
        }
        add("many-errors", Integer.toString(n), sb.toString());
    }

    private void directivesAndDocuments(int i) {
        String[] texts = {
            "%YAML 1.1\n---\nversion: 1\n",
            "%YAML 9.9\n---\nversion: 1\n",
            "%TAG ! tag:evil.example,2000:\n---\nversion: !x 1\n",
            "version: 1\n---\nversion: 1\n",
            "---\n...\n---\nversion: 1\n",
            "...\n",
            "---\n",
            "",
            "\n\n\n",
            "# only a comment\n",
            "- version: 1\n",
            "\"version: 1\"\n",
        };
        add("directives-documents", Integer.toString(i), texts[i % texts.length]);
    }

    private void truncatedValid(int i) {
        int cut = 1 + random.nextInt(VALID.length() - 2);
        add("truncated", Integer.toString(cut), VALID.substring(0, cut) + (i % 2 == 0 ? "" : "\u0000"));
    }

    private void sizeLimit(int i) {
        int limit = PolicyLoader.MAX_FILE_BYTES;
        int size = new int[] {limit - 1, limit, limit + 1, limit * 2}[i % 4];
        StringBuilder sb = new StringBuilder("version: 1\nmode: off\n");
        String filler = i % 2 == 0 ? "# comment\n" : "junk: [1, 2]\n";
        while (sb.length() < size) {
            sb.append(filler);
        }
        sb.setLength(size);
        if (i >= 8) {
            // no line breaks at all: one line of the whole size
            sb.setLength(0);
            sb.append("version: 1 #").append(repeat("x", size - 12));
        }
        add("size-limit", i + "-" + size, sb.toString());
    }

    /** As many nodes (and errors) as fit in the size limit: what costs the parser and the validator most per byte. */
    private void denseNodes(int i) {
        String[][] forms = {
            {"rules: [", "1,", "1]"}, {"rules:\n", "- 1\n", ""}, {"rules: [", "[],", "[]]"}, {"rules: [", "{},", "{}]"},
            {"rules:\n", "-\n", ""}, {"rules: [", "a,", "a]"}, {"", "a:\n", ""}, {"", "? \n", ""},
            {"rules: [", "[[[[[[[[[[]]]]]]]]]],", "1]"}, {"rules: [", "'',", "1]"}, {"", "#\n", ""}, {"", "\n", ""},
            {"rules: [", "!!a 1,", "1]"}, {"rules: [", "&a 1,", "1]"}, {"rules: [", "*a,", "1]"},
            {"defaults:\n  retryOn:\n    statuses: [", "999,", "1]"},
        };
        String[] form = forms[i % forms.length];
        StringBuilder sb = new StringBuilder("version: 1\n").append(form[0]);
        while (sb.length() + form[1].length() + form[2].length() + 1 <= PolicyLoader.MAX_FILE_BYTES) {
            sb.append(form[1]);
        }
        sb.append(form[2]).append('\n');
        add("dense-nodes", i + "-" + form[1].trim(), sb.toString());
    }

    private void mutatedValid(int i) {
        char[] text = VALID.toCharArray();
        String specials = "[]{}&*!|>'\"%@`#,?:-\t\\\u0000\n";
        int mutations = 1 + random.nextInt(6);
        for (int m = 0; m < mutations; m++) {
            text[random.nextInt(text.length)] = specials.charAt(random.nextInt(specials.length()));
        }
        add("mutated", Integer.toString(i), new String(text));
    }
}
