package dev.retryagent.agent;

import java.util.ArrayList;
import java.util.List;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.FieldVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

/** What a class file declares, read without loading it: the names a hook point or a reflective read relies on. */
public final class ClassFileMembers {
    private ClassFileMembers() {
    }

    /** The class file's fields, as {@code name descriptor}. */
    public static List<String> fields(byte[] classFile) {
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

    /** The class file's methods, abstract and native ones too, as {@code name+descriptor}. */
    public static List<String> methods(byte[] classFile) {
        return methods(classFile, false);
    }

    /** The class file's methods with code, as {@code name+descriptor}. */
    public static List<String> concreteMethods(byte[] classFile) {
        return methods(classFile, true);
    }

    private static List<String> methods(byte[] classFile, boolean concreteOnly) {
        List<String> methods = new ArrayList<>();
        new ClassReader(classFile).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                if (!concreteOnly || (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) == 0) {
                    methods.add(name + descriptor);
                }
                return null;
            }
        }, ClassReader.SKIP_CODE);
        return methods;
    }
}
