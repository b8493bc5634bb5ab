package dev.retryagent.policy;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The methods a rule counts as idempotent, as the engine asks about them on every call: in any case. */
class MethodSetTest {
    @Test
    void holdsItsMethodsInAnyCaseAndNoOthers() {
        MethodSet set = new MethodSet(Arrays.asList("GET", "put", "Patch", "PROPFIND"));
        for (String method : new String[] {"GET", "get", "PUT", "Put", "PATCH", "patch", "PROPFIND", "propfind"}) {
            assertTrue(set.contains(method), method);
        }
        for (String method : new String[] {"POST", "post", "HEAD", "DELETE", "OPTIONS", "TRACE", "CONNECT", "MKCOL",
                "mkcol", "", "GETX"}) {
            assertFalse(set.contains(method), method);
        }
    }

    @Test
    void aUnionHoldsTheMethodsOfBoth() {
        MethodSet union = new MethodSet(new MethodSet(Arrays.asList("GET", "MKCOL")), new MethodSet(Arrays.asList("post")));
        assertTrue(union.contains("get"));
        assertTrue(union.contains("POST"));
        assertTrue(union.contains("mkcol"));
        assertFalse(union.contains("PUT"));
    }

    @Test
    void settingsAnswerTheirIdempotentMethodsThroughIt() {
        RetrySettings settings = RetrySettings.builtIn().toBuilder().idempotentMethods(Arrays.asList("get", "POST")).build();
        assertTrue(settings.isIdempotentMethod("GET"));
        assertTrue(settings.isIdempotentMethod("post"));
        assertFalse(settings.isIdempotentMethod("PUT"));
    }
}
