package dev.retryagent.agent.clients.httpurlconnection;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import net.bytebuddy.jar.asm.ClassReader;

/**
 * The class files of the JDK's own classes as the JDKs the agent supports ship them: the running JDK's, and those of
 * Java 8 ({@code jre/lib/rt.jar}), 11, 17 and 25 (read through their own {@code jrt:/} file system), so that the unit
 * tests check the hooks and the private state against each, whichever JDK runs them. Java 8 and 11 are where
 * {@code .ci/old-jdks.sh} puts them; each home can be set with {@code -Dretry.agent.test.jdkN=HOME}. A JDK that is not
 * there fails the test that reads it.
 */
public final class JdkClassFiles {
    /** The JDKs read besides the running one, by name. */
    public static final Map<String, Path> HOMES = homes();

    private JdkClassFiles() {
    }

    private static Map<String, Path> homes() {
        Path old = Paths.get(System.getProperty("user.home"), ".cache", "retry-agent", "jdks");
        Map<String, Path> homes = new LinkedHashMap<>();
        homes.put("java8", Paths.get(System.getProperty("retry.agent.test.jdk8", old.resolve("java-8").toString())));
        homes.put("java11", Paths.get(System.getProperty("retry.agent.test.jdk11", old.resolve("java-11").toString())));
        homes.put("java17", Paths.get(System.getProperty("retry.agent.test.jdk17", "/usr/lib/jvm/java-17-openjdk-amd64")));
        homes.put("java25", Paths.get(System.getProperty("retry.agent.test.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64")));
        return homes;
    }

    /** Class file bytes of {@code binaryName} per JDK: "running" first, then each of {@link #HOMES}; all must have it. */
    public static Map<String, byte[]> of(String binaryName) {
        Map<String, byte[]> files = present(binaryName);
        if (files.size() != HOMES.size() + 1) {
            throw new AssertionError(binaryName + " only on " + files.keySet());
        }
        return files;
    }

    /** Class file bytes of {@code binaryName} on the JDKs that have the class, "running" first. */
    public static Map<String, byte[]> present(String binaryName) {
        Map<String, byte[]> files = new LinkedHashMap<>();
        String resource = binaryName.replace('.', '/') + ".class";
        try {
            try (InputStream in = ClassLoader.getSystemResourceAsStream(resource)) {
                if (in != null) {
                    files.put("running", in.readAllBytes());
                }
            }
            for (Map.Entry<String, Path> jdk : HOMES.entrySet()) {
                byte[] bytes = read(jdk.getKey(), jdk.getValue(), resource);
                if (bytes != null) {
                    files.put(jdk.getKey(), bytes);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    private static byte[] read(String name, Path home, String resource) throws IOException {
        Path rtJar = home.resolve("jre").resolve("lib").resolve("rt.jar");
        if (Files.isRegularFile(rtJar)) {
            try (ZipFile rt = new ZipFile(rtJar.toFile())) {
                ZipEntry entry = rt.getEntry(resource);
                if (entry == null) {
                    return null;
                }
                try (InputStream in = rt.getInputStream(entry)) {
                    return in.readAllBytes();
                }
            }
        }
        if (!Files.isRegularFile(home.resolve("lib").resolve("modules"))) {
            throw new AssertionError("no " + name + " at " + home + " (" + (name.equals("java8") || name.equals("java11")
                    ? "run .ci/old-jdks.sh, or " : "") + "set -Dretry.agent.test.jdk" + name.substring(4) + "=HOME)");
        }
        try (FileSystem jrt = FileSystems.newFileSystem(URI.create("jrt:/"), Map.of("java.home", home.toString()));
             Stream<Path> modules = Files.list(jrt.getPath("/modules"))) {
            Path file = modules.map(module -> module.resolve(resource)).filter(Files::exists).findFirst().orElse(null);
            return file == null ? null : Files.readAllBytes(file);
        }
    }

    /** The class file's super class, as an internal name. */
    public static String superName(byte[] classFile) {
        return new ClassReader(classFile).getSuperName();
    }
}
