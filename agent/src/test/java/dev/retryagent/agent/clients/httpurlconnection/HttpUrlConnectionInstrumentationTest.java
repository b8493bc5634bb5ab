package dev.retryagent.agent.clients.httpurlconnection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.retryagent.agent.ClassFileMembers;
import dev.retryagent.agent.bootloader.httpurlconnection.HttpUrlConnectionHooks;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.agent.bootloader.weaving.HookTransformer;
import dev.retryagent.agent.bootloader.weaving.HookWeaver;
import dev.retryagent.agent.bootloader.weaving.OneClassLoader;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import org.junit.jupiter.api.Test;

/**
 * The HttpURLConnection hook points against the JDK's own class files (the running JDK's, and Java 17's and
 * Java 25's when installed: {@link JdkClassFiles}), the weaving of that {@code java.base} class, and the module
 * edges {@code prepare} adds. The forked-JVM integration tests run the real thing on both JDKs.
 */
class HttpUrlConnectionInstrumentationTest {
    private static final String HTTP = "sun.net.www.protocol.http.HttpURLConnection";
    private static final String HTTPS_WRAPPER = "sun.net.www.protocol.https.HttpsURLConnectionImpl";
    private static final String HTTPS_DELEGATE = "sun.net.www.protocol.https.DelegateHttpsURLConnection";
    private static final String HTTPS_ABSTRACT_DELEGATE = "sun.net.www.protocol.https.AbstractDelegateHttpsURLConnection";

    private final HttpUrlConnectionInstrumentation instrumentation = new HttpUrlConnectionInstrumentation();

    @Test
    void describesTheClient() {
        assertEquals("httpurlconnection", instrumentation.name());
        assertEquals(HttpUrlConnectionHooks.class.getName(), instrumentation.handlerClass());
        assertTrue(instrumentation.handlerClass().startsWith("dev.retryagent.agent.bootloader.httpurlconnection."),
                "the handler is on the bootstrap path (the bootstrap jar holds that package), never injected");
        List<HookPoint> points = instrumentation.hookPoints();
        assertEquals(3, points.size());
        assertEquals(HookPoint.Where.ENTRY_MAY_REPLACE, points.get(0).where());
        assertEquals("getInputStream", points.get(0).methodName());
        assertEquals(HookPoint.Where.ENTRY_MAY_REPLACE, points.get(1).where());
        assertEquals("getOutputStream", points.get(1).methodName());
        assertEquals(HookPoint.Where.ENTRY, points.get(2).where());
        assertEquals("writeRequests", points.get(2).methodName(), "where the JDK's hidden resend is switched off");
        for (HookPoint point : points) {
            assertEquals(HTTP, point.className(), "only the http class, never the HTTPS wrapper");
        }
    }

    /** The hooked methods are concrete methods of the http class, with these descriptors, on every JDK. */
    @Test
    void everyHookPointNamesAConcreteMethodOnEveryJdk() {
        Map<String, byte[]> files = JdkClassFiles.of(HTTP);
        assertTrue(files.size() >= 1);
        files.forEach((jdk, bytes) -> {
            List<String> methods = ClassFileMembers.concreteMethods(bytes);
            for (HookPoint point : instrumentation.hookPoints()) {
                assertTrue(methods.contains(point.methodName() + point.descriptor()), point + " on " + jdk);
            }
        });
    }

    /**
     * HTTPS: the wrapper the application holds declares getInputStream()/getOutputStream() but only delegates; the
     * delegate is a subclass of the http class that declares neither, so it runs the hooked methods, once per call.
     */
    @Test
    void theHttpsDelegateRunsTheHookedMethodsAndTheWrapperOnlyDelegates() {
        for (String delegate : List.of(HTTPS_DELEGATE, HTTPS_ABSTRACT_DELEGATE)) {
            JdkClassFiles.of(delegate).forEach((jdk, bytes) -> {
                List<String> methods = ClassFileMembers.concreteMethods(bytes);
                for (HookPoint point : instrumentation.hookPoints()) {
                    assertFalse(methods.contains(point.methodName() + point.descriptor()), delegate + " on " + jdk);
                }
            });
        }
        JdkClassFiles.of(HTTPS_DELEGATE).forEach((jdk, bytes) ->
                assertEquals(HTTPS_ABSTRACT_DELEGATE.replace('.', '/'), JdkClassFiles.superName(bytes), jdk));
        JdkClassFiles.of(HTTPS_ABSTRACT_DELEGATE).forEach((jdk, bytes) ->
                assertEquals(HTTP.replace('.', '/'), JdkClassFiles.superName(bytes), jdk));
        JdkClassFiles.of(HTTPS_WRAPPER).forEach((jdk, bytes) ->
                assertTrue(ClassFileMembers.concreteMethods(bytes).contains("getInputStream()Ljava/io/InputStream;"), jdk));
    }

    /** The woven class file, on every JDK: the getInputStream body begins with the call to the hook. */
    @Test
    void theJdkClassWeavesOnEveryJdk() {
        JdkClassFiles.of(HTTP).forEach((jdk, bytes) -> {
            byte[] woven = HookWeaver.weave(bytes, instrumentation.hookPoints());
            assertNotNull(woven, jdk);
            List<String> first = firstCalls(woven);
            assertTrue(first.contains("getInputStream()Ljava/io/InputStream; -> dev/retryagent/agent/bootloader/runtime/Hooks.enterMayReplace"),
                    jdk + ": " + first);
            assertTrue(first.contains("getOutputStream()Ljava/io/OutputStream; -> dev/retryagent/agent/bootloader/runtime/Hooks.enterMayReplace"),
                    jdk + ": " + first);
            assertTrue(first.contains("writeRequests()V -> dev/retryagent/agent/bootloader/runtime/Hooks.enter"), jdk + ": " + first);
        });
    }

    /**
     * The bootstrap loader does not verify the classes of java.base: the woven class is defined here by an ordinary
     * class loader, so that the verifier checks the code and the frames the weaver wrote. Its static initialiser
     * then fails (it reaches packages java.base exports to no unnamed module), which is after verification.
     */
    @Test
    void theWovenJdkClassPassesTheVerifier() throws Exception {
        byte[] bytes = JdkClassFiles.of(HTTP).values().iterator().next(); // the running JDK's
        byte[] woven = HookWeaver.weave(bytes, instrumentation.hookPoints());
        ClassLoader loader = new OneClassLoader(getClass().getClassLoader(), HTTP, woven);
        try {
            Class<?> c = Class.forName(HTTP, true, loader);
            assertEquals(loader, c.getClassLoader());
        } catch (VerifyError | ClassFormatError e) {
            fail("the woven class does not verify", e);
        } catch (LinkageError expected) {
            // verified and linked; its initialiser needs java.base's internals
        }
    }

    /** Retransformation: the JDK calls the transformer with no loader and the class being redefined. */
    @Test
    void theTransformerWeavesTheLoadedJdkClassWhenItIsRetransformed() throws Exception {
        HookTransformer transformer = new HookTransformer(instrumentation.hookPoints());
        assertTrue(transformer.isHooked(HTTP));
        Class<?> loaded = Class.forName(HTTP, false, null);
        byte[] bytes = JdkClassFiles.of(HTTP).values().iterator().next();
        byte[] woven = transformer.transform(null, HTTP.replace('.', '/'), loaded, loaded.getProtectionDomain(), bytes);
        assertNotNull(woven);
        assertTrue(firstCalls(woven).contains(
                "getInputStream()Ljava/io/InputStream; -> dev/retryagent/agent/bootloader/runtime/Hooks.enterMayReplace"));
        assertNull(transformer.transform(null, HTTPS_WRAPPER.replace('.', '/'), null, null,
                JdkClassFiles.of(HTTPS_WRAPPER).values().iterator().next()), "the wrapper is left alone");
    }

    /** Outside the bootstrap path (here: the test's class path) the woven call could not link: no weaving. */
    @Test
    void prepareLeavesTheClientOutWhenTheHandlerIsNotOnTheBootstrapPath() throws Exception {
        List<String> calls = new ArrayList<>();
        Instrumentation inst = recording(calls);
        assertFalse(instrumentation.prepare(inst));
        assertFalse(HttpUrlConnectionInstrumentation.openJavaBase(inst, HttpUrlConnectionHooks.class));
        assertTrue(calls.isEmpty(), calls.toString());
    }

    /**
     * The module edges: java.base reads the handler's module and opens the four packages whose state it resets
     * (or, sun.net.www.http, whose client's hidden resend it switches off), and the two through which a kept-alive
     * socket is polled, to that module only. Shown with a class of java.base itself (whose module is java.base: the
     * edges then hold by definition), the Instrumentation a recording stub.
     */
    @Test
    void openJavaBaseAddsAReadEdgeAndOpensSixPackagesToTheBootstrapModule() throws Exception {
        List<Object[]> redefinitions = new ArrayList<>();
        Instrumentation inst = (Instrumentation) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Instrumentation.class}, (proxy, method, args) -> {
                    if (method.getName().equals("redefineModule")) {
                        redefinitions.add(args);
                        return null;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        assertTrue(HttpUrlConnectionInstrumentation.openJavaBase(inst, String.class));
        assertEquals(1, redefinitions.size());
        Object[] args = redefinitions.get(0);
        Module javaBase = Object.class.getModule();
        assertEquals(javaBase, args[0]);
        assertEquals(Set.of(String.class.getModule()), args[1], "extra reads");
        assertEquals(Map.of(), args[2], "no exports");
        assertEquals(Map.of("sun.net.www.protocol.http", Set.of(javaBase), "sun.net.www", Set.of(javaBase),
                "java.net", Set.of(javaBase), "sun.net.www.http", Set.of(javaBase), "sun.net", Set.of(javaBase),
                "sun.nio.ch", Set.of(javaBase)), args[3], "opens");
        assertEquals(Set.of(), args[4]);
        assertEquals(Map.of(), args[5]);
    }

    private static Instrumentation recording(List<String> calls) {
        return (Instrumentation) Proxy.newProxyInstance(HttpUrlConnectionInstrumentationTest.class.getClassLoader(),
                new Class<?>[] {Instrumentation.class}, (proxy, method, args) -> {
                    calls.add(method.getName());
                    return null;
                });
    }

    /** Per method, the first method call in its body: {@code name+descriptor -> owner.name}. */
    private static List<String> firstCalls(byte[] classFile) {
        List<String> calls = new ArrayList<>();
        new ClassReader(classFile).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                return new MethodVisitor(Opcodes.ASM9) {
                    private boolean seen;

                    @Override
                    public void visitMethodInsn(int opcode, String owner, String callee, String desc, boolean itf) {
                        if (!seen) {
                            seen = true;
                            calls.add(name + descriptor + " -> " + owner + "." + callee);
                        }
                    }
                };
            }
        }, 0);
        return calls;
    }
}
