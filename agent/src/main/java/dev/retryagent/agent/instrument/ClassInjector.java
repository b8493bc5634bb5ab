package dev.retryagent.agent.instrument;

import dev.retryagent.engine.RetryLog;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.security.ProtectionDomain;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;

/**
 * Defines a client's adapter classes in the client's own class loader, when that loader is not one the
 * agent's classes can see the client through (a web application's, a plugin's, a Spring Boot jar's).
 * Uses the protected {@code ClassLoader.defineClass}; on Java 9+ {@code java.base} is first told to open
 * {@code java.lang} to the agent (through {@link Instrumentation#redefineModule}, called reflectively so that
 * the agent still compiles for Java 8). No Byte Buddy: its injectors would load hundreds of classes.
 */
final class ClassInjector {
    private static Instrumentation instrumentation;
    /** Where the adapter class files are read from: the agent jar's class loader. */
    private static ClassLoader agentLoader;
    private static Method defineClass;
    private static Method findLoadedClass;

    private ClassInjector() {
    }

    static synchronized void init(Instrumentation inst, ClassLoader agentClassLoader) {
        instrumentation = inst;
        agentLoader = agentClassLoader;
    }

    /**
     * Makes sure {@code client}'s adapter classes are defined in {@code loader} and returns its handler class.
     * Idempotent: a loader gets one copy however many of its classes ask.
     */
    static synchronized Class<?> inject(ClassLoader loader, ClientInstrumentation client) throws Exception {
        ensureAccess();
        Class<?> handler = (Class<?>) findLoadedClass.invoke(loader, client.handlerClass());
        if (handler != null) {
            return handler;
        }
        ClassLoader own = agentLoader;
        ProtectionDomain domain = null; // as the class loader itself would give them: its default domain
        for (String name : client.adapterClasses()) {
            Class<?> done = (Class<?>) findLoadedClass.invoke(loader, name);
            if (done == null) {
                byte[] bytes = classFile(own, name);
                done = (Class<?>) defineClass.invoke(loader, name, bytes, 0, bytes.length, domain);
            }
            if (name.equals(client.handlerClass())) {
                handler = done;
            }
        }
        if (handler == null) {
            throw new IllegalStateException(client.handlerClass() + " is not among the adapter classes of " + client.name());
        }
        if (RetryLog.logger().isLoggable(Level.FINE)) {
            RetryLog.agent(Level.FINE, "adapter client=" + client.name() + " defined-in=" + loader.getClass().getName());
        }
        return handler;
    }

    private static void ensureAccess() throws Exception {
        if (defineClass != null) {
            return;
        }
        openJavaLang();
        Method define = ClassLoader.class.getDeclaredMethod("defineClass",
                String.class, byte[].class, int.class, int.class, ProtectionDomain.class);
        define.setAccessible(true);
        Method find = ClassLoader.class.getDeclaredMethod("findLoadedClass", String.class);
        find.setAccessible(true);
        findLoadedClass = find;
        defineClass = define;
    }

    /** Java 9+: {@code java.base} opens {@code java.lang} to the agent's module. Nothing to do on Java 8. */
    private static void openJavaLang() throws Exception {
        Class<?> moduleClass;
        try {
            moduleClass = Class.forName("java.lang.Module");
        } catch (ClassNotFoundException java8) {
            return;
        }
        if (instrumentation == null) {
            throw new IllegalStateException("no Instrumentation to open java.lang with");
        }
        Method getModule = Class.class.getMethod("getModule");
        Object javaBase = getModule.invoke(Object.class);
        Object agentModule = getModule.invoke(ClassInjector.class);
        Method redefineModule = Instrumentation.class.getMethod("redefineModule",
                moduleClass, Set.class, Map.class, Map.class, Set.class, Map.class);
        redefineModule.invoke(instrumentation, javaBase, Collections.emptySet(), Collections.emptyMap(),
                Collections.singletonMap("java.lang", Collections.singleton(agentModule)),
                Collections.emptySet(), Collections.emptyMap());
    }

    static byte[] classFile(ClassLoader from, String binaryName) throws IOException {
        String resource = binaryName.replace('.', '/') + ".class";
        InputStream in = from == null ? ClassLoader.getSystemResourceAsStream(resource) : from.getResourceAsStream(resource);
        if (in == null) {
            throw new IOException("class file not found in the agent jar: " + resource);
        }
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
            byte[] buffer = new byte[8192];
            int n;
            while ((n = in.read(buffer)) > 0) {
                out.write(buffer, 0, n);
            }
            return out.toByteArray();
        } finally {
            in.close();
        }
    }
}
