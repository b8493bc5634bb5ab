package dev.retryagent.agent.clients.httpclient5;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.bootloader.weaving.HookPoint;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.junit.jupiter.api.Test;

class HttpClient5InstrumentationTest {
    private final HttpClient5Instrumentation instrumentation = new HttpClient5Instrumentation();

    /**
     * The hooked methods exist, with these exact descriptors and not abstract, in the HttpClient the agent
     * compiles against (5.2, the oldest); the integration tests run them against 5.6 too.
     */
    @Test
    void everyHookPointNamesARealMethod() throws IOException {
        List<HookPoint> points = instrumentation.hookPoints();
        assertEquals(7, points.size());
        for (HookPoint point : points) {
            Set<String> methods = concreteMethodsOf(point.internalName());
            assertTrue(methods.contains(point.methodName() + point.descriptor()), point + " not found in " + methods);
        }
        assertEquals("apache-httpclient5", instrumentation.name());
    }

    private static Set<String> concreteMethodsOf(String internalName) throws IOException {
        Set<String> methods = new HashSet<>();
        try (InputStream in = HttpClientBuilder.class.getClassLoader().getResourceAsStream(internalName + ".class")) {
            new ClassReader(in).accept(new ClassVisitor(Opcodes.ASM9) {
                @Override
                public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                                 String[] exceptions) {
                    if ((access & Opcodes.ACC_ABSTRACT) == 0) {
                        methods.add(name + descriptor);
                    }
                    return null;
                }
            }, ClassReader.SKIP_CODE);
        }
        return methods;
    }
}
