package dev.retryagent.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Malformed policy files: each fails with only a PolicyException naming the right line, key and problem. */
class MalformedPolicyTest {

    private static Arguments bad(String name, String yaml, int line, String key, String fragment) {
        return bad(name, yaml, line, key, fragment, 1);
    }

    /** {@code errors}: how many errors the file has in all. */
    private static Arguments bad(String name, String yaml, int line, String key, String fragment, int errors) {
        return Arguments.of(name, yaml, line, key, fragment, errors);
    }

    static Stream<Arguments> malformed() {
        return Stream.of(
                // --- YAML syntax
                bad("bad indentation: key indented under a scalar",
                        "version: 1\nmode: enforce\n  bad: x\n", 3, "(yaml)", "indentation"),
                bad("bad indentation: key dedented inside a mapping",
                        "version: 1\ndefaults:\n  maxAttempts: 3\n backoff: {}\n", 4, "(yaml)", "bad indentation"),
                bad("unclosed bracket",
                        "version: 1\ndefaults:\n  retryOn:\n    statuses: [502, 503\n  deadline: 2s\n",
                        5, "(yaml)", "list `[` opened on line 4 is not closed"),
                bad("unclosed brace at end of file",
                        "version: 1\nrules:\n  - match: { host: a.internal\n", 4, "(yaml)",
                        "mapping `{` opened on line 3 is not closed"),
                bad("tab indentation",
                        "version: 1\ndefaults:\n\tmaxAttempts: 3\n", 3, "(yaml)", "tab character"),
                bad("unclosed quote",
                        "version: 1\nrules:\n  - match: { host: \"abc }\n", 4, "(yaml)", "quote opened on line 3"),
                bad("stray closing bracket",
                        "version: 1\ndefaults: { a: ] }\n", 2, "(yaml)", "invalid YAML"),
                bad("two documents",
                        "version: 1\n---\nversion: 1\n", 2, "(yaml)", "one YAML document"),

                // --- wrong types
                bad("maxAttempts quoted",
                        "version: 1\ndefaults:\n  maxAttempts: \"3\"\n", 3, "defaults.maxAttempts",
                        "expected an integer between 1 and 100"),
                bad("maxAttempts a float",
                        "version: 1\ndefaults:\n  maxAttempts: 3.5\n", 3, "defaults.maxAttempts",
                        "found the number 3.5"),
                bad("boolean as text",
                        "version: 1\ndefaults:\n  retryAfter: { honor: yes }\n", 3, "defaults.retryAfter.honor",
                        "expected true or false; found the text \"yes\""),
                bad("enabled quoted",
                        "version: 1\nmarker: {enabled: 'false'}\n", 2, "marker.enabled", "remove the quotes"),
                bad("mapping expected, scalar given",
                        "version: 1\ndefaults:\n  backoff: 100ms\n", 3, "defaults.backoff",
                        "expected a mapping with the keys base, cap, multiplier, jitter"),
                bad("list expected, scalar given",
                        "version: 1\ndefaults:\n  retryOn:\n    statuses: 503\n", 4, "defaults.retryOn.statuses",
                        "expected a list of HTTP status codes"),
                bad("rules a mapping",
                        "version: 1\nrules:\n  match: { host: a }\n", 3, "rules", "expected a list of rules"),
                bad("bare number duration",
                        "version: 1\ndefaults:\n  backoff: { base: 100 }\n", 3, "defaults.backoff.base",
                        "write 250ms or 2s"),
                bad("header name a number",
                        "version: 1\nmarker:\n  header: 42\n", 3, "marker.header", "found the integer 42"),
                bad("empty value",
                        "version: 1\ndefaults:\n  deadline:\n", 3, "defaults.deadline", "found no value"),

                // --- unknown keys
                bad("unknown top-level key",
                        "version: 1\nmodes: enforce\n", 2, "modes", "unknown key `modes`; did you mean `mode`?"),
                bad("settings at the top level",
                        "version: 1\nmaxAttempts: 2\n", 2, "maxAttempts", "settings go under `defaults`"),
                bad("unknown nested key",
                        "version: 1\ndefaults:\n  maxAttempt: 3\n", 3, "defaults.maxAttempt",
                        "unknown key `maxAttempt`; did you mean `maxAttempts`?"),
                bad("unknown key two levels down",
                        "version: 1\ndefaults:\n  backoff:\n    bse: 1s\n", 4, "defaults.backoff.bse",
                        "did you mean `base`?"),
                bad("unknown key in match",
                        "version: 1\nrules:\n  - match: { hots: a.internal }\n", 3, "rules[0].match.hots",
                        "did you mean `host`?"),
                bad("unknown key with no close match",
                        "version: 1\nrules:\n  - match: { host: a }\n    colour: blue\n", 4, "rules[0].colour",
                        "allowed keys here: match, mode, maxAttempts"),
                bad("match key beside match",
                        "version: 1\nrules:\n  - match: { host: a }\n    port: 80\n", 4, "rules[0].port",
                        "belongs under the rule's `match`"),
                bad("mode in defaults",
                        "version: 1\ndefaults:\n  mode: off\n", 3, "defaults.mode", "cannot be set in `defaults`"),
                bad("merge key",
                        "version: 1\ndefaults:\n  <<: { maxAttempts: 2 }\n", 3, "defaults.<<", "unknown key `<<`"),

                // --- out-of-range values
                bad("maxAttempts 0",
                        "version: 1\ndefaults:\n  maxAttempts: 0\n", 3, "defaults.maxAttempts",
                        "must be between 1 and 100"),
                bad("maxAttempts 101",
                        "version: 1\nrules:\n  - match: {host: a}\n    maxAttempts: 101\n", 4,
                        "rules[0].maxAttempts", "found 101"),
                bad("negative duration",
                        "version: 1\ndefaults:\n  deadline: -5s\n", 3, "defaults.deadline", "must not be negative"),
                bad("duration without a known unit",
                        "version: 1\ndefaults:\n  deadline: 5 sec\n", 3, "defaults.deadline", "found `5 sec`"),
                bad("unknown jitter",
                        "version: 1\ndefaults:\n  backoff: { jitter: ful }\n", 3, "defaults.backoff.jitter",
                        "unknown jitter `ful`; allowed: full, equal, decorrelated, none"),
                bad("cap below base",
                        "version: 1\ndefaults:\n  backoff:\n    base: 5s\n    cap: 1s\n", 5, "defaults.backoff.cap",
                        "cap must be at least backoff.base"),
                bad("base above the inherited cap",
                        "version: 1\nrules:\n  - match: {host: a}\n    backoff: { base: 5s }\n", 4,
                        "rules[0].backoff.base", "cap is 2s (from defaults)"),
                bad("multiplier below 1",
                        "version: 1\ndefaults:\n  backoff: { multiplier: 0.5 }\n", 3, "defaults.backoff.multiplier",
                        "must be 1 or more; found 0.5"),
                bad("unknown idempotent method",
                        "version: 1\ndefaults:\n  idempotentMethods: [GET, FETCH]\n", 3,
                        "defaults.idempotentMethods[1]", "unknown HTTP method `FETCH`"),
                bad("unknown match method",
                        "version: 1\nrules:\n  - match:\n      methods:\n        - GET\n        - PUTT\n", 6,
                        "rules[0].match.methods[1]", "did you mean `PUT`?"),
                bad("status 99",
                        "version: 1\ndefaults:\n  retryOn: { statuses: [99] }\n", 3, "defaults.retryOn.statuses[0]",
                        "between 100 and 599; found 99"),
                bad("status 600",
                        "version: 1\ndefaults:\n  retryOn:\n    statuses:\n      - 503\n      - 600\n", 6,
                        "defaults.retryOn.statuses[1]", "between 100 and 599; found 600"),
                bad("unknown failure kind",
                        "version: 1\ndefaults:\n  retryOn: { failures: [connect, tls] }\n", 3,
                        "defaults.retryOn.failures[1]", "allowed: connect, reset, timeout"),
                bad("ratio 1.5",
                        "version: 1\ndefaults:\n  budget: { ratio: 1.5 }\n", 3, "defaults.budget.ratio",
                        "between 0 and 1; found 1.5"),
                bad("negative minPerSecond",
                        "version: 1\ndefaults:\n  budget: { minPerSecond: -1 }\n", 3, "defaults.budget.minPerSecond",
                        "0 or more"),
                bad("port 70000",
                        "version: 1\nrules:\n  - match: { port: 70000 }\n", 3, "rules[0].match.port",
                        "between 1 and 65535; found 70000"),
                bad("spread -1",
                        "version: 1\ndefaults:\n  retryAfter: { spread: -1 }\n", 3, "defaults.retryAfter.spread",
                        "between 0 and 10; found -1"),
                bad("spread infinite",
                        "version: 1\ndefaults:\n  retryAfter: { spread: .inf }\n", 3, "defaults.retryAfter.spread",
                        "between 0 and 10"),
                bad("unknown mode",
                        "version: 1\nmode: on\n", 2, "mode", "unknown mode `on`; allowed: enforce, observe, off"),
                bad("unknown rule mode",
                        "version: 1\nrules:\n  - match: {host: a}\n    mode: disabled\n", 4, "rules[0].mode",
                        "allowed: enforce, observe, off"),
                bad("unknown upperLayers",
                        "version: 1\nrules:\n  - match: { host: a }\n    upperLayers: never\n", 4,
                        "rules[0].upperLayers", "unknown upperLayers `never`; allowed: defer, retry"),
                bad("upperLayers as a list",
                        "version: 1\ndefaults:\n  upperLayers: [defer]\n", 3, "defaults.upperLayers", "defer"),
                bad("upperLayers misspelt",
                        "version: 1\ndefaults:\n  upperLayers: deffer\n", 3, "defaults.upperLayers",
                        "did you mean `defer`?"),
                bad("unknown builtInRetries",
                        "version: 1\nbuiltInRetries: replaced\n", 2, "builtInRetries", "did you mean `replace`?"),
                bad("unknown client",
                        "version: 1\nrules:\n  - match: { client: okhttp3 }\n", 3, "rules[0].match.client",
                        "allowed: httpurlconnection, okhttp, apache-httpclient5"),
                bad("marker header with a space",
                        "version: 1\nmarker: { header: Retry Attempt }\n", 2, "marker.header",
                        "is not a valid header name"),
                bad("path without a leading slash",
                        "version: 1\nrules:\n  - match: { path: \"v1/**\" }\n", 3, "rules[0].match.path",
                        "must begin with `/`"),
                bad("host with a scheme",
                        "version: 1\nrules:\n  - match: { host: \"https://a.internal\" }\n", 3, "rules[0].match.host",
                        "no scheme or path"),
                bad("empty method list in match",
                        "version: 1\nrules:\n  - match: { host: a, methods: [] }\n", 3, "rules[0].match.methods",
                        "`methods` is empty"),

                // --- refused YAML features
                bad("!!str tag",
                        "version: 1\ndefaults:\n  maxAttempts: !!str 3\n", 3, "defaults.maxAttempts",
                        "type tags are not allowed in a policy file: found `!!str`"),
                bad("!!python/object tag",
                        "version: 1\ndefaults: !!python/object:os.system { maxAttempts: 2 }\n", 2, "defaults",
                        "found `!!python/object:os.system`"),
                bad("local tag",
                        "version: 1\nmode: !foo enforce\n", 2, "mode", "found `!foo`"),
                bad("anchor and alias",
                        "version: 1\ndefaults:\n  retryOn:\n    statuses: &s [502, 503]\nrules:\n"
                                + "  - match: { host: a }\n    retryOn: { statuses: *s }\n",
                        4, "defaults.retryOn.statuses", "anchors are not allowed", 2),
                bad("alias bomb",
                        "version: 1\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
                                + "c: &c [*b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c]\n",
                        2, "a", "YAML anchors are not allowed", 3 + 3 + 4),
                bad("duplicate key",
                        "version: 1\ndefaults:\n  maxAttempts: 2\n  deadline: 5s\n  maxAttempts: 4\n", 5,
                        "defaults.maxAttempts", "duplicate key `maxAttempts` (first given on line 3)"),

                // --- file shape
                bad("missing version",
                        "mode: enforce\n", 1, "version", "`version` is required"),
                bad("version 2",
                        "version: 2\n", 1, "version", "unsupported policy version 2; this agent reads version 1"),
                bad("version as text",
                        "version: \"1\"\n", 1, "version", "expected the integer 1"),
                bad("top-level list",
                        "- version: 1\n", 1, "(file)", "must be a mapping of keys"),
                bad("scalar file",
                        "retry everything please\n", 1, "(file)", "found the text \"retry everything please\""),
                bad("empty file",
                        "", 1, "(file)", "empty policy file: `version` is required"),
                bad("comments only",
                        "# policy\n# to be written\n", 1, "(file)", "empty policy file: `version` is required"),
                bad("1 MB file",
                        "version: 1\n" + "#".repeat(1024 * 1024) + "\n", 1, "(file)",
                        "the limit is 65536 bytes (64 KiB)"),
                bad("10000 opening brackets",
                        "[".repeat(10_000), 1, "(yaml)", "nested more than 32 levels deep"),
                bad("10000 opening braces",
                        "version: 1\nrules: " + "{a: ".repeat(10_000), 2, "(yaml)", "nested more than 32 levels"),
                bad("deep but closed nesting",
                        "version: 1\ndefaults: " + "[".repeat(40) + "]".repeat(40) + "\n", 2, "(yaml)",
                        "nested more than 32"),
                bad("control character",
                        "version: 1\nmode: enforce\u0007\n", 2, "(yaml)", "U+0007"),
                bad("rule without match",
                        "version: 1\nrules:\n  - match: { host: a }\n  - maxAttempts: 2\n", 4, "rules[1].match",
                        "a rule needs a `match`"),
                bad("rule with an empty match",
                        "version: 1\nrules:\n  - match: {}\n    maxAttempts: 2\n", 3, "rules[0].match",
                        "`match` is empty"),
                bad("rule not a mapping",
                        "version: 1\nrules:\n  - payments.internal\n", 3, "rules[0]", "expected a rule"),
                bad("environment variable",
                        "version: 1\nrules:\n  - match:\n      host: ${PAYMENTS_HOST}\n", 4, "rules[0].match.host",
                        "environment variables are not expanded"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void malformedPolicyFailsWithLineKeyAndMessage(String name, String yaml, int line, String key, String fragment,
                                                   int count) {
        PolicyException e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> assertThrows(PolicyException.class, () -> PolicyLoader.parse(yaml, "bad.yaml")));
        List<PolicyError> errors = e.errors();
        String all = e.getMessage();
        assertEquals(count, errors.size(), "number of errors in:\n" + all);
        PolicyError first = errors.get(0);
        assertEquals("bad.yaml", first.file(), all);
        assertEquals(line, first.line(), "line in:\n" + all);
        assertEquals(key, first.key(), "key in:\n" + all);
        assertTrue(first.message().contains(fragment), "message fragment `" + fragment + "` in:\n" + all);
        for (PolicyError error : errors) {
            assertFalse(error.toString().contains("\n"), "one line per error: " + error);
            assertTrue(error.line() >= 1, error.toString());
        }
        assertEquals(errors.size(), all.split("\n").length, all);
    }

    @Test
    void oneFileWithThreeErrorsReportsAllThreeWithTheirLines() {
        String yaml = """
                version: 1
                defaults:
                  maxAttempts: 0
                  backoff: { base: 100ms, jitter: wobbly }
                rules:
                  - match: { host: a.internal }
                    deadline: 5
                """;
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.parse(yaml, "three.yaml"));
        List<PolicyError> errors = e.errors();
        assertEquals(3, errors.size(), e.getMessage());
        assertEquals(3, errors.get(0).line());
        assertEquals("defaults.maxAttempts", errors.get(0).key());
        assertEquals(4, errors.get(1).line());
        assertEquals("defaults.backoff.jitter", errors.get(1).key());
        assertTrue(errors.get(1).message().contains("wobbly"));
        assertEquals(7, errors.get(2).line());
        assertEquals("rules[0].deadline", errors.get(2).key());
        assertTrue(errors.get(2).message().contains("write 250ms or 2s"));
        assertEquals("""
                three.yaml:3: defaults.maxAttempts: %s
                three.yaml:4: defaults.backoff.jitter: %s
                three.yaml:7: rules[0].deadline: %s""".formatted(
                errors.get(0).message(), errors.get(1).message(), errors.get(2).message()), e.getMessage());
    }

    @Test
    void errorsInManyPlacesAreAllReported() {
        String yaml = """
                version: 3
                mode: loud
                marker: { header: "", enabled: 1 }
                defaults:
                  retryOn: { statuses: [200, 1000], failures: [dns] }
                  budget: { ratio: -0.5, minPerSecond: 1.5 }
                rules:
                  - match: { host: a, port: 0 }
                  - match: { host: b }
                    backoff: { cap: 1s, base: 2s }
                  - {}
                """;
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.parse(yaml, "many.yaml"));
        String[] expected = {
            "many.yaml:1: version:", "many.yaml:2: mode:", "many.yaml:3: marker.header:", "many.yaml:3: marker.enabled:",
            "many.yaml:5: defaults.retryOn.statuses[1]:", "many.yaml:5: defaults.retryOn.failures[0]:",
            "many.yaml:6: defaults.budget.ratio:", "many.yaml:6: defaults.budget.minPerSecond:",
            "many.yaml:8: rules[0].match.port:", "many.yaml:10: rules[1].backoff.cap:", "many.yaml:11: rules[2].match:",
        };
        String[] lines = e.getMessage().split("\n");
        assertEquals(expected.length, lines.length, e.getMessage());
        for (int i = 0; i < expected.length; i++) {
            assertTrue(lines[i].startsWith(expected[i]), lines[i] + " should start with " + expected[i]);
        }
    }

    @Test
    void validKeysOfABlockWithErrorsStillReachTheRules() {
        String yaml = """
                version: 1
                defaults:
                  maxAttempts: 0
                  backoff: { cap: 10s }
                rules:
                  - match: { host: a }
                    backoff: { base: 5s }
                """;
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.parse(yaml, "x.yaml"));
        assertEquals(1, e.errors().size(), "no follow-on error about cap < base in the rule:\n" + e.getMessage());
        assertEquals("defaults.maxAttempts", e.errors().get(0).key());
    }

    @Test
    void oversizedFileIsRefusedBeforeItIsRead(@TempDir Path dir) throws Exception {
        Path big = dir.resolve("big.yaml");
        byte[] bytes = ("version: 1\n" + "#".repeat(1024 * 1024) + "\n").getBytes(StandardCharsets.US_ASCII);
        Files.write(big, bytes);
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.load(big));
        assertEquals(1, e.errors().size());
        PolicyError error = e.errors().get(0);
        assertEquals(1, error.line());
        assertEquals("(file)", error.key());
        assertTrue(error.message().contains(bytes.length + " bytes"), error.message());
        assertTrue(error.message().contains("65536"), error.message());
    }

    @Test
    void deepNestingOnManyLinesIsAnErrorNotACrash() {
        StringBuilder sb = new StringBuilder("version: 1\ndefaults:\n");
        for (int depth = 1; depth <= 300; depth++) {
            sb.append(" ".repeat(depth)).append("a:\n");
        }
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.parse(sb.toString(), "deep.yaml"));
        assertEquals(1, e.errors().size(), e.getMessage());
        assertEquals("(yaml)", e.errors().get(0).key());
        assertEquals(34, e.errors().get(0).line()); // the 33rd level begins there
        assertTrue(e.getMessage().contains("nested more than 32 levels"), e.getMessage());
    }

    @Test
    void noOtherExceptionEscapesForArbitraryBytes() {
        java.util.Random random = new java.util.Random(42);
        String alphabet = "version: 1\n- []{}&*!|>'\"%@`#,?:\t\r\\ax0.-~<=";
        for (int i = 0; i < 3_000; i++) {
            StringBuilder sb = new StringBuilder();
            int length = random.nextInt(120);
            for (int j = 0; j < length; j++) {
                sb.append(random.nextInt(10) == 0 ? (char) random.nextInt(0x3000) : alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String text = sb.toString();
            try {
                PolicyLoader.parse(text, "fuzz.yaml");
            } catch (PolicyException expected) {
                assertFalse(expected.errors().isEmpty());
            } catch (Throwable t) {
                fail("input " + text.replace("\n", "\\n") + " threw " + t, t);
            }
        }
    }
}
