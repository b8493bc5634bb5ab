package dev.retryagent.agent.instrument;

import dev.retryagent.engine.RetryLog;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;

/**
 * A plain {@link ClassFileTransformer}: it looks the class name up among the hooked classes and returns null
 * for everything else, so the classes of an application cost one hash lookup each. Only a hooked class is
 * parsed and woven ({@link HookWeaver}). This, not a Byte Buddy {@code AgentBuilder}, keeps the agent inside
 * its start-up budget.
 */
public final class HookTransformer implements ClassFileTransformer {
    /** Hook points by internal class name. */
    private final Map<String, List<HookPoint>> byClass;

    public HookTransformer(List<HookPoint> points) {
        Map<String, List<HookPoint>> map = new HashMap<String, List<HookPoint>>();
        for (HookPoint point : points) {
            List<HookPoint> list = map.get(point.internalName());
            if (list == null) {
                list = new ArrayList<HookPoint>();
                map.put(point.internalName(), list);
            }
            list.add(point);
        }
        for (Map.Entry<String, List<HookPoint>> e : map.entrySet()) {
            e.setValue(Collections.unmodifiableList(e.getValue()));
        }
        this.byClass = map;
    }

    /** True when {@code binaryName} (such as {@code okhttp3.OkHttpClient}) is a hooked class. */
    public boolean isHooked(String binaryName) {
        return byClass.containsKey(binaryName.replace('.', '/'));
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
}
