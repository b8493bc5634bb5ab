package dev.retryagent.agent.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

class AgentLoggingTest {
    @Test
    void everyRecordIsOneLineStartingWithTheAgentName() {
        LogRecord r = new LogRecord(Level.WARNING, "something\nspans\r\nlines");
        String line = AgentLogging.format(r, false);
        assertEquals("retry-agent something spans  lines", line);
        r = new LogRecord(Level.INFO, "retry-agent retry client=okhttp");
        assertEquals("retry-agent retry client=okhttp", AgentLogging.format(r, false));
    }

    @Test
    void aThrowableAddsItsTypeAndFramesButNeverItsMessage() {
        LogRecord r = new LogRecord(Level.WARNING, "retry-agent internal-error where=x");
        r.setThrown(new IllegalStateException("Authorization: Bearer secret"));
        String debug = AgentLogging.format(r, true);
        assertTrue(debug.startsWith("retry-agent internal-error where=x trace=java.lang.IllegalStateException@"), debug);
        assertFalse(debug.contains("secret"), debug);
        assertFalse(debug.contains("\n"), debug);
        assertEquals("retry-agent internal-error where=x", AgentLogging.format(r, false));
    }
}
