package dev.retryagent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarInputStream;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/**
 * The agent jar loads on Java 8 fleets: every class in it, nested jars included, has a class-file
 * major version of at most 52. This runs in {@code mvn verify}, so a dependency upgrade or a compiler
 * setting that breaks Java 8 fails the build.
 */
class AgentJarClassVersionIT {
    private static final int JAVA_8_MAJOR = 52;

    @Test
    void everyClassInTheAgentJarTargetsJava8() throws IOException {
        Path jar = Paths.get(System.getProperty("retry.agent.it.jar", "../agent/target/retry-agent.jar"));
        assertTrue(Files.isRegularFile(jar), "agent jar not built: " + jar);
        List<String> tooNew = new ArrayList<>();
        int classes;
        try (InputStream in = Files.newInputStream(jar)) {
            classes = scan(jar.getFileName().toString(), in, tooNew);
        }
        assertTrue(classes > 100, "expected the shaded agent jar to hold its classes, found " + classes);
        assertEquals(List.of(), tooNew, "classes above Java 8 (major " + JAVA_8_MAJOR + ")");
    }

    @Test
    void theScanRejectsANewerClassFile() throws IOException {
        // The check itself must be able to fail: a Java 17 class (this test's own) is flagged.
        List<String> tooNew = new ArrayList<>();
        try (InputStream in = getClass().getResourceAsStream("AgentJarClassVersionIT.class")) {
            checkClass("AgentJarClassVersionIT.class", in.readAllBytes(), tooNew);
        }
        assertEquals(1, tooNew.size());
    }

    /** Scans a jar stream, descending into nested jars; returns the number of classes seen. */
    private static int scan(String name, InputStream in, List<String> tooNew) throws IOException {
        int classes = 0;
        JarInputStream jar = new JarInputStream(in);
        for (ZipEntry entry = jar.getNextEntry(); entry != null; entry = jar.getNextEntry()) {
            String entryName = name + "!" + entry.getName();
            if (entry.getName().endsWith(".class")) {
                checkClass(entryName, jar.readAllBytes(), tooNew);
                classes++;
            } else if (entry.getName().endsWith(".jar")) {
                classes += scan(entryName, new ByteArrayInputStream(jar.readAllBytes()), tooNew);
            }
        }
        return classes;
    }

    private static void checkClass(String name, byte[] bytes, List<String> tooNew) throws IOException {
        DataInputStream data = new DataInputStream(new ByteArrayInputStream(bytes));
        assertEquals(0xCAFEBABE, data.readInt(), "not a class file: " + name);
        data.readUnsignedShort();
        int major = data.readUnsignedShort();
        if (major > JAVA_8_MAJOR) {
            tooNew.add(name + " (major " + major + ")");
        }
    }
}
