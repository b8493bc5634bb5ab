package dev.retryagent.agent.bootloader.weaving;

import dev.retryagent.engine.RetryLog;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.security.AccessController;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.logging.Level;
import net.bytebuddy.jar.asm.ClassReader;

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
    /**
     * The agent jar's domain, given to the adapter classes defined here as the agent's own copy of them has it: under a
     * security manager they may then do what the policy grants that jar (their lookups, {@link PerClassLookup}), not
     * only what it grants all code.
     */
    private static ProtectionDomain agentDomain;
    private static Method defineClass;
    private static Method findLoadedClass;

    private ClassInjector() {
    }

    static synchronized void init(Instrumentation inst, ClassLoader agentClassLoader, ProtectionDomain agentClassDomain) {
        instrumentation = inst;
        agentLoader = agentClassLoader;
        agentDomain = agentClassDomain;
    }

    /**
     * Makes sure {@code client}'s adapter classes are defined in {@code loader} and returns its handler class.
     * Idempotent: a loader gets one copy however many of its classes ask.
     */
    static synchronized Class<?> inject(ClassLoader loader, final ClientInstrumentation client) throws Exception {
        ensureAccess();
        Class<?> handler = (Class<?>) findLoadedClass.invoke(loader, client.handlerClass());
        if (handler != null) {
            return handler;
        }
        Map<String, byte[]> adapters = privileged(new PrivilegedExceptionAction<Map<String, byte[]>>() {
            @Override
            public Map<String, byte[]> run() throws IOException {
                return adapterClasses(agentLoader, client);
            }
        });
        for (Map.Entry<String, byte[]> adapter : adapters.entrySet()) {
            String name = adapter.getKey();
            Class<?> done = (Class<?>) findLoadedClass.invoke(loader, name);
            if (done == null) {
                byte[] bytes = adapter.getValue();
                done = (Class<?>) defineClass.invoke(loader, name, bytes, 0, bytes.length, agentDomain);
            }
            if (name.equals(client.handlerClass())) {
                handler = done;
            }
        }
        if (handler == null) {
            throw new IllegalStateException(client.handlerClass() + " is not among the adapter classes of " + client.name());
        }
        if (RetryLog.isLoggable(Level.FINE)) {
            RetryLog.agent(Level.FINE, "adapter client=" + client.name() + " defined-in=" + loader.getClass().getName());
        }
        return handler;
    }

    private static void ensureAccess() throws Exception {
        if (defineClass != null) {
            return;
        }
        Method[] methods = privileged(new PrivilegedExceptionAction<Method[]>() {
            @Override
            public Method[] run() throws Exception {
                openJavaLang();
                Method define = ClassLoader.class.getDeclaredMethod("defineClass",
                        String.class, byte[].class, int.class, int.class, ProtectionDomain.class);
                define.setAccessible(true);
                Method find = ClassLoader.class.getDeclaredMethod("findLoadedClass", String.class);
                find.setAccessible(true);
                return new Method[] {define, find};
            }
        });
        findLoadedClass = methods[1];
        defineClass = methods[0];
    }

    /**
     * Runs {@code action} privileged: a client's first use, which defines its adapters here, happens on the
     * application's thread, whose grant under a security manager need not cover the agent's reading its own jar,
     * opening {@code java.lang} to itself and reflection into {@code ClassLoader}.
     */
    private static <T> T privileged(PrivilegedExceptionAction<T> action) throws Exception {
        try {
            return AccessController.doPrivileged(action);
        } catch (PrivilegedActionException e) {
            throw e.getException();
        }
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

    /**
     * The classes {@code client}'s handler needs besides the client's, the JDK's and the bootstrap ones, with their
     * class files, in the order to define them: every class of the handler's package in the agent jar but the
     * client's description when it is a subclass there (its {@link ClientInstrumentation}, which names no client type
     * and stays in the agent's loader, nested classes included) and {@code package-info}; supertypes before subtypes,
     * since defining a class loads its supertypes. Read from the jar (or directory) that holds the handler's class file.
     */
    static Map<String, byte[]> adapterClasses(ClassLoader from, ClientInstrumentation client) throws IOException {
        String handler = client.handlerClass();
        String dir = handler.substring(0, handler.lastIndexOf('.') + 1).replace('.', '/');
        String description = client.getClass().getName();
        Map<String, byte[]> files = new TreeMap<String, byte[]>();
        for (String entry : classFilesIn(from, dir, handler.replace('.', '/') + ".class")) {
            String name = entry.substring(0, entry.length() - ".class".length()).replace('/', '.');
            if (name.equals(description) || name.startsWith(description + "$") || name.endsWith(".package-info")) {
                continue;
            }
            files.put(name, classFile(from, name));
        }
        Map<String, byte[]> ordered = new LinkedHashMap<String, byte[]>();
        for (String name : files.keySet()) {
            addSupertypesFirst(name, files, ordered);
        }
        return ordered;
    }

    private static void addSupertypesFirst(String name, Map<String, byte[]> files, Map<String, byte[]> ordered) {
        if (ordered.containsKey(name)) {
            return;
        }
        byte[] bytes = files.get(name);
        ordered.put(name, null); // a placeholder: the class is on its way (a cycle cannot happen among supertypes)
        ClassReader reader = new ClassReader(bytes);
        List<String> supertypes = new ArrayList<String>();
        if (reader.getSuperName() != null) {
            supertypes.add(reader.getSuperName());
        }
        supertypes.addAll(Arrays.asList(reader.getInterfaces()));
        for (String internal : supertypes) {
            String supertype = internal.replace('/', '.');
            if (files.containsKey(supertype)) {
                addSupertypesFirst(supertype, files, ordered);
            }
        }
        ordered.remove(name);
        ordered.put(name, bytes);
    }

    /** The {@code .class} entries directly in {@code dir} of the jar or directory that holds {@code known}. */
    private static List<String> classFilesIn(ClassLoader from, String dir, String known) throws IOException {
        URL url = from == null ? ClassLoader.getSystemResource(known) : from.getResource(known);
        if (url == null) {
            throw new IOException("class file not found in the agent jar: " + known);
        }
        List<String> entries = new ArrayList<String>();
        try {
            if ("jar".equals(url.getProtocol())) {
                String path = url.getPath(); // file:/.../retry-agent.jar!/dev/...
                JarFile jar = new JarFile(new File(new URI(path.substring(0, path.indexOf("!/")))));
                try {
                    Enumeration<JarEntry> all = jar.entries();
                    while (all.hasMoreElements()) {
                        String name = all.nextElement().getName();
                        if (name.startsWith(dir) && name.endsWith(".class") && name.indexOf('/', dir.length()) < 0) {
                            entries.add(name);
                        }
                    }
                } finally {
                    jar.close();
                }
            } else if ("file".equals(url.getProtocol())) {
                String[] names = new File(url.toURI()).getParentFile().list();
                for (String name : names == null ? new String[0] : names) {
                    if (name.endsWith(".class")) {
                        entries.add(dir + name);
                    }
                }
            } else {
                throw new IOException("cannot list the adapter classes in " + url.getProtocol() + ": " + known);
            }
        } catch (URISyntaxException e) {
            throw new IOException("cannot list the adapter classes next to " + known + ": " + e.getMessage());
        }
        return entries;
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
