package dev.retryagent.agent.clients.httpclient4;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.LibraryClassFiles;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HttpClient4InstrumentationTest {
    private final HttpClient4Instrumentation instrumentation = new HttpClient4Instrumentation();

    /**
     * The hooked methods exist, with these exact descriptors and not abstract, in the HttpClient 4.5 and
     * HttpAsyncClient 4.1 the agent compiles against (4.5.6 and 4.1.3); the integration tests run them against
     * 4.5.14 and 4.1.5 too.
     */
    @Test
    void everyHookPointNamesARealMethod() {
        List<HookPoint> points = instrumentation.hookPoints();
        assertEquals(7, points.size());
        for (HookPoint point : points) {
            assertEquals(point.hook().equals(HttpClient4Hooks.REQUEST_EXECUTE) ? HookPoint.Where.ENTRY
                    : HookPoint.Where.ENTRY_MAY_REPLACE, point.where(), point.toString());
            Set<String> methods = LibraryClassFiles.concreteMethods(point.internalName().replace('/', '.')).keySet();
            assertTrue(methods.contains(point.methodName() + point.descriptor()), point + " not found in " + methods);
        }
        assertEquals("apache-httpclient4", instrumentation.name());
    }

    /** The private field the retry elements are skipped through is there, of the chain's type. */
    @Test
    void theRetryElementsHoldTheElementTheyWrapInTheFieldTheAdapterReads() throws Exception {
        for (String element : List.of(HttpClient4Instrumentation.RETRY_EXEC,
                HttpClient4Instrumentation.SERVICE_UNAVAILABLE_EXEC)) {
            Class<?> type = Class.forName(element);
            assertEquals(org.apache.http.impl.execchain.ClientExecChain.class,
                    type.getDeclaredField(HttpClient4Requests.NEXT_FIELD).getType(), element);
        }
    }
}
