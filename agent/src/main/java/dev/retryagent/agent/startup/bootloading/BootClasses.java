package dev.retryagent.agent.startup.bootloading;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Makes the bootstrap classes the boot loader's. Where the JVM allows it they are defined there directly, without
 * appending a jar to the boot loader's search path: an append makes the JVM print "Sharing is only supported for boot
 * loader classes because bootstrap classpath has been appended" and stop serving the application's classes from a CDS
 * archive. The route is {@code jdk.internal.misc.Unsafe.defineClass} with a null loader, which {@code java.base}
 * exports through {@code Instrumentation.redefineModule} to {@link BootDefiner} alone, in a class loader of its own
 * (Java 9 and later; the Module API is called reflectively because this class compiles for Java 8). On Java 8
 * {@link #openUnsafe} returns false and {@code RetryAgent} appends the nested bootstrap jar instead
 * ({@link #appendBootstrapJar}).
 *
 * <p>The boot loader finds a class it was given this way, but nothing it was not given: every class that
 * boot-loaded code may link to must be defined before that code runs, and each class after its superclass and
 * interfaces (the JVM resolves those at definition). {@code BootClassPack} writes the classes at build time in that
 * order, in two packs: {@link #PARSER}, the policy file parser (SnakeYAML and the policy-core classes that link to
 * it), and {@link #CORE}, the rest (with the few parser classes it needs as supertypes). Only {@code PolicyWatcher}
 * (a policy file) calls the parser, so {@code AgentStartup} has the parser pack defined ({@link #defineParser}) when
 * there is a file, before the first parse, and never reads it when there is none: a service on the built-in policy
 * pays for none of its classes. Classes the boot loader defines are not verified, as those it loads from
 * its path are not.
 *
 * <p>Linked to nothing but the JDK, like {@code RetryAgent}: it runs before any bootstrap class exists. The package
 * links to no other of the agent's.
 */
public final class BootClasses {
    /** The jar of the bootstrap classes, nested in the agent jar: what Java 8 appends to the boot loader's path. */
    static final String BOOTSTRAP_JAR = "META-INF/retry-agent/bootstrap.jar";
    /** The pack of the classes defined at start-up, in the agent jar. */
    static final String CORE = "META-INF/retry-agent/boot-core.classes";
    /** The pack of the classes only the policy file parser needs. */
    static final String PARSER = "META-INF/retry-agent/boot-parser.classes";
    /** The class that defines them, read from the agent jar into a loader of its own. */
    private static final String DEFINER = "dev/retryagent/agent/startup/bootloading/BootDefiner.class";

    /** The agent jar, while the parser pack may still be defined; and what defining it takes. */
    private static File agentJar;
    private static Instrumentation instrumentation;
    /** {@link BootDefiner#definePack}, in the class loader {@code java.base} exports {@code jdk.internal.misc} to. */
    private static Method definePack;

    private BootClasses() {
    }

    /**
     * Opens the route into the boot loader for the agent jar {@code jar}: {@code java.base} exports
     * {@code jdk.internal.misc} to {@link BootDefiner}, in a loader of its own. False when this JVM offers no route
     * (Java 8, or a JVM without {@code jdk.internal.misc.Unsafe}): nothing was changed then.
     */
    public static synchronized boolean openUnsafe(Instrumentation inst, File jar) throws Exception {
        Method define = openUnsafeTo(inst, jar);
        if (define == null) {
            return false;
        }
        definePack = define;
        agentJar = jar;
        instrumentation = inst;
        return true;
    }

    /**
     * Defines the classes of the core pack in the boot loader, once {@link #openUnsafe} opened the route. Once the
     * first class is defined, a failure is thrown: the caller appends the bootstrap jar, where the boot loader finds
     * the classes still missing.
     */
    public static synchronized void defineCore() throws Exception {
        definePack(agentJar, CORE, definePack);
    }

    /**
     * Defines the parser pack, unless it was defined already or the bootstrap jar was appended instead; true when it
     * was defined now. Should that fail, the bootstrap jar is appended, where the boot loader finds the classes still
     * missing.
     */
    public static synchronized boolean defineParser() throws Exception {
        File jar = agentJar;
        Instrumentation inst = instrumentation;
        Method define = definePack;
        release();
        if (jar == null) {
            return false;
        }
        try {
            definePack(jar, PARSER, define);
            return true;
        } catch (Exception e) {
            defineFailed(e);
            appendBootstrapJar(inst, jar);
            return false;
        }
    }

    /** Drops the means to define more: called once the parser pack is defined or known not to be needed. */
    public static synchronized void release() {
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

    /** {@link BootDefiner#definePack} once {@code java.base} exports its package to it; null without a route. */
    private static Method openUnsafeTo(Instrumentation inst, File jar) throws Exception {
        Method getModule;
        try {
            getModule = Class.class.getMethod("getModule");
            Class.forName("jdk.internal.misc.Unsafe");
        } catch (NoSuchMethodException e) {
            return null; // Java 8
        } catch (ClassNotFoundException e) {
            return null;
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
        return definer.getMethod("definePack", byte[].class);
    }

    /** The line that says the classes are appended instead of defined, and why. */
    public static void defineFailed(Exception e) {
        System.err.println("retry-agent boot-define-failed error=" + e.getClass().getName()
                + " message=" + e.getMessage() + "; the bootstrap jar is appended to the boot class path instead");
    }

    /**
     * Appends (a temporary copy of) the nested bootstrap jar to the boot loader's search path. Classes defined in the
     * boot loader already stay: the boot loader looks on its path only for those it does not have.
     */
    public static void appendBootstrapJar(Instrumentation inst, File agentJar) throws Exception {
        // Read from the agent jar directly: the class loader's resource lookup would first search every
        // module of the runtime image (milliseconds of start-up), and the JDK shares the open jar's index.
        ZipFile zip = new ZipFile(agentJar);
        File copy;
        try {
            ZipEntry entry = zip.getEntry(BOOTSTRAP_JAR);
            if (entry == null) {
                throw new IOException(BOOTSTRAP_JAR + " is missing from " + agentJar);
            }
            copy = copyToTemporaryFile(zip.getInputStream(entry));
        } finally {
            zip.close();
        }
        inst.appendToBootstrapClassLoaderSearch(new JarFile(copy));
    }

    /** Copies the nested bootstrap jar to a temporary file (deleted when the JVM exits). */
    private static File copyToTemporaryFile(InputStream in) throws IOException {
        File file;
        try {
            file = null;
            // Not File/Files.createTempFile: their random names cost a SecureRandom, ~10 ms of start-up.
            // createNewFile is atomic (O_EXCL): it never takes a file that exists, so a name known in advance is
            // safe, and in a sticky temp directory nobody else can swap the file afterwards. (java.io rather than
            // java.nio: nothing more to load.)
            String base = "retry-agent-bootstrap-" + Long.toHexString(System.nanoTime());
            File dir = new File(System.getProperty("java.io.tmpdir"));
            for (int i = 0; file == null; i++) {
                File candidate = new File(dir, base + "-" + i + ".jar");
                if (candidate.createNewFile()) {
                    file = candidate;
                } else if (i >= 100) {
                    throw new IOException("cannot create a temporary file in " + dir);
                }
            }
            OutputStream out = new FileOutputStream(file);
            file.deleteOnExit();
            try {
                byte[] buffer = new byte[16384];
                int n;
                while ((n = in.read(buffer)) > 0) {
                    out.write(buffer, 0, n);
                }
            } finally {
                out.close();
            }
        } finally {
            in.close();
        }
        return file;
    }
    /** A loader of one class, {@link BootDefiner}, whose parent is the boot loader: it sees the JDK only. */
    private static final class DefinerLoader extends ClassLoader {
        private final byte[] definerClass;

        DefinerLoader(byte[] definerClass) {
            super(null);
            this.definerClass = definerClass;
        }

        Class<?> definer() {
            // The agent jar's own domain: under a security manager, the definer may do what the policy grants that
            // jar (the loader's default domain is granted nothing), such as linking to jdk.internal.misc.
            return defineClass(BootDefiner.class.getName(), definerClass, 0, definerClass.length,
                    BootClasses.class.getProtectionDomain());
        }
    }
}
