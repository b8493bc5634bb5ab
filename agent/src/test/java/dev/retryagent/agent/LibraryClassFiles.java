package dev.retryagent.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

/**
 * Class files as the test class path has them: a library's, whose methods a hook point must name, or a test fixture's,
 * to weave.
 */
public final class LibraryClassFiles {
    private LibraryClassFiles() {
    }

    /** The class file of the class {@code binaryName}. */
    public static byte[] bytes(String binaryName) {
        String resource = binaryName.replace('.', '/') + ".class";
        try (InputStream in = LibraryClassFiles.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException(resource + " is not on the test class path");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every method with code of the class {@code binaryName}, as {@code name+descriptor}, with its access flags. */
    public static Map<String, Integer> concreteMethods(String binaryName) {
        Map<String, Integer> methods = new LinkedHashMap<>();
        new ClassReader(bytes(binaryName)).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                if ((access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) == 0) {
                    methods.put(name + descriptor, access);
                }
                return null;
            }
        }, ClassReader.SKIP_CODE);
        return methods;
    }
}
