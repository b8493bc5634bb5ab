package dev.retryagent.agent;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Defines the bootstrap classes directly in the boot loader, without appending a jar to the boot loader's search
 * path: an append makes the JVM print "Sharing is only supported for boot loader classes because bootstrap classpath
 * has been appended" and stop serving the application's classes from a CDS archive. The route is
 * {@code jdk.internal.misc.Unsafe.defineClass} with a null loader, which {@code java.base} exports through
 * {@code Instrumentation.redefineModule} to {@link BootDefiner} alone, in a class loader of its own (Java 9 and later; the Module API is called reflectively
 * because this class compiles for Java 8). On Java 8 {@link #defineCore} returns false and {@link RetryAgent}
 * appends the nested bootstrap jar instead.
 *
 * <p>The boot loader finds a class it was given this way, but nothing it was not given: every class that
 * boot-loaded code may link to must be defined before that code runs, and each class after its superclass and
 * interfaces (the JVM resolves those at definition). {@link BootClassPack} writes the classes at build time in that
 * order, in two packs: {@link #PARSER}, the policy file parser (SnakeYAML and the policy-core classes that link to
 * it), and {@link #CORE}, the rest (with the few parser classes it needs as supertypes). Only {@link PolicyWatcher}
 * (a policy file) calls the parser, so {@link AgentStartup} has the parser pack defined ({@link #defineParser}) when
 * there is a file, before the first parse, and never reads it when there is none: a service on the built-in policy
 * pays for none of its classes. Classes the boot loader defines are not verified, as those it loads from
 * its path are not.
 *
 * <p>Linked to nothing but the JDK, like {@link RetryAgent}: it runs before any bootstrap class exists.
 */
final class BootClasses {
    /** The pack of the classes defined at start-up, in the agent jar. */
    static final String CORE = "META-INF/retry-agent/boot-core.classes";
    /** The pack of the classes only the policy file parser needs. */
    static final String PARSER = "META-INF/retry-agent/boot-parser.classes";
    /** The class that defines them, read from the agent jar into a loader of its own. */
    private static final String DEFINER = "dev/retryagent/agent/BootDefiner.class";

    /** The agent jar, while the parser pack may still be defined; and what defining it takes. */
    private static File agentJar;
    private static Instrumentation instrumentation;
    /** {@link BootDefiner#definePack}, in the class loader {@code java.base} exports {@code jdk.internal.misc} to. */
    private static Method definePack;

    private BootClasses() {
    }

    /**
     * Defines the classes of the core pack of the agent jar {@code jar} in the boot loader. False when this JVM offers
     * no route (Java 8, or a JVM without {@code jdk.internal.misc.Unsafe}): nothing was defined then. Once the first
     * class is defined, a failure is thrown: the caller appends the bootstrap jar, where the boot loader finds the
     * classes still missing.
     */
    static synchronized boolean defineCore(Instrumentation inst, File jar) throws Exception {
        if (!openUnsafe(inst, jar)) {
            return false;
        }
        RetryAgent.mark("open-unsafe");
        definePack(jar, CORE, definePack);
        RetryAgent.mark("define-core");
        agentJar = jar;
        instrumentation = inst;
        return true;
    }

    /**
     * Defines the parser pack, unless it was defined already or the bootstrap jar was appended instead. Should that
     * fail, the bootstrap jar is appended, where the boot loader finds the classes still missing.
     */
    static synchronized void defineParser() throws Exception {
        File jar = agentJar;
        Instrumentation inst = instrumentation;
        Method define = definePack;
        release();
        if (jar == null) {
            return;
        }
        try {
            definePack(jar, PARSER, define);
            RetryAgent.mark("define-parser");
        } catch (Exception e) {
            RetryAgent.bootDefineFailed(e);
            RetryAgent.appendBootstrapJar(inst);
        }
    }

    /** Drops the means to define more: called once the parser pack is defined or known not to be needed. */
    static synchronized void release() {
        agentJar = null;
        instrumentation = null;
        definePack = null;
    }

    private static void definePack(File jar, String pack, Method define) throws Exception {
        define.invoke(null, (Object) readEntry(jar, pack));
    }

    private static byte[] readEntry(File jar, String name) throws IOException {
        ZipFile zip = new ZipFile(jar);
        try {
            ZipEntry entry = zip.getEntry(name);
            if (entry == null) {
                throw new IOException(name + " is missing from " + jar);
            }
            return readFully(zip.getInputStream(entry), (int) entry.getSize());
        } finally {
            zip.close();
        }
    }

    private static byte[] readFully(InputStream in, int size) throws IOException {
        try {
            byte[] bytes = new byte[size];
            int at = 0;
            int n;
            while (at < size && (n = in.read(bytes, at, size - at)) > 0) {
                at += n;
            }
            if (at != size) {
                throw new IOException("short read: " + at + " of " + size + " bytes");
            }
            return bytes;
        } finally {
            in.close();
        }
    }

    private static boolean openUnsafe(Instrumentation inst, File jar) throws Exception {
        Method getModule;
        try {
            getModule = Class.class.getMethod("getModule");
            Class.forName("jdk.internal.misc.Unsafe");
        } catch (NoSuchMethodException e) {
            return false; // Java 8
        } catch (ClassNotFoundException e) {
            return false;
        }
        Class<?> definer = new DefinerLoader(readEntry(jar, DEFINER)).definer();
        Object javaBase = getModule.invoke(Object.class);
        // Exports (not opens) only the package, only to the definer's own loader: public members, no deep
        // reflection, and nothing for the application's classes, which live in other loaders.
        Map<String, Set<Object>> exports = Collections.singletonMap("jdk.internal.misc",
                Collections.singleton(getModule.invoke(definer)));
        Method redefineModule = Instrumentation.class.getMethod("redefineModule", getModule.getReturnType(), Set.class,
                Map.class, Map.class, Set.class, Map.class);
        redefineModule.invoke(inst, javaBase, Collections.emptySet(), exports, Collections.emptyMap(),
                Collections.emptySet(), Collections.emptyMap());
        definePack = definer.getMethod("definePack", byte[].class);
        return true;
    }

    /** A loader of one class, {@link BootDefiner}, whose parent is the boot loader: it sees the JDK only. */
    private static final class DefinerLoader extends ClassLoader {
        private final byte[] definerClass;

        DefinerLoader(byte[] definerClass) {
            super(null);
            this.definerClass = definerClass;
        }

        Class<?> definer() {
            return defineClass(BootDefiner.class.getName(), definerClass, 0, definerClass.length);
        }
    }
}
