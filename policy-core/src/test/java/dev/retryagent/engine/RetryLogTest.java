package dev.retryagent.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.reflect.InvocationTargetException;
import java.security.AccessControlException;
import java.security.PrivilegedActionException;
import java.util.ArrayList;
import java.util.List;
import java.util.PropertyPermission;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link RetryLog#internalError}: a security policy's refusal is one line naming the permission, once per place. */
class RetryLogTest {
    private final List<LogRecord> records = new ArrayList<>();
    private Handler capture;
    private Level levelBefore;
    private boolean parentsBefore;

    @BeforeEach
    void capture() {
        Logger logger = RetryLog.logger();
        levelBefore = logger.getLevel();
        parentsBefore = logger.getUseParentHandlers();
        logger.setUseParentHandlers(false);
        capture = LogCapture.capture(Level.ALL, records::add);
    }

    @AfterEach
    void release() {
        Logger logger = RetryLog.logger();
        logger.removeHandler(capture);
        logger.setUseParentHandlers(parentsBefore);
        logger.setLevel(levelBefore);
    }

    private static AccessControlException denied(String property) {
        PropertyPermission permission = new PropertyPermission(property, "read");
        return new AccessControlException("access denied " + permission, permission);
    }

    @Test
    void aRefusalNamesThePermissionOnceWithoutATrace() {
        RetryLog.internalError("test.denied", denied("a.b"), "the call proceeds without retries");
        RetryLog.internalError("test.denied", denied("c.d"), "the call proceeds without retries");

        assertEquals(1, records.size());
        assertEquals(Level.WARNING, records.get(0).getLevel());
        assertEquals("retry-agent permission-missing where=test.denied permission=(\"java.util.PropertyPermission\""
                + " \"a.b\" \"read\"); the call proceeds without retries", records.get(0).getMessage());
        assertNull(records.get(0).getThrown());
    }

    @Test
    void aRefusalInsideAPrivilegedBlockOrReflectionIsFoundUnderItsWrappers() {
        RetryLog.internalError("test.privileged", new PrivilegedActionException(
                new InvocationTargetException(denied("e.f"))), "no metrics; retries go on");
        RetryLog.internalError("test.wrapped", new IllegalStateException("lookup", denied("g.h")));

        assertEquals(List.of(
                "retry-agent permission-missing where=test.privileged permission=(\"java.util.PropertyPermission\""
                        + " \"e.f\" \"read\"); no metrics; retries go on",
                "retry-agent permission-missing where=test.wrapped permission=(\"java.util.PropertyPermission\""
                        + " \"g.h\" \"read\"); the call proceeds without retries"),
                records.stream().map(LogRecord::getMessage).toList());
    }

    @Test
    void anyOtherErrorIsAnInternalErrorWithItsTrace() {
        RetryLog.internalError("test.bug", new IllegalStateException("x"));
        RetryLog.internalError("test.other-security", new SecurityException("prohibited package name"));

        assertEquals(List.of(
                "retry-agent internal-error where=test.bug error=java.lang.IllegalStateException;"
                        + " the call proceeds without retries",
                "retry-agent internal-error where=test.other-security error=java.lang.SecurityException;"
                        + " the call proceeds without retries"),
                records.stream().map(LogRecord::getMessage).toList());
        assertNotNull(records.get(0).getThrown());
    }
}
