package dev.retryagent.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@code match.client} accepts HttpClient 4's name, and a rule for it matches its calls only. */
class HttpClient4ClientNameTest {
    @Test
    void aRuleForApacheHttpClient4MatchesItsCallsOnly() throws PolicyException {
        assertTrue(ClientNames.ALL.contains("apache-httpclient4"));
        Policy p = PolicyLoader.parse("""
                version: 1
                rules:
                  - match: { client: apache-httpclient4 }
                    maxAttempts: 5
                """, "clients.yaml");
        assertEquals(5, p.settingsFor("apache-httpclient4", "GET", "a.internal", 80, "/").maxAttempts());
        assertEquals(3, p.settingsFor("apache-httpclient5", "GET", "a.internal", 80, "/").maxAttempts());
    }
}
