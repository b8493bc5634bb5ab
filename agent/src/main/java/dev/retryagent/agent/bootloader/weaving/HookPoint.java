package dev.retryagent.agent.bootloader.weaving;

/**
 * One place in a client class where {@link HookWeaver} inserts a call to
 * {@link dev.retryagent.agent.bootloader.runtime.Hooks}: a method (by name and descriptor) of a class (by name), at its
 * entry or before each of its normal returns. The inserted call passes the hook's name, the hooked class,
 * {@code this} (null in static methods and at a constructor's entry) and the arguments as an
 * {@code Object[]}; all logic lives in the client's {@link HookHandler}, in the code it binds to the hook's name.
 */
public final class HookPoint {
    /** Where in the method the call goes. */
    public enum Where {
        /** At the entry; the handler's answer is ignored. */
        ENTRY,
        /**
         * At the entry of a void method; when the handler answers true, the method returns at once without
         * running its body (the handler has done the work).
         */
        ENTRY_MAY_SKIP,
        /** Before each normal return (not on exceptions). */
        EXIT,
        /**
         * At the entry of a method that returns a reference type or a {@code boolean} (answered as a
         * {@code Boolean}): when the handler answers a value other than
         * {@link dev.retryagent.agent.bootloader.runtime.Hooks#PROCEED}, the method returns that value at once without
         * running its body (the handler has done the work, usually by calling the method again: such a nested
         * call on the same thread runs the body, see {@link dev.retryagent.agent.bootloader.runtime.Hooks#enterMayReplace}).
         */
        ENTRY_MAY_REPLACE,
        /**
         * The method is a retry loop of a layer above the client (docs/reference.md#layers-above-the-client): at its
         * entry the handler says which layer it is ({@link dev.retryagent.agent.bootloader.runtime.Hooks.Handler#retryLayer}),
         * and this thread runs inside it ({@link dev.retryagent.engine.UpperLayer}) until the method returns or throws.
         */
        RETRY_LOOP
    }

    private final String hook;
    private final String className;
    private final String internalName;
    private final String methodName;
    private final String descriptor;
    private final Where where;

    /**
     * @param hook       the hook's name, passed to the handler (for example {@code okhttp.enqueue}), which serves it
     *                   with code of kind {@code where}
     * @param className  the binary name of the class, for example {@code okhttp3.OkHttpClient$Builder}
     * @param methodName the method, or {@code <init>} for a constructor
     * @param descriptor the method descriptor, for example {@code (Lokhttp3/Callback;)V}
     */
    public HookPoint(String hook, String className, String methodName, String descriptor, Where where) {
        if (where == Where.ENTRY_MAY_SKIP && (!descriptor.endsWith(")V") || "<init>".equals(methodName))) {
            throw new IllegalArgumentException(hook + ": only a void method that is not a constructor can be skipped");
        }
        if (where == Where.RETRY_LOOP && "<init>".equals(methodName)) {
            throw new IllegalArgumentException(hook + ": a constructor is no retry loop");
        }
        if (where == Where.ENTRY_MAY_REPLACE && (!returnsReferenceOrBoolean(descriptor) || "<init>".equals(methodName))) {
            throw new IllegalArgumentException(
                    hook + ": only a method returning a reference type or a boolean can have its result replaced");
        }
        this.hook = hook;
        this.className = className;
        this.internalName = className.replace('.', '/');
        this.methodName = methodName;
        this.descriptor = descriptor;
        this.where = where;
    }

    public static HookPoint entry(String hook, String className, String methodName, String descriptor) {
        return new HookPoint(hook, className, methodName, descriptor, Where.ENTRY);
    }

    public static HookPoint entryMaySkip(String hook, String className, String methodName, String descriptor) {
        return new HookPoint(hook, className, methodName, descriptor, Where.ENTRY_MAY_SKIP);
    }

    public static HookPoint exit(String hook, String className, String methodName, String descriptor) {
        return new HookPoint(hook, className, methodName, descriptor, Where.EXIT);
    }

    public static HookPoint entryMayReplace(String hook, String className, String methodName, String descriptor) {
        return new HookPoint(hook, className, methodName, descriptor, Where.ENTRY_MAY_REPLACE);
    }

    public static HookPoint retryLoop(String hook, String className, String methodName, String descriptor) {
        return new HookPoint(hook, className, methodName, descriptor, Where.RETRY_LOOP);
    }

    private static boolean returnsReferenceOrBoolean(String descriptor) {
        int close = descriptor.lastIndexOf(')');
        if (close < 0 || close + 1 >= descriptor.length()) {
            return false;
        }
        char returned = descriptor.charAt(close + 1);
        return returned == 'L' || returned == '[' || returned == 'Z';
    }

    public String hook() {
        return hook;
    }

    /** The binary name, such as {@code okhttp3.OkHttpClient}. */
    public String className() {
        return className;
    }

    /** The internal name, such as {@code okhttp3/OkHttpClient}, as class file transformers see it. */
    public String internalName() {
        return internalName;
    }

    public String methodName() {
        return methodName;
    }

    public String descriptor() {
        return descriptor;
    }

    public Where where() {
        return where;
    }

    boolean matches(String name, String desc) {
        return methodName.equals(name) && descriptor.equals(desc);
    }

    @Override
    public String toString() {
        return hook + " " + where + " " + className + "." + methodName + descriptor;
    }
}
