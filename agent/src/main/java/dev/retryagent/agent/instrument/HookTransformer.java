package dev.retryagent.agent.instrument;

import dev.retryagent.engine.RetryLog;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;

/**
 * A plain {@link ClassFileTransformer}: it looks the class name up among the hooked classes and returns null
 * for everything else, so the classes of an application cost one hash lookup each. Only a hooked class is
 * parsed and woven ({@link HookWeaver}). This, not a Byte Buddy {@code AgentBuilder}, keeps the agent inside
 * its start-up budget. Hooked classes loaded before the transformer was added are retransformed
 * ({@link #retransformLoaded}).
 *
 * <p>Tried and dropped: weaving the hooked classes ahead on a background thread. On two cores start-up is
 * CPU-bound; the thread saved the application's thread ~5 ms of weaving and cost ~35 ms of CPU (~12 ms of wall
 * time) reading the class files a second time.
 */
public final class HookTransformer implements ClassFileTransformer {
    /** Hook points by internal class name. */
    private final Map<String, List<HookPoint>> byClass;
    /** Binary names of the hooked classes. */
    private final Set<String> binaryNames;

    public HookTransformer(List<HookPoint> points) {
        Map<String, List<HookPoint>> map = new HashMap<String, List<HookPoint>>();
        Set<String> names = new HashSet<String>();
        for (HookPoint point : points) {
            List<HookPoint> list = map.get(point.internalName());
            if (list == null) {
                list = new ArrayList<HookPoint>();
                map.put(point.internalName(), list);
            }
            list.add(point);
            names.add(point.className());
        }
        for (Map.Entry<String, List<HookPoint>> e : map.entrySet()) {
            e.setValue(Collections.unmodifiableList(e.getValue()));
        }
        this.byClass = map;
        this.binaryNames = names;
    }

    /** True when {@code binaryName} (such as {@code okhttp3.OkHttpClient}) is a hooked class. */
    public boolean isHooked(String binaryName) {
        return binaryNames.contains(binaryName);
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> classBeingRedefined,
                            ProtectionDomain protectionDomain, byte[] classfileBuffer) {
        if (className == null) {
            return null;
        }
        List<HookPoint> points = byClass.get(className);
        if (points == null) {
            return null;
        }
        try {
            byte[] woven = HookWeaver.weave(classfileBuffer, points);
            if (woven != null && RetryLog.logger().isLoggable(Level.FINE)) {
                RetryLog.agent(Level.FINE, "instrumented class=" + className.replace('/', '.')
                        + (classBeingRedefined != null ? " retransformed=true" : ""));
            }
            return woven;
        } catch (Throwable t) {
            // The class loads unchanged: its calls are not retried, the application runs on.
            RetryLog.internalError("weave:" + className, t);
            return null;
        }
    }

    /**
     * Hooked classes loaded before this transformer was added (by another agent, or before an attach) are woven
     * now. Call right after adding the transformer: a class loaded since then is woven already.
     */
    public int retransformLoaded(Instrumentation inst) {
        List<Class<?>> loaded = new ArrayList<Class<?>>();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (binaryNames.contains(c.getName()) && inst.isModifiableClass(c)) {
                loaded.add(c);
            }
        }
        for (Class<?> c : loaded) {
            try {
                inst.retransformClasses(c);
            } catch (Throwable t) {
                RetryLog.internalError("retransform:" + c.getName(), t);
            }
        }
        return loaded.size();
    }
}
