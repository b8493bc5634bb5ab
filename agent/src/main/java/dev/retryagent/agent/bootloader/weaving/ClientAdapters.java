package dev.retryagent.agent.bootloader.weaving;

import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.engine.RetryLog;
import java.lang.instrument.Instrumentation;
import java.security.AccessController;
import java.security.PrivilegedAction;
import java.security.ProtectionDomain;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the {@link Hooks.Handler} for a hooked class: the handler of its client, loaded in the class loader
 * that loaded the client. When the agent's own copy of the adapter classes sees the same client classes
 * (the client is on the system class path), that copy serves; otherwise the adapter classes are defined in
 * the client's loader ({@link ClassInjector}). Cached per hooked class; a loader that cannot be served is
 * logged once and its calls run untouched.
 */
public final class ClientAdapters implements Hooks.Resolver {
    private final Map<String, ClientInstrumentation> byHookedClass = new HashMap<String, ClientInstrumentation>();
    private final ClassValue<Hooks.Handler> handlers = new ClassValue<Hooks.Handler>() {
        @Override
        protected Hooks.Handler computeValue(Class<?> site) {
            return create(site);
        }
    };
    /**
     * One handler instance per handler class (so per client and class loader). Every handler class registers its
     * instance from its static initializer ({@link Hooks#register}), so none is made by reflection, which on Java
     * 18+ spins method handles at its first use: milliseconds of start-up. The registry hands an instance out once
     * (it must not keep a child loader's class alive); the constructor serves a second thread computing the same
     * value in a race.
     */
    private final ClassValue<Hooks.Handler> instances = new ClassValue<Hooks.Handler>() {
        @Override
        protected Hooks.Handler computeValue(Class<?> handlerClass) {
            try {
                Class.forName(handlerClass.getName(), true, handlerClass.getClassLoader()); // its static initializer
                Hooks.Handler registered = Hooks.takeRegistered(handlerClass);
                return registered != null ? registered
                        : (Hooks.Handler) handlerClass.getConstructor().newInstance();
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot create the handler " + handlerClass.getName(), e);
            }
        }
    };

    /** The loader of the agent jar's own classes (this class may live on the bootstrap path). */
    private final ClassLoader agentLoader;

    /**
     * @param inst        used to open {@code java.lang} for defining adapter classes in other loaders (Java 9+)
     * @param agentLoader the class loader of the agent jar, which holds the adapter classes
     * @param agentDomain the protection domain of the agent jar's classes, which adapter classes defined in other
     *                    loaders get too
     */
    public ClientAdapters(List<ClientInstrumentation> clients, Instrumentation inst, ClassLoader agentLoader,
                          ProtectionDomain agentDomain) {
        this.agentLoader = agentLoader;
        ClassInjector.init(inst, agentLoader, agentDomain);
        for (ClientInstrumentation client : clients) {
            for (HookPoint point : client.hookPoints()) {
                byHookedClass.put(point.className(), client);
            }
        }
    }

    @Override
    public Hooks.Handler handlerFor(Class<?> site) {
        return handlers.get(site);
    }

    private Hooks.Handler create(Class<?> site) {
        ClientInstrumentation client = byHookedClass.get(site.getName());
        if (client == null) {
            return null;
        }
        try {
            Class<?> handlerClass = handlerClass(site, client);
            return instances.get(handlerClass);
        } catch (Throwable t) {
            if (t instanceof VirtualMachineError) {
                throw (VirtualMachineError) t;
            }
            RetryLog.internalError("adapter:" + client.name(), t);
            return null;
        }
    }

    private Class<?> handlerClass(Class<?> site, ClientInstrumentation client) throws Exception {
        ClassLoader loader = site.getClassLoader();
        ClassLoader own = agentLoader;
        if (loader == null) {
            // A JDK class (java.base): its handler uses JDK types only and sits on the bootstrap path, where the
            // agent's own loader finds it through its parents.
            return Class.forName(client.handlerClass(), true, own);
        }
        if (sameClassVisible(own, site)) {
            return Class.forName(client.handlerClass(), true, own);
        }
        return ClassInjector.inject(loader, client);
    }

    /**
     * True when {@code loader} resolves {@code site}'s name to {@code site} itself. Privileged: asked on the
     * application's thread, and a JDK-internal site ({@code jdk.internal.net.http}) is a package that the application's
     * grant under a security manager need not let a class loader look up.
     */
    private static boolean sameClassVisible(final ClassLoader loader, final Class<?> site) {
        return AccessController.doPrivileged(new PrivilegedAction<Boolean>() {
            @Override
            public Boolean run() {
                try {
                    return Class.forName(site.getName(), false, loader) == site;
                } catch (ClassNotFoundException e) {
                    return false;
                } catch (LinkageError e) {
                    return false;
                }
            }
        });
    }
}
