package dev.retryagent.policy;

import static dev.retryagent.policy.PolicyAssertions.assertSpecDefaults;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

class GlobAndMatchTest {

    @Test
    void hostStarMatchesWithinOneLabelIgnoringCase() {
        Glob g = Glob.host("*.partner.example");
        assertTrue(g.matches("a.partner.example"));
        assertTrue(g.matches("eu-west-1.partner.example"));
        assertTrue(g.matches("A.Partner.EXAMPLE"));
        assertFalse(g.matches("a.b.partner.example"));
        assertFalse(g.matches("partner.example"));
        assertFalse(g.matches("a.partner.example.evil"));
        assertFalse(g.matches("apartner.example"));
        assertFalse(g.matches(null));
    }

    @Test
    void hostStarInTheMiddleOfALabel() {
        Glob g = Glob.host("api-*.internal");
        assertTrue(g.matches("api-1.internal"));
        assertTrue(g.matches("API-blue.Internal"));
        assertFalse(g.matches("api-1.eu.internal"));
        assertFalse(g.matches("web-1.internal"));
        Glob any = Glob.host("*");
        assertTrue(any.matches("localhost"));
        assertFalse(any.matches("a.b"));
    }

    @Test
    void literalHostIsCaseInsensitiveAndExact() {
        Glob g = Glob.host("Payments.Internal");
        assertEquals("payments.internal", g.pattern());
        assertTrue(g.matches("payments.internal"));
        assertTrue(g.matches("PAYMENTS.INTERNAL"));
        assertFalse(g.matches("payments.internal.example"));
        assertFalse(g.matches("xpayments.internal"));
    }

    @Test
    void pathDoubleStarCrossesSegments() {
        Glob g = Glob.path("/v1/sync/**");
        assertTrue(g.matches("/v1/sync/a/b"));
        assertTrue(g.matches("/v1/sync/a"));
        assertTrue(g.matches("/v1/sync/"));
        assertFalse(g.matches("/v1/syncx/a"));
        assertFalse(g.matches("/v2/sync/a"));
        assertFalse(g.matches("/V1/sync/a"), "paths are case-sensitive");
        assertTrue(Glob.path("/**").matches("/any/thing/at/all"));
        assertTrue(Glob.path("/a/**/z").matches("/a/b/c/z"));
        assertTrue(Glob.path("/a/**/z").matches("/a/z"), "** also matches no segment");
        assertFalse(Glob.path("/a/**/z").matches("/a/b/c/y"));
        assertTrue(g.matches("/v1/sync"), "/v1/sync/** covers /v1/sync itself");
        assertTrue(Glob.path("/**/x/**/y").matches("/a/x/b/x/c/y"), "backtracks past an early x");
    }

    @Test
    void wildcardHeavyPatternsMatchWithoutBacktrackingBlowUp() {
        // With naive recursive backtracking this pair takes seconds; the two-pointer walk is linear-ish.
        String label = "a".repeat(200);
        assertFalse(Glob.host("a*a*a*a*a*a*a*a*a*b").matches(label + ".example"));
        assertTrue(Glob.host("a*a*a*a*a*a*a*a*a*a.example").matches(label + ".example"));
        String deepPath = "/a".repeat(200);
        assertFalse(Glob.path("/**/a/**/a/**/a/**/a/**/b").matches(deepPath));
        assertTrue(Glob.path("/**/a/**/a/**/a/**/a/**").matches(deepPath));
    }

    @Test
    void pathSingleStarStaysWithinASegment() {
        Glob g = Glob.path("/v1/*/x");
        assertTrue(g.matches("/v1/a/x"));
        assertTrue(g.matches("/v1/abc-def/x"));
        assertFalse(g.matches("/v1/a/b/x"));
        assertFalse(g.matches("/v1/a/x/y"));
        Glob suffix = Glob.path("/items/*.json");
        assertTrue(suffix.matches("/items/42.json"));
        assertFalse(suffix.matches("/items/a/42.json"));
    }

    @Test
    void matchChecksEveryGivenKey() {
        Match m = new Match("*.internal", 8443, "/api/**", Set.of("get", "PUT"), "okhttp");
        assertTrue(m.matches("okhttp", "GET", "a.internal", 8443, "/api/x"));
        assertTrue(m.matches("okhttp", "PUT", "a.internal", 8443, "/api/x/y"));
        assertFalse(m.matches("apache-httpclient5", "GET", "a.internal", 8443, "/api/x"), "client");
        assertFalse(m.matches("okhttp", "POST", "a.internal", 8443, "/api/x"), "method");
        assertFalse(m.matches("okhttp", "GET", "a.external", 8443, "/api/x"), "host");
        assertFalse(m.matches("okhttp", "GET", "a.internal", 443, "/api/x"), "port");
        assertFalse(m.matches("okhttp", "GET", "a.internal", 8443, "/web/x"), "path");
    }

    @Test
    void omittedMatchKeysMatchAnything() {
        Match port = new Match(null, 9000, null, Set.of(), null);
        assertTrue(port.matches("httpurlconnection", "DELETE", "anything", 9000, "/x"));
        assertFalse(port.matches("httpurlconnection", "DELETE", "anything", 9001, "/x"));
        Match client = new Match(null, -1, null, Set.of(), "httpurlconnection");
        assertTrue(client.matches("httpurlconnection", "GET", "h", 1, "/"));
        assertFalse(client.matches("okhttp", "GET", "h", 1, "/"));
        assertTrue(Match.any().matches("okhttp", "PATCH", "h", 1, "/"));
    }

    @Test
    void parsedMatchesRouteCallsAndTheFirstMatchingRuleWins() throws Exception {
        Policy p = PolicyLoader.parse("""
                version: 1
                rules:
                  - match: { host: "payments.internal", methods: [POST] }
                    maxAttempts: 2
                  - match: { host: "*.internal", port: 8443 }
                    maxAttempts: 4
                  - match: { host: "payments.internal" }
                    maxAttempts: 5
                  - match: { client: apache-httpclient5 }
                    maxAttempts: 6
                  - match: { path: "/v1/*/x" }
                    maxAttempts: 7
                """, "routes.yaml");
        assertEquals(0, p.ruleFor("okhttp", "POST", "payments.internal", 8443, "/").index());
        assertEquals(2, p.settingsFor("okhttp", "POST", "payments.internal", 8443, "/").maxAttempts());
        assertEquals(4, p.settingsFor("okhttp", "GET", "payments.internal", 8443, "/").maxAttempts());
        assertEquals(5, p.settingsFor("okhttp", "GET", "payments.internal", 443, "/").maxAttempts());
        assertEquals(4, p.settingsFor("apache-httpclient5", "GET", "PAYMENTS.internal", 8443, "/").maxAttempts());
        assertEquals(6, p.settingsFor("apache-httpclient5", "GET", "other.example", 443, "/v1/a/x").maxAttempts());
        assertEquals(7, p.settingsFor("okhttp", "GET", "other.example", 443, "/v1/a/x").maxAttempts());
        assertNull(p.ruleFor("okhttp", "GET", "other.example", 443, "/v1/a/b/x"));
        assertSame(p.defaults(), p.settingsFor("okhttp", "GET", "other.example", 443, "/v1/a/b/x"));
        assertEquals(2, p.rules().get(2).index());
        assertEquals(7, p.rules().get(2).line());
    }

    @Test
    void builtInPolicyIsExactlyTheSpecDefaults() {
        Policy p = Policy.builtIn();
        assertEquals("(built-in)", p.source());
        assertEquals(1, p.version());
        assertEquals(Mode.ENFORCE, p.mode());
        assertEquals(BuiltInRetries.REPLACE, p.builtInRetries());
        assertEquals("Retry-Attempt", p.markerHeader());
        assertTrue(p.rules().isEmpty());

        assertSpecDefaults(p.defaults());
        assertSame(p, Policy.builtIn());
    }

    private static Policy modes() throws PolicyException {
        return PolicyLoader.parse("""
                version: 1
                mode: enforce
                rules:
                  - match: { host: "off.internal" }
                    mode: off
                  - match: { host: "observe.internal" }
                    mode: observe
                  - match: { host: "enforce.internal" }
                    mode: enforce
                  - match: { host: "plain.internal" }
                    maxAttempts: 2
                """, "modes.yaml");
    }

    private static Mode modeFor(Policy p, String host) {
        return p.effectiveMode(p.settingsFor("okhttp", "GET", host, 443, "/"));
    }

    @Test
    void withoutOverrideARulesOwnModeWins() throws Exception {
        Policy p = modes();
        assertEquals(Mode.OFF, modeFor(p, "off.internal"));
        assertEquals(Mode.OBSERVE, modeFor(p, "observe.internal"));
        assertEquals(Mode.ENFORCE, modeFor(p, "enforce.internal"));
        assertEquals(Mode.ENFORCE, modeFor(p, "plain.internal"));
        assertEquals(Mode.ENFORCE, modeFor(p, "elsewhere"));

        Policy observed = PolicyLoader.parse("version: 1\nmode: observe\nrules:\n  - match: {host: e}\n    mode: enforce\n", "x");
        assertEquals(Mode.ENFORCE, modeFor(observed, "e"), "a rule's enforce beats the file's observe");
        assertEquals(Mode.OBSERVE, modeFor(observed, "other"));
    }

    @Test
    void theFilesOwnModeOffIsAKillSwitchThatNoRuleOverrides() throws Exception {
        Policy off = PolicyLoader.parse("version: 1\nmode: off\nrules:\n  - match: {host: e}\n    mode: enforce\n"
                + "  - match: {host: o}\n    mode: observe\n", "x");
        assertEquals(Mode.OFF, modeFor(off, "e"));
        assertEquals(Mode.OFF, modeFor(off, "o"));
        assertEquals(Mode.OFF, modeFor(off, "other"));
    }

    @Test
    void offAndObserveOverridesApplyToEveryRule() throws Exception {
        Policy p = modes();
        for (Mode override : new Mode[] {Mode.OFF, Mode.OBSERVE}) {
            Policy o = p.withModeOverride(override);
            assertEquals(override, o.mode());
            for (String host : List.of("off.internal", "observe.internal", "enforce.internal", "plain.internal", "x")) {
                assertEquals(override, modeFor(o, host), override + " for " + host);
            }
            assertEquals(p.rules().size(), o.rules().size());
            assertSame(p.defaults(), o.defaults());
        }
        assertEquals(Mode.OFF, modeFor(p, "off.internal"), "the original policy is unchanged");
        assertEquals(Mode.ENFORCE, p.mode());
    }

    @Test
    void enforceOverrideReplacesOnlyTheTopLevelMode() throws Exception {
        Policy off = PolicyLoader.parse("""
                version: 1
                mode: off
                rules:
                  - match: { host: "off.internal" }
                    mode: off
                  - match: { host: "observe.internal" }
                    mode: observe
                  - match: { host: "plain.internal" }
                    maxAttempts: 2
                """, "x");
        assertEquals(Mode.OFF, modeFor(off, "plain.internal"));
        Policy o = off.withModeOverride(Mode.ENFORCE);
        assertEquals(Mode.ENFORCE, o.mode());
        assertEquals(Mode.ENFORCE, modeFor(o, "plain.internal"));
        assertEquals(Mode.ENFORCE, modeFor(o, "elsewhere"));
        assertEquals(Mode.OFF, modeFor(o, "off.internal"), "a rule that says off keeps it");
        assertEquals(Mode.OBSERVE, modeFor(o, "observe.internal"), "a rule that says observe keeps it");
        assertEquals(o.source(), off.source());
        assertEquals(o.markerHeader(), off.markerHeader());
        assertEquals(o.builtInRetries(), off.builtInRetries());
    }

    @Test
    void methodsAreStoredUpperCase() throws Exception {
        Policy p = PolicyLoader.parse("version: 1\nrules:\n  - match: { methods: [post, Patch] }\n    maxAttempts: 2\n", "x");
        assertEquals(Set.of("POST", "PATCH"), p.rules().get(0).match().methods());
        assertEquals(2, p.settingsFor("okhttp", "POST", "h", 1, "/").maxAttempts());
        assertEquals(3, p.settingsFor("okhttp", "GET", "h", 1, "/").maxAttempts());
    }
}
