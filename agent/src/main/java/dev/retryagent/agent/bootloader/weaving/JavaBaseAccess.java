package dev.retryagent.agent.bootloader.weaving;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * What {@code java.base} gives the agent's classes on the bootstrap path, through
 * {@link Instrumentation#redefineModule} (no command-line flag): a read edge to the bootstrap loader's unnamed
 * module, for woven calls from {@code java.base} into it, and packages opened to that module only, for the private
 * state those classes read. Java 8 has no modules: everything is open there.
 */
public final class JavaBaseAccess {
    private JavaBaseAccess() {
    }

    /**
     * {@code java.base} reads the unnamed module of {@code bootstrapClass}'s loader and opens {@code packages} to it.
     * True when each of {@code required} is open to it afterwards (always on Java 8).
     */
    public static boolean open(Instrumentation inst, Class<?> bootstrapClass, String[] packages, String... required)
            throws Exception {
        Class<?> moduleClass;
        try {
            moduleClass = Class.forName("java.lang.Module");
        } catch (ClassNotFoundException java8) {
            return true;
        }
        Method getModule = Class.class.getMethod("getModule");
        Object javaBase = getModule.invoke(Object.class);
        Object bootstrapUnnamed = getModule.invoke(bootstrapClass);
        Map<String, Set<Object>> opens = new HashMap<String, Set<Object>>();
        for (String pkg : packages) {
            opens.put(pkg, Collections.singleton(bootstrapUnnamed));
        }
        Method redefineModule = Instrumentation.class.getMethod("redefineModule",
                moduleClass, Set.class, Map.class, Map.class, Set.class, Map.class);
        redefineModule.invoke(inst, javaBase, Collections.singleton(bootstrapUnnamed), Collections.emptyMap(),
                opens, Collections.emptySet(), Collections.emptyMap());
        Method canRead = moduleClass.getMethod("canRead", moduleClass);
        Method isOpen = moduleClass.getMethod("isOpen", String.class, moduleClass);
        boolean ok = (Boolean) canRead.invoke(javaBase, bootstrapUnnamed);
        for (String pkg : required) {
            ok &= (Boolean) isOpen.invoke(javaBase, pkg, bootstrapUnnamed);
        }
        return ok;
    }
}
