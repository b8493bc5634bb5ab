package dev.retryagent.agent;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.security.ProtectionDomain;

/**
 * Defines the classes of one pack in the boot loader through {@code jdk.internal.misc.Unsafe}. {@link BootClasses}
 * loads this class in a class loader of its own, the only module {@code java.base} exports that package to, so that
 * the export opens the JDK's internals to no class of the application. Linked to nothing but the JDK: the copy
 * in that loader sees no other class of the agent.
 */
public final class BootDefiner {
    private BootDefiner() {
    }

    /**
     * Defines every class of {@code packed}, in order. Records (see {@link BootClassPack}): u2 name length, the binary
     * name (ASCII), u4 class file length, the class file.
     */
    public static void definePack(byte[] packed) throws Exception {
        Class<?> unsafeClass = Class.forName("jdk.internal.misc.Unsafe");
        Object unsafe = unsafeClass.getMethod("getUnsafe").invoke(null);
        Method define = unsafeClass.getMethod("defineClass", String.class, byte[].class, int.class, int.class,
                ClassLoader.class, ProtectionDomain.class);
        int at = 0;
        while (at < packed.length) {
            int nameLength = ((packed[at] & 0xff) << 8) | (packed[at + 1] & 0xff);
            String name = new String(packed, at + 2, nameLength, StandardCharsets.ISO_8859_1);
            at += 2 + nameLength;
            int length = ((packed[at] & 0xff) << 24) | ((packed[at + 1] & 0xff) << 16)
                    | ((packed[at + 2] & 0xff) << 8) | (packed[at + 3] & 0xff);
            at += 4;
            define.invoke(unsafe, name, packed, at, length, null, null);
            at += length;
        }
    }
}
