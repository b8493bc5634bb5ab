package dev.retryagent.agent.instrument;

import dev.retryagent.engine.RetryLog;
import java.io.IOException;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;

/**
 * A plain {@link ClassFileTransformer}: it looks the class name up among the hooked classes and returns null
 * for everything else, so the classes of an application cost one hash lookup each. Only a hooked class is
 * parsed and woven ({@link HookWeaver}). This, not a Byte Buddy {@code AgentBuilder}, keeps the agent inside
 * its start-up budget.
 *
 * <p>The first weave of a JVM is the expensive one (loading and first running ASM: ~10 ms, against ~1 ms
 * after). {@link #prepareInBackground} therefore weaves, on a background thread started at premain, the
 * hooked classes the system class loader can see, as bytes: when the application then loads such a class and
 * its bytes are the ones prepared, the woven bytes are ready. The same thread retransforms hooked classes that
 * were loaded before the agent started.
 */
public final class HookTransformer implements ClassFileTransformer {
    /** Hook points by internal class name. */
    private final Map<String, List<HookPoint>> byClass;
    /** Binary names of the hooked classes. */
    private final Set<String> binaryNames;
    /** Woven ahead of time, by internal name: {original class file, woven class file}. */
    private final Map<String, byte[][]> prepared = new ConcurrentHashMap<String, byte[][]>();
    /** Classes woven as they were loaded ({@code name@loader}): nothing to retransform for them. */
    private final Set<String> wovenAtLoad = Collections.newSetFromMap(new ConcurrentHashMap<String, Boolean>());
    /** Counted down once this transformer has been added: then loaded classes can be retransformed. */
    private final CountDownLatch added = new CountDownLatch(1);

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
            byte[][] ready = prepared.get(className);
            byte[] woven = ready != null && Arrays.equals(ready[0], classfileBuffer)
                    ? ready[1]
                    : HookWeaver.weave(classfileBuffer, points);
            if (woven != null && classBeingRedefined == null) {
                wovenAtLoad.add(key(loader, className));
            }
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

    private static String key(ClassLoader loader, String internalName) {
        return internalName + "@" + System.identityHashCode(loader);
    }

    /**
     * Starts the daemon thread {@code retry-agent-prepare}: it weaves ahead the hooked classes visible to the
     * system class loader (or, when there are none, a sample class, so that at least ASM is loaded), then, once
     * {@link #added()} has been called, retransforms the hooked classes that were loaded before.
     */
    public void prepareInBackground(final Instrumentation inst) {
        Thread thread = new Thread(new Runnable() {
            @Override
            public void run() {
                prepare();
                try {
                    added.await();
                } catch (InterruptedException e) {
                    return;
                }
                retransformLoaded(inst);
            }
        }, "retry-agent-prepare");
        thread.setDaemon(true);
        thread.start();
    }

    /** This transformer has been added to the {@link Instrumentation}. */
    public void added() {
        added.countDown();
    }

    void prepare() {
        ClassLoader system = ClassLoader.getSystemClassLoader();
        boolean any = false;
        for (Map.Entry<String, List<HookPoint>> e : byClass.entrySet()) {
            try {
                byte[] original = ClassInjector.classFile(system, e.getKey().replace('/', '.'));
                byte[] woven = HookWeaver.weave(original, e.getValue());
                if (woven != null) {
                    prepared.put(e.getKey(), new byte[][] {original, woven});
                    any = true;
                }
            } catch (IOException notOnTheClassPath) {
                // the client is not on the system class path (or not used at all)
            } catch (Throwable t) {
                // only an optimisation: the class is woven when it loads
            }
        }
        if (!any) {
            try {
                String sample = "dev.retryagent.agent.instrument.HookWeaver$Sample";
                byte[] bytes = ClassInjector.classFile(HookTransformer.class.getClassLoader(), sample);
                HookWeaver.weave(bytes, Arrays.asList(
                        HookPoint.entry("warm-up", sample, "<init>", "()V"),
                        HookPoint.entryMaySkip("warm-up", sample, "run", "(Ljava/lang/String;J[I)V"),
                        HookPoint.exit("warm-up", sample, "run", "(Ljava/lang/String;J[I)V")));
            } catch (Throwable ignored) {
                // only a warm-up
            }
        }
    }

    /** Hooked classes loaded before this transformer was added (another agent, an attach) are woven now. */
    int retransformLoaded(Instrumentation inst) {
        List<Class<?>> loaded = new ArrayList<Class<?>>();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (binaryNames.contains(c.getName()) && inst.isModifiableClass(c)
                    && !wovenAtLoad.contains(key(c.getClassLoader(), c.getName().replace('.', '/')))) {
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
