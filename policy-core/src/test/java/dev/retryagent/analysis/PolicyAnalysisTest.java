package dev.retryagent.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.engine.Backoff;
import dev.retryagent.policy.BackoffPolicy;
import dev.retryagent.policy.Jitter;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.PolicyException;
import dev.retryagent.policy.PolicyLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The analysis itself; what {@code check} prints of it is tested with the command in the agent module. */
class PolicyAnalysisTest {
    private static PolicyAnalysis analyse(String yaml, long outageMillis) throws PolicyException {
        Policy policy = PolicyLoader.parseContent(yaml.getBytes(StandardCharsets.UTF_8), "test.yaml");
        return PolicyAnalysis.of(policy, PolicyAnalysis.DEFAULT_ATTEMPT_MILLIS, false, outageMillis);
    }

    private static List<String> keys(List<Finding> findings) {
        List<String> keys = new ArrayList<String>();
        for (Finding finding : findings) {
            keys.add(finding.key());
        }
        return keys;
    }

    @ParameterizedTest
    @EnumSource(Jitter.class)
    void theWaitBoundsAreTheEnginesBackoffs(Jitter jitter) {
        BackoffPolicy policy = new BackoffPolicy(100, 2000, 2.0, jitter);
        Backoff backoff = Backoff.of(policy);
        Timeline t = Timeline.of(6, policy, Long.MAX_VALUE / 2, 0, false, false);
        double longest = 0;
        for (int retry = 1; retry < 6; retry++) {
            longest = backoff.longestWait(retry, longest);
            assertEquals((long) backoff.shortestWait(retry), t.minWait[retry], jitter + " retry " + retry);
            assertEquals((long) longest, t.supWait[retry], jitter + " retry " + retry);
        }
    }

    @ParameterizedTest
    @EnumSource(Jitter.class)
    void theSampledCallsStayWithinTheBounds(Jitter jitter) {
        Timeline t = Timeline.of(5, new BackoffPolicy(100, 2000, 2.0, jitter), 10_000, 200, false, true);
        assertTrue(t.medianStartMillis() <= t.latestStartMillis(), jitter.toString());
        assertTrue(t.medianAttempts() <= t.longestAttempts(), jitter.toString());
        assertEquals(0.0, t.shareStartingFrom(t.latestStartMillis() + 1), jitter.toString());
    }

    @Test
    void theChecksWarnInTheirOrder() throws PolicyException {
        PolicyAnalysis a = analyse("version: 1\ndefaults:\n  maxAttempts: 8\n"
                + "  backoff: { base: 1ms, cap: 5ms, jitter: none }\n  budget: { ratio: 0, minPerSecond: 0 }\n", -1);
        Section defaults = a.sections().get(0);
        assertEquals("defaults", defaults.name());
        assertNull(defaults.rule());
        assertEquals(List.of("maxAttempts", "backoff.jitter", "budget"), keys(defaults.warnings()));
        assertEquals(3, a.warningCount());
    }

    @Test
    void aRuleInheritsTheDefaultsWarningsButCountsNone() throws PolicyException {
        PolicyAnalysis a = analyse("version: 1\ndefaults:\n  maxAttempts: 8\nrules:\n"
                + "  - match: { host: a.example }\n", -1);
        Section rule = a.sections().get(1);
        assertEquals("rule #1", rule.name());
        assertEquals(List.of("maxAttempts"), keys(rule.warnings()));
        assertTrue(rule.warnings().get(0).inherited());
        assertEquals(1, a.warningCount());
    }

    @Test
    void anOutageTheRetriesCannotOutlastHasASuggestion() throws PolicyException {
        PolicyAnalysis a = analyse("version: 1\ndefaults:\n  maxAttempts: 3\n  backoff: { base: 100ms, cap: 1s }\n",
                8000);
        Outage o = a.sections().get(0).outage();
        assertEquals(false, o.medianCase());
        assertTrue(keys(a.sections().get(0).warnings()).contains("outage"));
        Suggestion s = o.suggestion();
        assertTrue(s.timeline().medianStartMillis() >= 8000, s.changed().toString());
        assertTrue(s.maxAttempts() <= PolicyAnalysis.MAX_REASONABLE_ATTEMPTS);
    }

    @Test
    void durationsSharesAndListsReadAsWritten() {
        assertEquals("700ms", Human.duration(700));
        assertEquals("3.3s", Human.duration(3300));
        assertEquals("2m30s", Human.duration(150_000));
        assertEquals("<1%", Human.percent(0.001));
        assertEquals("25%", Human.percent(0.25));
        assertEquals("a, b", Human.join(List.of("a", "b")));
    }
}
