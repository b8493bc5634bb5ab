package dev.retryagent.agent.startup.bootloading;

import java.nio.charset.StandardCharsets;
import jdk.internal.misc.Unsafe;

/**
 * Defines the classes of one pack in the boot loader through {@code jdk.internal.misc.Unsafe}. {@link BootClasses}
 * loads this class in a class loader of its own, the only module {@code java.base} exports that package to, so that
 * the export opens the JDK's internals to no class of the application. Linked to nothing but the JDK: the copy
 * in that loader sees no other class of the agent.
 *
 * <p>It calls {@code Unsafe} directly, compiled against a stand-in of the class (the Java 8 API has none): by
 * reflection, the lookup among {@code Unsafe}'s hundreds of methods and, on Java 17, the accessor class generated after
 * the 15th call cost the start-up several milliseconds.
 */
public final class BootDefiner {
    private BootDefiner() {
    }

    /**
     * Defines every class of {@code packed}, in order. Records (see {@code BootClassPack}): u2 name length, the binary
     * name (ASCII), u4 class file length, the class file.
     */
    public static void definePack(byte[] packed) {
        Unsafe unsafe = Unsafe.getUnsafe();
        int at = 0;
        while (at < packed.length) {
            int nameLength = ((packed[at] & 0xff) << 8) | (packed[at + 1] & 0xff);
            String name = new String(packed, at + 2, nameLength, StandardCharsets.ISO_8859_1);
            at += 2 + nameLength;
            int length = ((packed[at] & 0xff) << 24) | ((packed[at + 1] & 0xff) << 16)
                    | ((packed[at + 2] & 0xff) << 8) | (packed[at + 3] & 0xff);
            at += 4;
            unsafe.defineClass(name, packed, at, length, null, null);
            at += length;
        }
    }
}
