package dev.retryagent.agent.bootloader.weaving;

import dev.retryagent.engine.RetryLog;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.AccessController;
import java.security.PrivilegedAction;
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
 * for everything else, so a class of an application costs a hash lookup (two: see below). Only a hooked class is
 * parsed and woven ({@link HookWeaver}). This, not a Byte Buddy {@code AgentBuilder}, keeps the agent inside
 * its start-up budget. Hooked classes loaded before the transformer was added are retransformed
 * ({@link #retransformLoaded}). A class that is not hooked costs a second lookup, among the classes of clients the
 * agent does not instrument ({@link UncoveredClients}), which are reported and otherwise left alone.
 *
 * <p>Built from the clients ({@link #HookTransformer(List, Instrumentation)}), it readies each client
 * ({@link ClientInstrumentation#prepare}: the module edges its woven code needs) right before the first of its classes
 * is woven, not at start-up: an application pays for the clients it uses only (on Java 25 each costs milliseconds
 * of reflection on the Module API). A client whose preparation fails is left out: its classes load unchanged.
 *
 * <p>Weaving ahead on a background thread was tried and left: docs/decisions.md.
 */
public final class HookTransformer implements ClassFileTransformer {
    /** Hook points by internal class name. */
    private final Map<String, List<HookPoint>> byClass;
    /** Binary names of the hooked classes. */
    private final Set<String> binaryNames;
    /** The client of each hooked class (internal name), to prepare; empty when built from hook points alone. */
    private final Map<String, ClientInstrumentation> clientByClass = new HashMap<String, ClientInstrumentation>();
    /** What {@link ClientInstrumentation#prepare} answered, per client; guarded by the map. */
    private final Map<ClientInstrumentation, Boolean> prepared = new HashMap<ClientInstrumentation, Boolean>();
    private final Instrumentation instrumentation;
    /** Where the classes of clients the agent does not instrument are reported; null when built from hook points. */
    private final UncoveredClients uncovered;

    /** Weaves the hook points of {@code clients}, each client prepared before its first class is woven. */
    public HookTransformer(List<ClientInstrumentation> clients, Instrumentation inst) {
        this(inst, hookPoints(clients), UncoveredClients.jvm());
        for (ClientInstrumentation client : clients) {
            for (HookPoint point : client.hookPoints()) {
                clientByClass.put(point.internalName(), client);
            }
        }
    }

    /** Weaves {@code points}, with nothing to prepare. */
    public HookTransformer(List<HookPoint> points) {
        this(null, points, null);
    }

    /** Weaves {@code points}, with nothing to prepare, and reports uncovered clients' classes to {@code uncovered}. */
    HookTransformer(List<HookPoint> points, UncoveredClients uncovered) {
        this(null, points, uncovered);
    }

    private HookTransformer(Instrumentation inst, List<HookPoint> points, UncoveredClients uncovered) {
        this.instrumentation = inst;
        this.uncovered = uncovered;
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
            if (uncovered != null) {
                uncovered.classLoaded(className, loader); // one more lookup; never throws
            }
            return null;
        }
        if (!prepare(clientByClass.get(className))) {
            return null;
        }
        try {
            byte[] woven = HookWeaver.weave(classfileBuffer, points);
            if (woven != null && RetryLog.isLoggable(Level.FINE)) {
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

    private static List<HookPoint> hookPoints(List<ClientInstrumentation> clients) {
        List<HookPoint> points = new ArrayList<HookPoint>();
        for (ClientInstrumentation client : clients) {
            points.addAll(client.hookPoints());
        }
        return points;
    }

    /** True when {@code client} (null: none to prepare) is ready for its classes to be woven; prepares it once. */
    private boolean prepare(final ClientInstrumentation client) {
        if (client == null) {
            return true;
        }
        synchronized (prepared) {
            Boolean ready = prepared.get(client);
            if (ready == null) {
                ready = Boolean.FALSE;
                try {
                    // Privileged: the class being loaded is the application's doing, on its thread, whose grant under a
                    // security manager need not cover the agent's changes to the modules' edges.
                    ready = AccessController.doPrivileged(new PrivilegedAction<Boolean>() {
                        @Override
                        public Boolean run() {
                            return client.prepare(instrumentation);
                        }
                    });
                } catch (Throwable t) {
                    if (t instanceof VirtualMachineError) {
                        throw (VirtualMachineError) t;
                    }
                    RetryLog.internalError("prepare:" + client.name(), t);
                }
                prepared.put(client, ready);
            }
            return ready;
        }
    }

    /**
     * Hooked classes loaded before this transformer was added (by another agent, or before an attach) are woven
     * now, and uncovered clients' classes among them reported. Call right after adding the transformer: a class
     * loaded since then is woven (or reported) already.
     */
    public int retransformLoaded(Instrumentation inst) {
        List<Class<?>> loaded = new ArrayList<Class<?>>();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (uncovered != null) {
                uncovered.loadedEarlier(c);
            }
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
