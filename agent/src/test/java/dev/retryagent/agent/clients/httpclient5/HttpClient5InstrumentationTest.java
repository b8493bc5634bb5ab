package dev.retryagent.agent.clients.httpclient5;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.LibraryClassFiles;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HttpClient5InstrumentationTest {
    private final HttpClient5Instrumentation instrumentation = new HttpClient5Instrumentation();

    /**
     * The hooked methods exist, with these exact descriptors and not abstract, in the HttpClient the agent
     * compiles against (5.2, the oldest); the integration tests run them against 5.6 too.
     */
    @Test
    void everyHookPointNamesARealMethod() {
        List<HookPoint> points = instrumentation.hookPoints();
        assertEquals(7, points.size());
        for (HookPoint point : points) {
            Set<String> methods = LibraryClassFiles.concreteMethods(point.internalName().replace('/', '.')).keySet();
            assertTrue(methods.contains(point.methodName() + point.descriptor()), point + " not found in " + methods);
        }
        assertEquals("apache-httpclient5", instrumentation.name());
    }
}
