package dev.retryagent.agent.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.policy.Mode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

class AgentConfigTest {
    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    private static Map<String, String> env(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void defaultsWithoutAnySetting() {
        AgentConfig c = AgentConfig.resolve(null, props("user.home", "/x"), env("PATH", "/bin"));
        assertNull(c.policy());
        assertNull(c.mode());
        assertEquals(Level.INFO, c.logLevel());
        assertEquals(List.of(), c.warnings());
    }

    @Test
    void agentArgumentsWinOverSystemPropertiesWhichWinOverEnvironment() {
        AgentConfig c = AgentConfig.resolve("policy=/a.yaml,mode=observe",
                props("retry.agent.policy", "/b.yaml", "retry.agent.mode", "off", "retry.agent.log", "debug"),
                env("RETRY_AGENT_POLICY", "/c.yaml", "RETRY_AGENT_LOG", "warn", "RETRY_AGENT_MODE", "enforce"));
        assertEquals("/a.yaml", c.policy());
        assertEquals(Mode.OBSERVE, c.mode());
        assertEquals(Level.FINE, c.logLevel());
        assertEquals(List.of(), c.warnings());

        c = AgentConfig.resolve(null, props(), env("RETRY_AGENT_POLICY", "/c.yaml", "RETRY_AGENT_LOG", "off"));
        assertEquals("/c.yaml", c.policy());
        assertEquals(Level.OFF, c.logLevel());
    }

    @Test
    void environmentNamesAreUpperCaseWithUnderscores() {
        assertEquals("RETRY_AGENT_POLICY", AgentConfig.envName("policy"));
        assertEquals("RETRY_AGENT_A_B_C", AgentConfig.envName("a.b-c"));
    }

    @Test
    void theTestFaultSwitchIsNoSetting() {
        // Its system property is read by InjectedFaults alone: no warning here; as an agent argument it is unknown.
        AgentConfig c = AgentConfig.resolve("test.failAt=all",
                props("retry.agent.test.failAt", "all"), env("RETRY_AGENT_TEST_FAILAT", "all"));
        List<String> w = c.warnings();
        assertEquals(2, w.size(), w.toString());
        assertTrue(w.stream().anyMatch(s -> s.contains("key=test.failAt") && s.contains("source=agent-argument")
                && s.contains("unknown key")), w.toString());
        assertTrue(w.stream().anyMatch(s -> s.contains("key=RETRY_AGENT_TEST_FAILAT")), w.toString());
    }

    @Test
    void unknownKeysAndInvalidValuesAreWarningsThatNameTheKey() {
        AgentConfig c = AgentConfig.resolve("polcy=/a.yaml,mode=sometimes,log=loud,justaword",
                props("retry.agent.colour", "red", "retry.agent.mode", "observe"),
                env("RETRY_AGENT_FOO", "1"));
        assertNull(c.policy());
        assertEquals(Mode.OBSERVE, c.mode(), "the invalid argument is ignored, the next source applies");
        assertEquals(Level.INFO, c.logLevel());
        List<String> w = c.warnings();
        assertEquals(6, w.size(), w.toString());
        assertTrue(w.stream().anyMatch(s -> s.contains("key=polcy") && s.contains("unknown key")), w.toString());
        assertTrue(w.stream().anyMatch(s -> s.contains("key=mode") && s.contains("'sometimes'")), w.toString());
        assertTrue(w.stream().anyMatch(s -> s.contains("key=log") && s.contains("'loud'")), w.toString());
        assertTrue(w.stream().anyMatch(s -> s.contains("key=justaword") && s.contains("not a key=value")), w.toString());
        assertTrue(w.stream().anyMatch(s -> s.contains("key=retry.agent.colour")), w.toString());
        assertTrue(w.stream().anyMatch(s -> s.contains("key=RETRY_AGENT_FOO")), w.toString());
        assertTrue(w.stream().allMatch(s -> s.startsWith("config-warning key=")), w.toString());
    }

    @Test
    void valuesAreTrimmedAndModesAndLevelsAreCaseInsensitive() {
        AgentConfig c = AgentConfig.resolve(" policy = /p.yaml , mode=OFF, log=Debug ", props(), env());
        assertEquals("/p.yaml", c.policy());
        assertEquals(Mode.OFF, c.mode());
        assertEquals(Level.FINE, c.logLevel());
        assertEquals(List.of(), c.warnings());
    }
}
