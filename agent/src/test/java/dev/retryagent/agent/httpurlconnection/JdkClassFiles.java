package dev.retryagent.agent.httpurlconnection;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.FieldVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

/**
 * The class files of {@code java.base} as the JDKs the agent supports ship them: the running JDK's, and those of
 * the Java 17 and Java 25 installations found on this machine (read through their own {@code jrt:/} file system),
 * so that the unit tests check the hooks and the private state against both, whichever JDK runs them.
 */
final class JdkClassFiles {
    static final List<Path> CANDIDATE_HOMES = List.of(
            Paths.get(System.getProperty("retry.agent.test.jdk17", "/usr/lib/jvm/java-17-openjdk-amd64")),
            Paths.get(System.getProperty("retry.agent.test.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64")));

    private JdkClassFiles() {
    }

    /** Class file bytes of {@code binaryName} per JDK: "running" first, then each JDK home found. */
    static Map<String, byte[]> of(String binaryName) {
        Map<String, byte[]> files = new LinkedHashMap<>();
        String resource = binaryName.replace('.', '/') + ".class";
        try (InputStream in = ClassLoader.getSystemResourceAsStream(resource)) {
            files.put("running (" + System.getProperty("java.version") + ")", in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (Path home : CANDIDATE_HOMES) {
            if (!Files.isRegularFile(home.resolve("lib").resolve("modules"))) {
                continue;
            }
            try (FileSystem jrt = FileSystems.newFileSystem(URI.create("jrt:/"), Map.of("java.home", home.toString()))) {
                files.put(home.toString(), Files.readAllBytes(jrt.getPath("/modules/java.base/" + resource)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files;
    }

    /** The class file's fields, as {@code name descriptor}. */
    static List<String> fields(byte[] classFile) {
        List<String> fields = new ArrayList<>();
        new ClassReader(classFile).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
                fields.add(name + " " + descriptor);
                return null;
            }
        }, ClassReader.SKIP_CODE);
        return fields;
    }

    /** The class file's concrete methods, as {@code name+descriptor}. */
    static List<String> concreteMethods(byte[] classFile) {
        List<String> methods = new ArrayList<>();
        new ClassReader(classFile).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                if ((access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) == 0) {
                    methods.add(name + descriptor);
                }
                return null;
            }
        }, ClassReader.SKIP_CODE);
        return methods;
    }

    /** The class file's super class, as an internal name. */
    static String superName(byte[] classFile) {
        return new ClassReader(classFile).getSuperName();
    }
}
