package dev.retryagent.agent.startup.bootloading;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

class BootClassPackTest {

    /** Constants of every width before the class header: the parser must step over each correctly. */
    static class Wide extends Base implements Serializable, Callable<String> {
        private static final long serialVersionUID = 1L;
        static final double RATIO = 2.5;
        long big = 1L << 40;

        @Override
        public String call() {
            return "x" + big + RATIO + Mentioned.class.getName();
        }
    }

    static class Base {
    }

    static final class Mentioned {
    }

    @Test
    void supertypesAreTheSuperclassThenTheInterfaces() throws IOException {
        assertEquals(List.of(Base.class.getName().replace('.', '/'), "java/io/Serializable", "java/util/concurrent/Callable"),
                BootClassPack.supertypes(bytes(Wide.class)));
        assertEquals(List.of("java/lang/Object"), BootClassPack.supertypes(bytes(Base.class)));
    }

    @Test
    void referencesHoldTheClassesACodeOrASignatureNames() throws IOException {
        Set<String> refs = BootClassPack.references(bytes(Wide.class));
        assertTrue(refs.contains(Mentioned.class.getName().replace('.', '/')), refs.toString());
        assertTrue(refs.contains("java/util/concurrent/Callable"), refs.toString());
    }

    @Test
    void reachableKeepsTheAgentsOwnClassesAndLeavesOutLibraryClassesNothingNames() throws IOException {
        Map<String, byte[]> classes = new LinkedHashMap<>();
        classes.put(name(Wide.class), bytes(Wide.class));
        classes.put(name(Mentioned.class), bytes(Mentioned.class));
        classes.put("dev/retryagent/shaded/lib/Unused", bytes(Base.class)); // a library class under another name
        Set<String> reachable = BootClassPack.reachable(classes);
        assertTrue(reachable.contains(name(Wide.class)));
        assertTrue(reachable.contains(name(Mentioned.class)));
        assertFalse(reachable.contains("dev/retryagent/shaded/lib/Unused"));
    }

    private static String name(Class<?> type) {
        return type.getName().replace('.', '/');
    }

    private static byte[] bytes(Class<?> type) throws IOException {
        try (InputStream in = type.getResourceAsStream("/" + name(type) + ".class")) {
            return in.readAllBytes();
        }
    }
}
