package dev.retryagent.policy;

import static dev.retryagent.policy.PolicyAssertions.assertSamePolicy;
import static dev.retryagent.policy.PolicyAssertions.assertSameSettings;
import static dev.retryagent.policy.PolicyAssertions.assertSpecDefaults;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PolicyLoaderTest {
    /** A full policy file, as docs/reference.md#the-policy-file writes one. */
    static final String SPEC_EXAMPLE = """
            version: 1
            mode: enforce                 # enforce | observe (decide and report, never retry) | off
            builtInRetries: replace       # replace: the agent is the only retry layer | keep
            marker:
              header: Retry-Attempt       # sent on every attempt the agent makes: 1, 2, 3 ...
            defaults:
              maxAttempts: 3              # attempts in all, the first included; 1 means never retry
              backoff: { base: 100ms, cap: 2s, multiplier: 2.0, jitter: full }   # full | equal | decorrelated | none
              deadline: 10s               # no new attempt starts, and no wait reaches, past this since the call began
              upperLayers: defer          # defer | retry: a call inside an SDK's own retry loop is sent once
              retryOn:
                statuses: [408, 429, 502, 503, 504]
                failures: [connect, reset, timeout]
              retryAfter: { honor: true, max: 30s, spread: 0.5 }
              idempotentMethods: [GET, HEAD, OPTIONS, TRACE, PUT, DELETE]
              idempotencyKeyHeaders: [Idempotency-Key]
              budget: { ratio: 0.1, minPerSecond: 10 }
            rules:                        # first match wins; a rule's fields override the defaults, key by key
              - match: { host: "payments.internal", methods: [POST] }
                maxAttempts: 2
              - match: { host: "*.partner.example", path: "/v1/sync/**" }
                backoff: { base: 1s, cap: 60s }
              - match: { host: "reports.internal" }
                mode: off
            """;

    @Test
    void specExampleParsesToExactlyTheExpectedModel() throws Exception {
        Policy p = PolicyLoader.parse(SPEC_EXAMPLE, "prod.yaml");

        assertEquals("prod.yaml", p.source());
        assertEquals(1, p.version());
        assertEquals(Mode.ENFORCE, p.mode());
        assertEquals(BuiltInRetries.REPLACE, p.builtInRetries());
        assertEquals("Retry-Attempt", p.markerHeader());

        RetrySettings d = p.defaults();
        assertSpecDefaults(d);

        assertEquals(3, p.rules().size());

        Rule payments = p.rules().get(0);
        assertEquals(0, payments.index());
        assertEquals(19, payments.line());
        assertEquals("payments.internal", payments.match().host().pattern());
        assertEquals(Set.of("POST"), payments.match().methods());
        assertEquals(-1, payments.match().port());
        assertNull(payments.match().path());
        assertNull(payments.match().client());
        // Only maxAttempts changes; everything else is the defaults'.
        assertSameSettings(d.toBuilder().maxAttempts(2).build(), payments.settings());
        assertEquals(2, payments.settings().maxAttempts());
        assertNull(payments.settings().mode());

        Rule partner = p.rules().get(1);
        assertEquals(1, partner.index());
        assertEquals(21, partner.line());
        assertEquals("*.partner.example", partner.match().host().pattern());
        assertEquals("/v1/sync/**", partner.match().path().pattern());
        assertTrue(partner.match().methods().isEmpty());
        // base and cap change, multiplier and jitter stay those of the defaults: sub-key by sub-key.
        BackoffPolicy b = partner.settings().backoff();
        assertEquals(1000, b.baseMillis());
        assertEquals(60_000, b.capMillis());
        assertEquals(2.0, b.multiplier());
        assertEquals(Jitter.FULL, b.jitter());
        assertSameSettings(d.toBuilder().backoff(new BackoffPolicy(1000, 60_000, 2.0, Jitter.FULL)).build(),
                partner.settings());

        Rule reports = p.rules().get(2);
        assertEquals(23, reports.line());
        assertEquals("reports.internal", reports.match().host().pattern());
        assertEquals(Mode.OFF, reports.settings().mode());
        assertSameSettings(d.toBuilder().mode(Mode.OFF).build(), reports.settings());
        assertEquals(Mode.OFF, p.effectiveMode(reports.settings()));
        assertEquals(Mode.ENFORCE, p.effectiveMode(payments.settings()));

        // The rules route calls as the SPEC says.
        assertEquals(2, p.settingsFor("okhttp", "POST", "payments.internal", 443, "/charge").maxAttempts());
        assertEquals(3, p.settingsFor("okhttp", "GET", "payments.internal", 443, "/charge").maxAttempts());
        assertEquals(60_000, p.settingsFor("okhttp", "GET", "eu.partner.example", 443, "/v1/sync/a/b")
                .backoff().capMillis());
        assertEquals(2000, p.settingsFor("okhttp", "GET", "eu.partner.example", 443, "/v2/sync/a")
                .backoff().capMillis());
        assertEquals(Mode.OFF, p.settingsFor("okhttp", "GET", "reports.internal", 80, "/").mode());
    }

    @Test
    void specExampleIsTheBuiltInPolicyPlusItsRules() throws Exception {
        Policy p = PolicyLoader.parse(SPEC_EXAMPLE, "prod.yaml");
        Policy builtIn = Policy.builtIn();
        assertEquals(builtIn.mode(), p.mode());
        assertEquals(builtIn.builtInRetries(), p.builtInRetries());
        assertEquals(builtIn.markerHeader(), p.markerHeader());
        assertSameSettings(builtIn.defaults(), p.defaults());
    }

    @Test
    void onlyVersionEqualsTheBuiltInPolicy() throws Exception {
        Policy p = PolicyLoader.parse("version: 1\n", "min.yaml");
        assertSamePolicy(Policy.builtIn(), p);
        assertTrue(p.rules().isEmpty());
        assertEquals("min.yaml", p.source());
    }

    @Test
    void emptyMappingsChangeNothing() throws Exception {
        Policy p = PolicyLoader.parse("version: 1\nmarker: {}\ndefaults: {}\nrules: []\n", "x.yaml");
        assertSamePolicy(Policy.builtIn(), p);
    }

    @Test
    void markerCanBeDisabled() throws Exception {
        Policy p = PolicyLoader.parse("version: 1\nmarker: {enabled: false}\n", "x.yaml");
        assertNull(p.markerHeader());
        assertSameSettings(RetrySettings.builtIn(), p.defaults());
    }

    @Test
    void markerHeaderCanBeRenamedAndEnabledExplicitly() throws Exception {
        assertEquals("X-Retry-N", PolicyLoader.parse("version: 1\nmarker:\n  header: X-Retry-N\n", "x").markerHeader());
        assertEquals("Retry-Attempt", PolicyLoader.parse("version: 1\nmarker: {enabled: true}\n", "x").markerHeader());
        assertNull(PolicyLoader.parse("version: 1\nmarker: {header: X-A, enabled: false}\n", "x").markerHeader());
    }

    @Test
    void topLevelKeys() throws Exception {
        Policy p = PolicyLoader.parse("version: 1\nmode: observe\nbuiltInRetries: keep\n", "x");
        assertEquals(Mode.OBSERVE, p.mode());
        assertEquals(BuiltInRetries.KEEP, p.builtInRetries());
        assertEquals(Mode.OFF, PolicyLoader.parse("version: 1\nmode: off\n", "x").mode());
    }

    @Test
    void defaultsOverrideTheBuiltInKeyByKeyAndSubKeyBySubKey() throws Exception {
        Policy p = PolicyLoader.parse("""
                version: 1
                defaults:
                  backoff: { jitter: decorrelated }
                  retryOn: { statuses: [503] }
                  retryAfter: { max: 5s }
                  budget: { minPerSecond: 0 }
                """, "x");
        RetrySettings builtIn = RetrySettings.builtIn();
        RetrySettings expected = builtIn.toBuilder()
                .backoff(builtIn.backoff().withJitter(Jitter.DECORRELATED))
                .retryStatuses(StatusSet.of(503))
                .retryAfter(builtIn.retryAfter().withMaxMillis(5000))
                .budget(builtIn.budget().withMinPerSecond(0))
                .build();
        assertSameSettings(expected, p.defaults());
        // retryOn.failures was not named, so it keeps the built-in kinds.
        assertEquals(EnumSet.of(FailureKind.CONNECT, FailureKind.RESET, FailureKind.TIMEOUT),
                p.defaults().retryFailures());
    }

    @Test
    void upperLayersDefersByDefaultAndARuleMayRetry() throws Exception {
        Policy p = PolicyLoader.parse("""
                version: 1
                rules:
                  - match: { host: search.internal }
                    upperLayers: retry
                  - match: { host: s3.internal }
                    maxAttempts: 2
                """, "x");
        assertEquals(UpperLayers.DEFER, Policy.builtIn().defaults().upperLayers());
        assertEquals(UpperLayers.DEFER, p.defaults().upperLayers());
        assertEquals(UpperLayers.RETRY, p.rules().get(0).settings().upperLayers());
        assertEquals(UpperLayers.DEFER, p.rules().get(1).settings().upperLayers(), "inherited from the defaults");

        Policy retrying = PolicyLoader.parse("version: 1\ndefaults:\n  upperLayers: retry\nrules:\n"
                + "  - match: { host: a }\n    maxAttempts: 2\n", "x");
        assertEquals(UpperLayers.RETRY, retrying.rules().get(0).settings().upperLayers());
    }

    @Test
    void attemptTimeoutAndTheEnforcedDeadlineAreReadPerRule() throws Exception {
        assertEquals(0, Policy.builtIn().defaults().attemptTimeoutMillis(), "none by default");
        assertFalse(Policy.builtIn().defaults().boundsAttempts());
        Policy p = PolicyLoader.parse("""
                version: 1
                defaults:
                  deadline: { after: 5s, enforce: true }
                rules:
                  - match: { host: legacy.internal }
                    attemptTimeout: 500ms
                    deadline: 2s
                  - match: { host: other.internal }
                    deadline: { enforce: false }
                  - match: { host: plain.internal }
                    maxAttempts: 2
                """, "x");
        RetrySettings d = p.defaults();
        assertEquals(5_000, d.deadlineMillis());
        assertTrue(d.deadlineEnforced());
        assertTrue(d.boundsAttempts());
        RetrySettings legacy = p.rules().get(0).settings();
        assertEquals(500, legacy.attemptTimeoutMillis());
        assertEquals(2_000, legacy.deadlineMillis());
        assertTrue(legacy.deadlineEnforced(), "the plain form changes the time, not enforce");
        RetrySettings other = p.rules().get(1).settings();
        assertFalse(other.deadlineEnforced());
        assertEquals(5_000, other.deadlineMillis(), "after inherited");
        assertFalse(other.boundsAttempts());
        assertTrue(p.rules().get(2).settings().boundsAttempts(), "inherited from the defaults");
        assertEquals(0, p.rules().get(2).settings().attemptTimeoutMillis());
    }

    @Test
    void attemptTimeoutAndDeadlineShapesAreChecked() {
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.parse(
                "version: 1\ndefaults:\n  attemptTimeout: 0s\n  deadline: { after: 5s, enforced: true }\n"
                        + "rules:\n  - match: { host: a }\n    attemptTimeout: 2\n", "f.yaml"));
        String[] lines = e.getMessage().split("\n");
        assertEquals(3, lines.length, e.getMessage());
        assertTrue(lines[0].startsWith("f.yaml:3: defaults.attemptTimeout: ") && lines[0].contains("above 0"),
                lines[0]);
        assertTrue(lines[1].startsWith("f.yaml:4: defaults.deadline.enforced: "), lines[1]);
        assertTrue(lines[2].startsWith("f.yaml:7: rules[0].attemptTimeout: ") && lines[2].contains("unit"),
                lines[2]);
    }

    @Test
    void rulesOverrideTheResolvedDefaultsNotTheBuiltIn() throws Exception {
        Policy p = PolicyLoader.parse("""
                version: 1
                defaults:
                  maxAttempts: 5
                  backoff: { base: 200ms, cap: 5s, multiplier: 3, jitter: equal }
                  retryAfter: { honor: false, max: 10s, spread: 1 }
                  budget: { ratio: 0.2, minPerSecond: 3 }
                  retryOn: { statuses: [503], failures: [connect] }
                rules:
                  - match: { host: a.internal }
                    backoff: { cap: 10s }
                    retryAfter: { spread: 2.5 }
                    budget: { ratio: 0.5 }
                    retryOn: { failures: [timeout, reset] }
                    deadline: 1m
                  - match: { host: b.internal }
                    idempotentMethods: [get, Post]
                    idempotencyKeyHeaders: [X-Request-Id, Idempotency-Key]
                """, "x");
        RetrySettings d = p.defaults();
        assertEquals(5, d.maxAttempts());
        assertEquals(3.0, d.backoff().multiplier());

        RetrySettings a = p.rules().get(0).settings();
        assertEquals(5, a.maxAttempts());
        assertEquals(200, a.backoff().baseMillis());
        assertEquals(10_000, a.backoff().capMillis());
        assertEquals(3.0, a.backoff().multiplier());
        assertEquals(Jitter.EQUAL, a.backoff().jitter());
        assertFalse(a.retryAfter().honor());
        assertEquals(10_000, a.retryAfter().maxMillis());
        assertEquals(2.5, a.retryAfter().spread());
        assertEquals(0.5, a.budget().ratio());
        assertEquals(3, a.budget().minPerSecond());
        assertArrayEquals(new int[] {503}, a.retryStatuses().codes());
        assertEquals(EnumSet.of(FailureKind.RESET, FailureKind.TIMEOUT), a.retryFailures());
        assertEquals(60_000, a.deadlineMillis());

        RetrySettings b = p.rules().get(1).settings();
        assertEquals(List.of("GET", "POST"), new ArrayList<>(b.idempotentMethods()));
        assertEquals(List.of("X-Request-Id", "Idempotency-Key"), b.idempotencyKeyHeaders());
        assertSameSettings(d.toBuilder().idempotentMethods(List.of("GET", "POST"))
                .idempotencyKeyHeaders(List.of("X-Request-Id", "Idempotency-Key")).build(), b);
    }

    @Test
    void matchKeysAreAllRead() throws Exception {
        Policy p = PolicyLoader.parse("""
                version: 1
                rules:
                  - match:
                      host: API.Internal
                      port: 8443
                      path: /v1/*/items
                      methods: [get, put]
                      client: okhttp
                    maxAttempts: 4
                """, "x");
        Match m = p.rules().get(0).match();
        assertEquals("api.internal", m.host().pattern());
        assertEquals(8443, m.port());
        assertEquals("/v1/*/items", m.path().pattern());
        assertEquals(Set.of("GET", "PUT"), m.methods());
        assertEquals("okhttp", m.client());
        assertEquals(4, p.settingsFor("okhttp", "GET", "api.internal", 8443, "/v1/x/items").maxAttempts());
        assertEquals(3, p.settingsFor("okhttp", "GET", "api.internal", 8443, "/v1/x/y/items").maxAttempts());
    }

    @Test
    void yamlSpellingsOfValuesAreAccepted() throws Exception {
        Policy p = PolicyLoader.parse("""
                version: 1
                mode: Observe
                marker: {enabled: False}
                defaults:
                  maxAttempts: 0x4
                  backoff: { base: "0ms", cap: 1h, multiplier: 1 }
                  deadline: '90s'
                  retryAfter: { honor: TRUE, spread: 0 }
                  budget: { ratio: 1, minPerSecond: 0 }
                  idempotentMethods: []
                  idempotencyKeyHeaders: []
                  retryOn: { statuses: [], failures: [] }
                """, "x");
        assertEquals(Mode.OBSERVE, p.mode());
        assertNull(p.markerHeader());
        RetrySettings d = p.defaults();
        assertEquals(4, d.maxAttempts());
        assertEquals(0, d.backoff().baseMillis());
        assertEquals(3_600_000, d.backoff().capMillis());
        assertEquals(1.0, d.backoff().multiplier());
        assertEquals(90_000, d.deadlineMillis());
        assertTrue(d.retryAfter().honor());
        assertEquals(0.0, d.retryAfter().spread());
        assertEquals(1.0, d.budget().ratio());
        assertTrue(d.idempotentMethods().isEmpty());
        assertTrue(d.idempotencyKeyHeaders().isEmpty());
        assertEquals(0, d.retryStatuses().codes().length);
        assertTrue(d.retryFailures().isEmpty());
    }

    @Test
    void loadsAFileAndNamesItInErrors(@TempDir Path dir) throws Exception {
        Path good = dir.resolve("good.yaml");
        Files.write(good, SPEC_EXAMPLE.getBytes(StandardCharsets.UTF_8));
        Policy p = PolicyLoader.load(good);
        assertEquals(good.toString(), p.source());
        assertEquals(3, p.rules().size());

        Path bad = dir.resolve("bad.yaml");
        Files.write(bad, "version: 1\ndefaults:\n  maxAttempts: 0\n".getBytes(StandardCharsets.UTF_8));
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.load(bad));
        assertEquals(1, e.errors().size());
        PolicyError error = e.errors().get(0);
        assertEquals(bad.toString(), error.file());
        assertEquals(3, error.line());
        assertEquals("defaults.maxAttempts", error.key());
        assertEquals(bad + ":3: defaults.maxAttempts: " + error.message(), error.toString());
        assertEquals(error.toString(), e.getMessage());
    }

    @Test
    void unreadableFilesAreReportedAsPolicyExceptions(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("missing.yaml");
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.load(missing));
        assertEquals("(file)", e.errors().get(0).key());
        assertEquals(1, e.errors().get(0).line());
        assertTrue(e.getMessage().contains("not found"), e.getMessage());

        e = assertThrows(PolicyException.class, () -> PolicyLoader.load(dir));
        assertTrue(e.getMessage().contains("directory"), e.getMessage());

        Path latin1 = dir.resolve("latin1.yaml");
        Files.write(latin1, "version: 1\n# caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
        e = assertThrows(PolicyException.class, () -> PolicyLoader.load(latin1));
        assertEquals(2, e.errors().get(0).line());
        assertTrue(e.getMessage().contains("UTF-8"), e.getMessage());

        e = assertThrows(PolicyException.class, () -> PolicyLoader.load(null));
        assertEquals(1, e.errors().size());
        e = assertThrows(PolicyException.class, () -> PolicyLoader.parse(null, "x"));
        assertEquals(1, e.errors().size());
    }

    @Test
    void aFifoInPlaceOfTheFileIsAnErrorNotAHang(@TempDir Path dir) throws Exception {
        Path fifo = dir.resolve("policy.yaml");
        Process mkfifo;
        try {
            mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        } catch (java.io.IOException e) {
            org.junit.jupiter.api.Assumptions.abort("no mkfifo here: " + e.getMessage());
            return;
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(mkfifo.waitFor() == 0, "mkfifo failed");
        // No writer ever opens the FIFO: opening it for reading would block for good.
        PolicyException e = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                java.time.Duration.ofSeconds(30),
                () -> assertThrows(PolicyException.class, () -> PolicyLoader.read(fifo)));
        assertEquals("(file)", e.errors().get(0).key());
        assertTrue(e.getMessage().contains("not a regular file"), e.getMessage());
    }

    @Test
    void readAndParseContentAreLoadInTwoSteps(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("p.yaml");
        Files.write(file, "version: 1\ndefaults:\n  maxAttempts: 4\n".getBytes(StandardCharsets.UTF_8));
        byte[] content = PolicyLoader.read(file);
        assertEquals(4, PolicyLoader.parseContent(content, file.toString()).defaults().maxAttempts());
        PolicyException e = assertThrows(PolicyException.class,
                () -> PolicyLoader.parseContent("version: 1\nmode: sometimes\n".getBytes(StandardCharsets.UTF_8), "x.yaml"));
        assertEquals("x.yaml:2: mode: " + e.errors().get(0).message(), e.errors().get(0).toString());
        e = assertThrows(PolicyException.class,
                () -> PolicyLoader.parseContent(new byte[PolicyLoader.MAX_FILE_BYTES + 1], "big.yaml"));
        assertTrue(e.getMessage().contains("too large"), e.getMessage());
    }

    @Test
    void aByteOrderMarkIsAccepted() throws Exception {
        assertEquals(1, PolicyLoader.parse("\uFEFFversion: 1\n", "bom.yaml").version());
    }

    @Test
    void fileSizeLimitIs64KiB(@TempDir Path dir) throws Exception {
        StringBuilder sb = new StringBuilder("version: 1\n");
        while (sb.length() < PolicyLoader.MAX_FILE_BYTES - 20) {
            sb.append("# padding padding padding padding padding padding padding\n");
        }
        String atLimit = sb.substring(0, PolicyLoader.MAX_FILE_BYTES - 1) + "\n";
        assertEquals(PolicyLoader.MAX_FILE_BYTES, atLimit.length());
        assertEquals(1, PolicyLoader.parse(atLimit, "x").version());
        Path file = dir.resolve("limit.yaml");
        Files.write(file, atLimit.getBytes(StandardCharsets.US_ASCII));
        assertEquals(1, PolicyLoader.load(file).version());

        Path over = dir.resolve("over.yaml");
        Files.write(over, (atLimit + "#").getBytes(StandardCharsets.US_ASCII));
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.load(over));
        assertEquals(1, e.errors().size());
        assertEquals("(file)", e.errors().get(0).key());
        assertTrue(e.getMessage().contains("65537 bytes") && e.getMessage().contains("65536"), e.getMessage());
    }

    @Test
    void exceptionListsEveryErrorOnItsOwnLine() {
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.parse(
                "version: 1\ndefaults:\n  maxAttempts: 0\n  deadline: 5\n", "f.yaml"));
        assertEquals(2, e.errors().size());
        String[] lines = e.getMessage().split("\n");
        assertEquals(2, lines.length);
        assertTrue(lines[0].startsWith("f.yaml:3: defaults.maxAttempts: "), lines[0]);
        assertTrue(lines[1].startsWith("f.yaml:4: defaults.deadline: "), lines[1]);
    }

    @Test
    void everyExamplePolicyFileLoads() throws IOException, PolicyException {
        Path examples = Paths.get("..", "examples");
        assertTrue(Files.isDirectory(examples), "missing " + examples.toAbsolutePath());
        List<String> loaded = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(examples, "*.{yaml,yml}")) {
            for (Path file : files) {
                Policy p = PolicyLoader.load(file);
                assertEquals(1, p.version(), file.toString());
                loaded.add(file.getFileName().toString());
            }
        }
        assertTrue(loaded.containsAll(List.of("dev.yaml", "staging.yaml", "prod.yaml")), loaded.toString());
    }
}
