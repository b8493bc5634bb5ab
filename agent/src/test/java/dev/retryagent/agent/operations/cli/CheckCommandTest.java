package dev.retryagent.agent.operations.cli;

import static dev.retryagent.agent.operations.cli.MiniJson.array;
import static dev.retryagent.agent.operations.cli.MiniJson.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CheckCommandTest {
    /** The classic mistake: looks generous, waits at most 100 + 200 + 400 ms in all. */
    private static final String CLASSIC = "version: 1\n"
            + "defaults:\n  maxAttempts: 4\n  backoff: { base: 100ms, cap: 3s }\n  retryAfter: { max: 5s }\n";
    /** Waits drawn up to 1, 2, 4, 8 s: the median call's last attempt starts well after 8 s. */
    private static final String RIDES_OUT = "version: 1\n"
            + "defaults:\n  maxAttempts: 5\n  backoff: { base: 1s, cap: 8s }\n  deadline: 30s\n"
            + "  retryAfter: { max: 20s }\n";
    /** Free of warnings: every warning test below adds one mistake to it. */
    private static final String CLEAN = "version: 1\ndefaults:\n  retryAfter: { max: 5s }\n";

    @TempDir
    Path dir;

    private final CapturedRun tool = new CapturedRun();

    private int check(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "check";
        System.arraycopy(args, 0, all, 1, args.length);
        return tool.run(all);
    }

    private String out() {
        return tool.out();
    }

    private String err() {
        return tool.err();
    }

    private Path policy(String yaml) throws IOException {
        Path file = Files.createTempFile(dir, "policy", ".yaml");
        Files.writeString(file, yaml);
        return file;
    }

    private Map<String, Object> json(String... args) {
        check(args);
        return object(MiniJson.parse(out()));
    }

    private static Map<String, Object> rule(Map<String, Object> doc, int index) {
        return object(array(doc.get("rules")).get(index));
    }

    private static List<String> warningKeys(Map<String, Object> section) {
        List<String> keys = new ArrayList<>();
        for (Object w : array(section.get("warnings"))) {
            keys.add((String) object(w).get("key"));
        }
        return keys;
    }

    // ---- the outage ------------------------------------------------------------------------------------------

    @Test
    void theClassicMistakeIsCaughtWithItsNumbers() throws IOException {
        Path file = policy(CLASSIC);
        assertEquals(0, check("--outage", "8s", file.toString()), err());
        String text = out();
        assertTrue(text.contains("outage 8s    NO: the last attempt starts by 3.7s at the latest (3 attempts of 1s"
                + " + at most 700ms of waits)"), text);
        assertTrue(text.contains("the waits cover at most 700ms of 8s"), text);
        assertTrue(text.contains("to ride it out in the median call: maxAttempts 5"), text);
        assertTrue(text.contains("[outage] cannot ride out an outage of 8s"), text);

        Map<String, Object> d = rule(json("--json", "--outage", "8s", file.toString()), 0);
        assertEquals(700L, object(d.get("longest")).get("waitMillis"));
        assertEquals(4L, object(d.get("longest")).get("attempts"));
        Map<String, Object> outage = object(d.get("outage"));
        assertEquals(false, outage.get("ridesOut"));
        assertEquals(false, outage.get("bestCase"));
        assertEquals(0.0, outage.get("shareOfCalls"));
        assertTrue(warningKeys(d).contains("outage"));
    }

    @Test
    void theSuggestedChangeRidesTheOutageOut() throws IOException {
        Map<String, Object> s = object(object(rule(json("--json", "--outage", "8s", policy(CLASSIC).toString()), 0)
                .get("outage")).get("suggestion"));
        long attempts = (Long) s.get("maxAttempts");
        assertTrue(attempts <= 5, s.toString());
        assertTrue((Long) s.get("medianLastAttemptStartMillis") >= 8000, s.toString());
        // The suggestion, written into the file, passes the same check.
        String fixed = "version: 1\ndefaults:\n  maxAttempts: " + attempts + "\n"
                + "  backoff: { base: " + s.get("baseMillis") + "ms, cap: " + s.get("capMillis") + "ms }\n"
                + "  deadline: " + s.get("deadlineMillis") + "ms\n  retryAfter: { max: 5s }\n";
        Map<String, Object> after = rule(json("--json", "--outage", "8s", policy(fixed).toString()), 0);
        assertEquals(true, object(after.get("outage")).get("ridesOut"), after.toString());
        assertEquals(0, check("--strict", "--outage", "8s", policy(fixed).toString()), out());
    }

    @Test
    void aRuleThatCanRideItOutSaysYes() throws IOException {
        Path file = policy(RIDES_OUT);
        assertEquals(0, check("--strict", "--outage", "8s", file.toString()), out());
        assertTrue(out().contains("outage 8s    YES: the median call's last attempt starts at"), out());
        Map<String, Object> outage = object(rule(json("--json", "--outage", "8s", file.toString()), 0).get("outage"));
        assertEquals(true, outage.get("ridesOut"));
        assertEquals(true, outage.get("bestCase"));
        assertTrue((Double) outage.get("shareOfCalls") > 0.5, outage.toString());
        assertNull(outage.get("suggestion"));
    }

    @Test
    void aDeadlineShorterThanTheOutageCannotRideItOut() throws IOException {
        // The backoff alone would reach 8 s; the deadline stops every attempt before it.
        Path file = policy(RIDES_OUT.replace("deadline: 30s", "deadline: 6s"));
        assertEquals(1, check("--strict", "--outage", "8s", file.toString()));
        assertTrue(out().contains("NO: the 6s deadline ends retries before the 8s outage does"), out());
        Map<String, Object> outage = object(rule(json("--json", "--outage", "8s", file.toString()), 0).get("outage"));
        assertEquals(false, outage.get("bestCase"));
        assertEquals(false, outage.get("ridesOut"));
    }

    @Test
    void aRuleOnlyTheLuckiestDrawsGetThroughIsStillANo() throws IOException {
        // Waits up to 1 + 2 + 4 s: the longest draws start the last attempt at 10 s, the median one near 6.5 s.
        Path file = policy("version: 1\ndefaults:\n  maxAttempts: 4\n  backoff: { base: 1s, cap: 8s }\n"
                + "  deadline: 30s\n  retryAfter: { max: 20s }\n");
        assertEquals(1, check("--strict", "--outage", "8s", file.toString()));
        assertTrue(out().contains("NO in the median call"), out());
        Map<String, Object> outage = object(rule(json("--json", "--outage", "8s", file.toString()), 0).get("outage"));
        assertEquals(true, outage.get("bestCase"));
        assertEquals(false, outage.get("medianCase"));
        double share = (Double) outage.get("shareOfCalls");
        assertTrue(share > 0 && share < 0.5, outage.toString());
    }

    // ---- the figures -----------------------------------------------------------------------------------------

    @Test
    void longestIsExactAndScalesWithTheStatedAttemptTime() throws IOException {
        Path file = policy(CLEAN);
        Map<String, Object> d = rule(json("--json", file.toString()), 0);
        // Built-in backoff: waits up to 100 + 200 ms; three attempts of the assumed 1 s.
        assertEquals(3300L, object(d.get("longest")).get("millis"));
        assertEquals(3L, d.get("mostAttempts"));
        Map<String, Object> doc = json("--json", "--attempt-time", "2s", file.toString());
        assertEquals(6300L, object(rule(doc, 0).get("longest")).get("millis"));
        assertEquals(true, object(doc.get("assumptions")).get("attemptTimeStated"));
        assertEquals(0, check("--attempt-time=2s", file.toString()));
        assertTrue(out().contains("each attempt takes 2s (--attempt-time)"), out());
        assertEquals(0, check(file.toString()));
        assertTrue(out().contains("each attempt takes 1s (an assumption: state yours with --attempt-time)"), out());
    }

    @Test
    void withoutJitterTheMedianIsTheLongest() throws IOException {
        Path file = policy("version: 1\ndefaults:\n  maxAttempts: 4\n  backoff: { base: 100ms, cap: 1s, jitter: none }\n");
        Map<String, Object> d = rule(json("--json", "--attempt-time", "0ms", file.toString()), 0);
        assertEquals(700L, object(d.get("longest")).get("millis"));
        assertEquals(700L, object(d.get("median")).get("millis"));
    }

    @Test
    void theDeadlineBoundsTheLongestCall() throws IOException {
        // Waits up to 2 + 4 + 8 + 8 s would start the last attempt at 26 s; the 5 s deadline stops that.
        Path file = policy("version: 1\ndefaults:\n  maxAttempts: 5\n  backoff: { base: 2s, cap: 8s }\n"
                + "  deadline: 5s\n  retryAfter: { max: 2s }\n");
        Map<String, Object> longest = object(rule(json("--json", file.toString()), 0).get("longest"));
        assertEquals(true, longest.get("deadlineBound"));
        assertEquals(6000L, longest.get("millis")); // starts just before 5 s, takes the 1 s attempt time
        assertEquals(0, check(file.toString()));
        assertTrue(out().contains("the last starting just before the 5s deadline"), out());
    }

    @Test
    void theSameFileGivesTheSameFigures() throws IOException {
        Path file = policy(CLASSIC);
        check("--json", "--outage", "8s", file.toString());
        String first = out();
        check("--json", "--outage", "8s", file.toString());
        assertEquals(first, out());
    }

    @Test
    void eachRuleSaysWhatItRetriesAndItsMatch() throws IOException {
        Path file = policy(CLEAN + "rules:\n"
                + "  - match: { host: \"payments.internal\", methods: [POST] }\n    maxAttempts: 2\n"
                + "  - match: { host: \"reports.internal\" }\n    mode: off\n");
        assertEquals(0, check(file.toString()), err());
        String text = out();
        assertTrue(text.contains("rule #1 (line 5): host payments.internal, methods POST"), text);
        assertTrue(text.contains("methods POST only with header Idempotency-Key"), text);
        assertTrue(text.contains("statuses 408, 429, 502, 503, 504; failures connect, reset, timeout"), text);
        assertTrue(text.contains("at most 2 per call (1 retry)"), text);
        Map<String, Object> doc = json("--json", file.toString());
        Map<String, Object> payments = rule(doc, 1);
        assertEquals("payments.internal", object(payments.get("match")).get("host"));
        assertEquals(List.of("POST"), object(payments.get("match")).get("methods"));
        assertEquals(5L, payments.get("line"));
        Map<String, Object> reports = rule(doc, 2);
        assertEquals("off", reports.get("mode"));
        assertEquals(false, reports.get("retriesNow"));
        assertEquals(1L, reports.get("mostAttempts"));
        assertNull(reports.get("longest"));
    }

    @Test
    void eachRuleSaysWhetherARequestThatNeverLeftIsRetriedWhateverItsMethod() throws IOException {
        Path file = policy(CLEAN + "rules:\n"
                + "  - match: { host: \"orders.internal\", methods: [POST] }\n    idempotencyKeyHeaders: []\n"
                + "  - match: { host: \"ledger.internal\", methods: [POST] }\n    idempotencyKeyHeaders: []\n"
                + "    retryUnsent: false\n");
        check(file.toString());
        String text = out();
        assertTrue(text.contains("methods POST if it never left (not idempotent, no key header)"), text);
        assertTrue(text.contains("methods POST never (not idempotent, no key header)"), text);
        assertTrue(text.contains("any other only with header Idempotency-Key or if it never left"), text);
        assertTrue(text.contains("[idempotencyKeyHeaders] the rule matches only POST, none idempotent, and names no "
                + "idempotency key header: it retries only a request that never left"), text);
        assertTrue(text.contains("it never retries"), text);
        Map<String, Object> doc = json("--json", file.toString());
        assertEquals(true, object(rule(doc, 1).get("retries")).get("retryUnsent"));
        assertEquals(false, object(rule(doc, 2).get("retries")).get("retryUnsent"));
    }

    @Test
    void eachRuleSaysWhatItDoesInsideAnSdksRetryLoop() throws IOException {
        Path file = policy(CLEAN + "rules:\n"
                + "  - match: { host: \"search.internal\" }\n    upperLayers: retry\n"
                + "  - match: { host: \"reports.internal\" }\n    mode: off\n");
        assertEquals(0, check(file.toString()), err());
        String text = out();
        String defaults = text.substring(text.indexOf("defaults"), text.indexOf("rule #1"));
        String search = text.substring(text.indexOf("rule #1"), text.indexOf("rule #2"));
        assertTrue(defaults.contains("upperLayers  defer: inside an SDK's or a library's own retry loop, the outcomes"
                + " it retries are left to it"), defaults);
        assertTrue(search.contains("upperLayers  retry: "), search);
        assertFalse(text.substring(text.indexOf("rule #2")).contains("upperLayers"), "mode off: nothing to say");
        Map<String, Object> doc = json("--json", file.toString());
        assertEquals("retry", rule(doc, 1).get("upperLayers"));
        assertEquals("defer", rule(doc, 0).get("upperLayers"));
    }

    // ---- the attempt time ------------------------------------------------------------------------------------

    @Test
    void aRuleWithAnAttemptTimeoutIsFiguredWithItWhateverAttemptTimeIsStated() throws IOException {
        Path file = policy(CLEAN + "  maxAttempts: 3\n  backoff: { base: 100ms, cap: 2s, jitter: none }\n"
                + "  deadline: 5s\nrules:\n  - match: { host: \"legacy.internal\" }\n    attemptTimeout: 500ms\n");
        assertEquals(0, check("--attempt-time", "3s", file.toString()), err());
        String text = out();
        String defaults = text.substring(text.indexOf("defaults (calls"), text.indexOf("rule #1 (line"));
        String legacy = text.substring(text.indexOf("rule #1 (line"));
        assertTrue(defaults.contains("attempt      3s each (--attempt-time)"), defaults);
        // without attemptTimeout a 3 s attempt leaves room for 2 in 5 s; with it, 3 x 500 ms + 100 + 200 ms of waits
        assertTrue(legacy.contains("attempt      at most 500ms each (attemptTimeout)"), legacy);
        assertTrue(legacy.contains("time         longest 1.8s (3 attempts x 500ms + 300ms of waits)"), legacy);
        assertTrue(text.contains("note: calls may hang (the defaults): without attemptTimeout"), text);
        assertFalse(text.contains("rule 1)"), "the rule sets attemptTimeout: " + text);

        Map<String, Object> doc = json("--json", "--attempt-time", "3s", file.toString());
        assertEquals("attempt-time", rule(doc, 0).get("attemptTimeFrom"));
        assertEquals(3000L, rule(doc, 0).get("attemptMillis"));
        assertNull(rule(doc, 0).get("attemptTimeoutMillis"));
        assertEquals("attemptTimeout", rule(doc, 1).get("attemptTimeFrom"));
        assertEquals(500L, rule(doc, 1).get("attemptMillis"));
        assertEquals(1800L, object(rule(doc, 1).get("longest")).get("millis"));
    }

    @Test
    void anEnforcedDeadlineEndsTheLastAttemptInTheFigures() throws IOException {
        Path file = policy(CLEAN + "  maxAttempts: 3\n  backoff: { base: 100ms, cap: 2s, jitter: none }\n"
                + "  deadline: { after: 2500ms, enforce: true }\n");
        Map<String, Object> doc = json("--json", "--attempt-time", "1s", file.toString());
        // attempts at 0, 1.1 s and 2.3 s; the third is cut at the deadline instead of running to 3.3 s
        assertEquals(2500L, object(rule(doc, 0).get("longest")).get("millis"));
        assertEquals(3L, object(rule(doc, 0).get("longest")).get("attempts"));
        assertFalse(String.valueOf(doc.get("notes")).contains("calls may hang"), doc.toString());
    }

    @Test
    void aDeadlineThatLeavesNoRoomAfterOneAttemptTimeoutIsAWarning() throws IOException {
        Path never = policy(CLEAN + "  attemptTimeout: 2s\n  deadline: 2s\n");
        assertEquals(0, check(never.toString()), err());
        assertTrue(out().contains("[deadline] deadline 2s is not longer than one attemptTimeout (2s) plus the shortest "
                + "first wait (0ms): an attempt that runs to its limit (a dependency that hangs) is never retried"), out());

        Path tight = policy(CLEAN + "  attemptTimeout: 1950ms\n  deadline: 2s\n");
        assertEquals(0, check(tight.toString()), err());
        assertTrue(out().contains("[attemptTimeout] deadline 2s is shorter than one attemptTimeout (1.95s) plus the "
                + "first wait (up to 100ms): after an attempt that runs to its limit, a retry happens only when the wait "
                + "drawn is under 50ms"), out());
        assertEquals(List.of("attemptTimeout"), warningKeys(rule(json("--json", tight.toString()), 0)));

        Path roomy = policy(CLEAN + "  attemptTimeout: 500ms\n  deadline: 2s\n");
        assertEquals(0, check(roomy.toString()), err());
        assertTrue(out().contains("result: valid, no warnings"), out());
    }

    // ---- warnings --------------------------------------------------------------------------------------------

    static Stream<Arguments> mistakes() {
        String d = "version: 1\ndefaults:\n  retryAfter: { max: 5s }\n";
        return Stream.of(
                Arguments.of("backoff.jitter", d + "  backoff: { jitter: none }\n"),
                Arguments.of("retryOn.statuses", d + "  retryOn: { statuses: [404, 503] }\n"),
                Arguments.of("maxAttempts", d + "  maxAttempts: 6\n"),
                Arguments.of("backoff.cap", d + "  backoff: { base: 1s, cap: 1100ms, jitter: decorrelated }\n"),
                Arguments.of("backoff.cap", d + "  backoff: { base: 1s, cap: 1s, jitter: decorrelated }\n"),
                Arguments.of("backoff.base", d + "  backoff: { base: 5ms }\n"),
                Arguments.of("retryAfter.spread", "version: 1\ndefaults:\n  retryAfter: { max: 5s, spread: 0.05 }\n"),
                Arguments.of("retryAfter.honor", "version: 1\ndefaults:\n  retryAfter: { honor: false }\n"),
                Arguments.of("deadline", d + "  backoff: { base: 200ms, jitter: equal }\n  deadline: 100ms\n"),
                Arguments.of("deadline", d.replace("5s", "500ms") + "  deadline: 1s\n"),
                Arguments.of("budget", d + "  budget: { ratio: 0, minPerSecond: 0 }\n"),
                Arguments.of("idempotentMethods", d + "  idempotentMethods: [GET, POST]\n"),
                Arguments.of("retryOn", d + "  retryOn: { statuses: [], failures: [] }\n"),
                Arguments.of("idempotencyKeyHeaders", d + "  idempotencyKeyHeaders: []\n"
                        + "rules:\n  - match: { host: \"a.internal\", methods: [POST] }\n    maxAttempts: 2\n"),
                Arguments.of("match", d + "rules:\n  - match: { host: \"a.internal\" }\n    maxAttempts: 2\n"
                        + "  - match: { host: \"a.internal\", methods: [GET] }\n    maxAttempts: 3\n"),
                Arguments.of("marker.enabled", d + "marker: { enabled: false }\n"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mistakes")
    void eachMistakeIsAWarningThatStrictRefuses(String key, String yaml) throws IOException {
        Path file = policy(yaml);
        Map<String, Object> doc = json("--json", file.toString());
        List<String> keys = new ArrayList<>(warningKeys(doc));
        for (Object section : array(doc.get("rules"))) {
            keys.addAll(warningKeys(object(section)));
        }
        assertTrue(keys.contains(key), key + " not among " + keys + " for\n" + yaml);
        assertEquals(0, check(file.toString()), err());
        assertTrue(out().contains("[" + key + "]"), out());
        assertEquals(1, check("--strict", file.toString()), out());
        assertEquals(1L, object(MiniJson.parse(jsonText("--json", "--strict", file.toString()))).get("exitCode"));
    }

    private String jsonText(String... args) {
        check(args);
        return out();
    }

    @Test
    void theCleanPolicyAndTheNotesAreNoWarnings() throws IOException {
        assertEquals(0, check("--strict", policy(CLEAN).toString()), out());
        assertTrue(out().contains("result: valid, no warnings"), out());
        // observe, off and builtInRetries keep are noted, not warned about: staging rolls out this way.
        Path file = policy("version: 1\nmode: observe\nbuiltInRetries: keep\ndefaults:\n  retryAfter: { max: 5s }\n"
                + "rules:\n  - match: { host: \"r.internal\" }\n    mode: off\n"
                + "    backoff: { jitter: none }\n    maxAttempts: 9\n");
        assertEquals(0, check("--strict", file.toString()), out());
        assertTrue(out().contains("note         mode observe: no retry and no marker yet"), out());
        assertTrue(out().contains("note         mode off: the agent leaves these calls alone"), out());
        assertTrue(out().contains("note: builtInRetries keep"), out());
        assertTrue(out().contains("1 per call now (observe); once enforced, at most 3 per call"), out());
    }

    @Test
    void theBuiltInDefaultsPassStrict() throws IOException {
        // retryAfter.max 30s against a 10s deadline is noted: the deadline is the real limit, and that is safe.
        assertEquals(0, check("--strict", policy("version: 1\n").toString()), out());
        assertTrue(out().contains("note         retryAfter.max 30s is not below the deadline 10s"), out());
    }

    @Test
    void aWarningARuleInheritsIsCountedOnce() throws IOException {
        Path file = policy("version: 1\ndefaults:\n  retryAfter: { max: 5s }\n  backoff: { jitter: none }\n"
                + "rules:\n  - match: { host: \"a.internal\" }\n    maxAttempts: 2\n");
        Map<String, Object> doc = json("--json", file.toString());
        assertEquals(1L, doc.get("warningCount"));
        Map<String, Object> inherited = object(array(rule(doc, 1).get("warnings")).get(0));
        assertEquals("backoff.jitter", inherited.get("key"));
        assertEquals(true, inherited.get("inherited"));
        check(file.toString());
        assertTrue(out().contains("[backoff.jitter] as in defaults (counted there)"), out());
        assertTrue(out().contains("result: valid, 1 warning"), out());
    }

    // ---- JSON ------------------------------------------------------------------------------------------------

    @Test
    void jsonIsOneDocumentWithEveryRule() throws IOException {
        Path file = policy(CLEAN + "rules:\n  - match: { host: \"*.partner.example\", path: \"/v1/**\" }\n"
                + "    maxAttempts: 5\n    backoff: { base: 1s, cap: 8s }\n    deadline: 30s\n");
        assertEquals(0, check("--json", "--outage", "8s", file.toString()), err());
        Map<String, Object> doc = object(MiniJson.parse(out()));
        assertEquals(file.toString(), doc.get("file"));
        assertEquals(true, doc.get("valid"));
        assertEquals(List.of(), doc.get("errors"));
        assertEquals(8000L, object(doc.get("assumptions")).get("outageMillis"));
        assertEquals("enforce", object(doc.get("policy")).get("mode"));
        assertEquals(2, array(doc.get("rules")).size());
        Map<String, Object> partner = rule(doc, 1);
        assertEquals("rule #1", partner.get("name"));
        assertEquals(0L, partner.get("index"));
        assertEquals("/v1/**", object(partner.get("match")).get("path"));
        assertEquals(5L, partner.get("maxAttempts"));
        assertEquals(2.0, object(partner.get("backoff")).get("multiplier"));
        assertEquals(List.of(408L, 429L, 502L, 503L, 504L), object(partner.get("retries")).get("statuses"));
        assertEquals(true, object(partner.get("outage")).get("ridesOut"));
        for (Object section : array(doc.get("rules"))) {
            for (String key : List.of("name", "mode", "retries", "maxAttempts", "mostAttempts", "longest", "median",
                    "retryAfter", "budget", "outage", "warnings", "notes")) {
                assertTrue(object(section).containsKey(key), key + " missing in " + section);
            }
        }
    }

    @Test
    void jsonOfAnInvalidFileListsEveryErrorAndExitsTwo() throws IOException {
        Path file = policy("version: 1\ndefaults:\n  maxAttempts: 0\n  deadline: soon\n");
        assertEquals(2, check("--json", file.toString()));
        Map<String, Object> doc = object(MiniJson.parse(out()));
        assertEquals(false, doc.get("valid"));
        assertEquals(2L, doc.get("exitCode"));
        List<Object> errors = array(doc.get("errors"));
        assertEquals(2, errors.size());
        Map<String, Object> first = object(errors.get(0));
        assertEquals(file.toString(), first.get("file"));
        assertEquals(3L, first.get("line"));
        assertEquals("defaults.maxAttempts", first.get("key"));
        assertFalse(((String) first.get("message")).isEmpty());
        assertEquals("defaults.deadline", object(errors.get(1)).get("key"));
    }

    @Test
    void jsonEscapesFileNamesAndMessages() throws IOException {
        // ASCII only: whether a non-ASCII file name can exist depends on the machine's locale; the writer test covers those.
        Path file = dir.resolve("we\"ird\\n\tame.yaml");
        Files.writeString(file, CLEAN);
        assertEquals(0, check("--json", file.toString()), err());
        String text = out();
        for (char c : text.toCharArray()) {
            assertTrue(c == '\n' || (c >= 0x20 && c < 0x7f), "not printable ASCII: " + (int) c);
        }
        assertEquals(file.toString(), object(MiniJson.parse(text)).get("file"));
    }

    @Test
    void theJsonWriterRoundTripsEveryCharacter() {
        StringBuilder all = new StringBuilder();
        for (char c = 0; c < 0x500; c++) {
            all.append(c);
        }
        all.append("\ud800 lone surrogate, \ud83d\ude00 pair, \u2028\u2029 separators, \uffff");
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("s", all.toString());
        doc.put("n", List.of(1L, -2L, 2.5, Long.MAX_VALUE));
        doc.put("empty", List.of());
        doc.put("none", null);
        doc.put("nested", Map.of("k", List.of(Map.of("a", true))));
        doc.put("nan", Double.NaN);
        Map<String, Object> back = object(MiniJson.parse(JsonWriter.write(doc)));
        assertEquals(all.toString(), back.get("s"));
        assertEquals(List.of(1L, -2L, 2.5, Long.MAX_VALUE), back.get("n"));
        assertEquals(List.of(), back.get("empty"));
        assertTrue(back.containsKey("none"));
        assertNull(back.get("none"));
        assertEquals(List.of(Map.of("a", true)), object(back.get("nested")).get("k"));
        assertNull(back.get("nan"));
    }

    @Test
    void theTestParserRejectsWhatIsNotJson() {
        // The round trips above prove something only if the parser is strict.
        for (String bad : List.of("{\"a\":1,}", "[1,]", "{'a':1}", "\"a\tb\"", "\"\\x\"", "NaN", "{} x", "01",
                "{\"a\":1,\"a\":2}", "\"\\u12\"")) {
            assertThrows(IllegalArgumentException.class, () -> MiniJson.parse(bad), bad);
        }
    }

    // ---- exit codes ------------------------------------------------------------------------------------------

    @Test
    void exitCodes() throws IOException {
        assertEquals(0, check(policy(CLEAN).toString()));
        assertEquals(1, check("--strict", policy(CLEAN + "  maxAttempts: 7\n").toString()));
        assertEquals(0, check(policy(CLEAN + "  maxAttempts: 7\n").toString()));
        assertEquals(2, check(policy("version: 2\n").toString()));
        assertTrue(err().contains(":1: version:"), err());
        assertEquals(2, check("--strict", dir.resolve("missing.yaml").toString()));
        assertTrue(err().contains("missing.yaml:1: (file): policy file not found"), err());
    }

    static Stream<Arguments> usageErrors() {
        return Stream.of(
                Arguments.of(List.of("--frobnicate", "p.yaml"), "unknown option --frobnicate"),
                Arguments.of(List.of("--outage", "8", "p.yaml"), "--outage needs a duration, such as 2s or 500ms, not \"8\""),
                Arguments.of(List.of("--attempt-time=fast", "p.yaml"), "--attempt-time needs a duration"),
                Arguments.of(List.of("p.yaml", "--outage"), "--outage needs a duration"),
                Arguments.of(List.of("--outage", "0s", "p.yaml"), "--outage needs a duration above 0"),
                Arguments.of(List.of("--strict"), "no policy file given"),
                Arguments.of(List.of(), "no policy file given"),
                Arguments.of(List.of("a.yaml", "b.yaml"), "one policy file at a time"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("usageErrors")
    void usageErrorsExit64WithOneLine(List<String> args, String message) {
        assertEquals(64, check(args.toArray(new String[0])));
        String text = err();
        assertEquals(1, text.lines().count(), text);
        assertTrue(text.startsWith("retry-agent check: " + message), text);
        assertTrue(text.contains("usage: java -jar retry-agent.jar check [--attempt-time D]"), text);
        assertEquals("", out());
    }

    @Test
    void helpExitsZero() {
        assertEquals(0, check("--help"));
        assertTrue(out().contains("--outage D"), out());
        assertNotNull(out());
    }
}
