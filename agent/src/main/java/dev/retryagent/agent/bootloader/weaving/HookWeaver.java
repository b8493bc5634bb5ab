package dev.retryagent.agent.bootloader.weaving;

import java.util.List;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.Label;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;

/**
 * Inserts the calls of {@link HookPoint}s into a class file, with the ASM that Byte Buddy bundles (44 small
 * classes, against the ~1,000 Byte Buddy loads to build an agent: the difference is the start-up budget).
 *
 * <p>What a hook point becomes, in Java terms, for {@code void enqueue(Callback cb)} of class {@code C}:
 * <pre>
 * ENTRY:           Hooks.enter("hook", C.class, this, new Object[] {cb});
 * ENTRY_MAY_SKIP:  if (Hooks.enter("hook", C.class, this, new Object[] {cb})) return;
 * EXIT:            Hooks.exit("hook", C.class, this, new Object[] {cb});   // before every return
 * </pre>
 * and for {@code R execute(Request r)} ({@code R} a reference type):
 * <pre>
 * ENTRY_MAY_REPLACE:  Object o = Hooks.enterMayReplace("hook", C.class, this, new Object[] {r});
 *                     if (o != Hooks.PROCEED) return (R) o;     // a boolean method: ((Boolean) o).booleanValue()
 * RETRY_LOOP:         Hooks.enterRetryLoop("hook", C.class, this, new Object[] {r});
 *                     try { body } finally { Hooks.leaveRetryLoop(); }
 * </pre>
 * {@code this} is null in static methods and at a constructor's entry (it is not initialised yet); primitive
 * arguments are boxed. The bytecode is the same for every client; everything else is plain Java in the
 * client's handler. Frames: only {@code ENTRY_MAY_SKIP} and {@code ENTRY_MAY_REPLACE} add a branch, and
 * {@code RETRY_LOOP} an exception handler, so one stack map frame each, which they write themselves, so no class
 * ever has to be loaded to compute frames during a transformation. {@code RETRY_LOOP}'s handler covers the whole
 * original body and is the last entry of the exception table, so that every handler of the method's own comes
 * first; its frame holds the entry locals only (this and the arguments), which every point of the body still
 * has (a Java compiler stores only values of a parameter's type into its slot).
 */
public final class HookWeaver {
    static final String HOOKS = "dev/retryagent/agent/bootloader/runtime/Hooks";
    static final String ENTER_DESCRIPTOR =
            "(Ljava/lang/String;Ljava/lang/Class;Ljava/lang/Object;[Ljava/lang/Object;)Z";
    static final String EXIT_DESCRIPTOR =
            "(Ljava/lang/String;Ljava/lang/Class;Ljava/lang/Object;[Ljava/lang/Object;)V";
    static final String LEAVE_DESCRIPTOR = "()V";
    static final String ENTER_MAY_REPLACE_DESCRIPTOR =
            "(Ljava/lang/String;Ljava/lang/Class;Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;";

    private static final int ASM_API = Opcodes.ASM9;
    private static final int JAVA_5 = 49;
    private static final int JAVA_6 = 50;

    private HookWeaver() {
    }

    /**
     * Weaves {@code points} (all of one class) into {@code classFile}.
     *
     * @return the new class file, or null when no hook point matched a method (nothing to change)
     */
    public static byte[] weave(byte[] classFile, List<HookPoint> points) {
        ClassReader reader = new ClassReader(classFile);
        int major = reader.readUnsignedShort(6);
        if (major < JAVA_5) {
            return null; // no class literals before Java 5; no client we hook is that old
        }
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        HookClassVisitor visitor = new HookClassVisitor(writer, points, major >= JAVA_6);
        reader.accept(visitor, ClassReader.EXPAND_FRAMES);
        return visitor.woven == 0 ? null : writer.toByteArray();
    }

    private static final class HookClassVisitor extends ClassVisitor {
        private final List<HookPoint> points;
        private final boolean writeFrames;
        private String owner;
        int woven;

        HookClassVisitor(ClassVisitor next, List<HookPoint> points, boolean writeFrames) {
            super(ASM_API, next);
            this.points = points;
            this.writeFrames = writeFrames;
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName,
                          String[] interfaces) {
            owner = name;
            super.visit(version, access, name, signature, superName, interfaces);
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                         String[] exceptions) {
            MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
            if ((access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) {
                return mv;
            }
            for (HookPoint point : points) {
                if (point.matches(name, descriptor)) {
                    mv = new HookMethodVisitor(mv, point, owner, access, writeFrames);
                    woven++;
                }
            }
            return mv;
        }
    }

    private static final class HookMethodVisitor extends MethodVisitor {
        private final HookPoint point;
        private final String owner;
        private final boolean isStatic;
        private final boolean isConstructor;
        private final Type[] arguments;
        private final boolean writeFrames;
        /** {@code RETRY_LOOP}: where the protected body starts. */
        private Label loopStart;

        HookMethodVisitor(MethodVisitor next, HookPoint point, String owner, int access, boolean writeFrames) {
            super(ASM_API, next);
            this.point = point;
            this.owner = owner;
            this.isStatic = (access & Opcodes.ACC_STATIC) != 0;
            this.isConstructor = "<init>".equals(point.methodName());
            this.arguments = Type.getArgumentTypes(point.descriptor());
            this.writeFrames = writeFrames;
        }

        @Override
        public void visitCode() {
            super.visitCode();
            if (point.where() == HookPoint.Where.EXIT) {
                return;
            }
            if (point.where() == HookPoint.Where.ENTRY_MAY_REPLACE) {
                visitEntryMayReplace();
                return;
            }
            if (point.where() == HookPoint.Where.RETRY_LOOP) {
                pushHookArguments(!isStatic);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "enterRetryLoop", EXIT_DESCRIPTOR, false);
                loopStart = new Label();
                super.visitLabel(loopStart);
                // A frame of the original code may sit at its first instruction; keep it at another offset.
                super.visitInsn(Opcodes.NOP);
                return;
            }
            // At a constructor's entry "this" is uninitialised and must not be touched.
            pushHookArguments(!isStatic && !isConstructor);
            super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "enter", ENTER_DESCRIPTOR, false);
            if (point.where() == HookPoint.Where.ENTRY) {
                super.visitInsn(Opcodes.POP);
                return;
            }
            Label body = new Label();
            super.visitJumpInsn(Opcodes.IFEQ, body);
            super.visitInsn(Opcodes.RETURN);
            super.visitLabel(body);
            if (writeFrames) {
                super.visitFrame(Opcodes.F_NEW, entryLocals().length, entryLocals(), 0, new Object[0]);
            }
            // A frame of the original code may sit at its first instruction; keep it at another offset.
            super.visitInsn(Opcodes.NOP);
        }

        /**
         * The hook's answer stays on the operand stack (no local variable is added): compared with
         * {@code Hooks.PROCEED}, then either cast and returned, or popped before the original body runs.
         */
        private void visitEntryMayReplace() {
            pushHookArguments(!isStatic); // never a constructor (HookPoint refuses one)
            super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "enterMayReplace", ENTER_MAY_REPLACE_DESCRIPTOR, false);
            super.visitInsn(Opcodes.DUP);
            super.visitFieldInsn(Opcodes.GETSTATIC, HOOKS, "PROCEED", "Ljava/lang/Object;");
            Label body = new Label();
            super.visitJumpInsn(Opcodes.IF_ACMPEQ, body);
            Type returned = Type.getReturnType(point.descriptor());
            if (returned.getSort() == Type.BOOLEAN) {
                super.visitTypeInsn(Opcodes.CHECKCAST, "java/lang/Boolean");
                super.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "java/lang/Boolean", "booleanValue", "()Z", false);
                super.visitInsn(Opcodes.IRETURN);
            } else {
                super.visitTypeInsn(Opcodes.CHECKCAST, returned.getInternalName());
                super.visitInsn(Opcodes.ARETURN);
            }
            super.visitLabel(body);
            if (writeFrames) {
                super.visitFrame(Opcodes.F_NEW, entryLocals().length, entryLocals(), 1, new Object[] {"java/lang/Object"});
            }
            // The POP keeps a frame of the original code at its first instruction at another offset than this one.
            super.visitInsn(Opcodes.POP);
        }

        @Override
        public void visitInsn(int opcode) {
            if (opcode >= Opcodes.IRETURN && opcode <= Opcodes.RETURN) {
                if (point.where() == HookPoint.Where.EXIT) {
                    pushHookArguments(!isStatic);
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "exit", EXIT_DESCRIPTOR, false);
                } else if (point.where() == HookPoint.Where.RETRY_LOOP) {
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "leaveRetryLoop", LEAVE_DESCRIPTOR, false);
                }
            }
            super.visitInsn(opcode);
        }

        /** {@code RETRY_LOOP}: the catch-all handler after the body, added last to the exception table. */
        @Override
        public void visitMaxs(int maxStack, int maxLocals) {
            if (loopStart != null) {
                Label end = new Label();
                Label handler = new Label();
                super.visitLabel(end);
                super.visitTryCatchBlock(loopStart, end, handler, null);
                super.visitLabel(handler);
                if (writeFrames) {
                    Object[] locals = entryLocals();
                    super.visitFrame(Opcodes.F_NEW, locals.length, locals, 1, new Object[] {"java/lang/Throwable"});
                }
                super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "leaveRetryLoop", LEAVE_DESCRIPTOR, false);
                super.visitInsn(Opcodes.ATHROW);
            }
            super.visitMaxs(maxStack, maxLocals);
        }

        /** Pushes hook name, hooked class, this (or null) and the arguments as an Object[]. */
        private void pushHookArguments(boolean passThis) {
            super.visitLdcInsn(point.hook());
            super.visitLdcInsn(Type.getObjectType(owner));
            if (passThis) {
                super.visitVarInsn(Opcodes.ALOAD, 0);
            } else {
                super.visitInsn(Opcodes.ACONST_NULL);
            }
            pushInt(arguments.length);
            super.visitTypeInsn(Opcodes.ANEWARRAY, "java/lang/Object");
            int slot = isStatic ? 0 : 1;
            for (int i = 0; i < arguments.length; i++) {
                Type argument = arguments[i];
                super.visitInsn(Opcodes.DUP);
                pushInt(i);
                super.visitVarInsn(argument.getOpcode(Opcodes.ILOAD), slot);
                box(argument);
                super.visitInsn(Opcodes.AASTORE);
                slot += argument.getSize();
            }
        }

        private void pushInt(int value) {
            if (value <= 5) {
                super.visitInsn(Opcodes.ICONST_0 + value);
            } else {
                super.visitIntInsn(Opcodes.BIPUSH, value);
            }
        }

        private void box(Type type) {
            String boxed;
            switch (type.getSort()) {
                case Type.BOOLEAN: boxed = "java/lang/Boolean"; break;
                case Type.CHAR: boxed = "java/lang/Character"; break;
                case Type.BYTE: boxed = "java/lang/Byte"; break;
                case Type.SHORT: boxed = "java/lang/Short"; break;
                case Type.INT: boxed = "java/lang/Integer"; break;
                case Type.FLOAT: boxed = "java/lang/Float"; break;
                case Type.LONG: boxed = "java/lang/Long"; break;
                case Type.DOUBLE: boxed = "java/lang/Double"; break;
                default: return;
            }
            super.visitMethodInsn(Opcodes.INVOKESTATIC, boxed, "valueOf",
                    "(" + type.getDescriptor() + ")L" + boxed + ";", false);
        }

        /** The locals at the method's entry, in expanded frame form: this, then the arguments. */
        private Object[] entryLocals() {
            Object[] locals = new Object[(isStatic ? 0 : 1) + arguments.length];
            int i = 0;
            if (!isStatic) {
                locals[i++] = owner;
            }
            for (Type argument : arguments) {
                switch (argument.getSort()) {
                    case Type.BOOLEAN:
                    case Type.CHAR:
                    case Type.BYTE:
                    case Type.SHORT:
                    case Type.INT:
                        locals[i++] = Opcodes.INTEGER;
                        break;
                    case Type.FLOAT:
                        locals[i++] = Opcodes.FLOAT;
                        break;
                    case Type.LONG:
                        locals[i++] = Opcodes.LONG;
                        break;
                    case Type.DOUBLE:
                        locals[i++] = Opcodes.DOUBLE;
                        break;
                    case Type.ARRAY:
                        locals[i++] = argument.getDescriptor();
                        break;
                    default:
                        locals[i++] = argument.getInternalName();
                }
            }
            return locals;
        }
    }
}
