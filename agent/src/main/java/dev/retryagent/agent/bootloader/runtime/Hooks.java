package dev.retryagent.agent.bootloader.runtime;

import dev.retryagent.engine.LayerRetries;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.engine.UpperLayer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

/**
 * The one class instrumented client code calls. It lives on the bootstrap search path, so a hooked class in
 * any class loader (the system loader, a web application's, {@code java.base}) can link to it; it names no
 * client type. {@link dev.retryagent.agent.bootloader.weaving.HookWeaver} inserts calls to {@link #enter} and
 * {@link #exit}; each call is routed to the {@link Handler} of the hooked class's client and class loader.
 *
 * <p>Fail open (docs/reference.md#fail-open): an exception thrown by a handler is logged once and the hooked method
 * runs as if the agent were absent, unless the handler wrapped it in {@link Propagate} to say that it came from the
 * application's or the client's own code, which must see it unchanged.
 */
public final class Hooks {
    /**
     * What a handler answers from {@link Handler#onEnterMayReplace} to let the hooked method run its own body;
     * any other value (null included) is returned by the hooked method instead.
     */
    public static final Object PROCEED = new Object();

    private static volatile Resolver resolver;
    /**
     * The {@code ENTRY_MAY_REPLACE} hooks whose handler is running on this thread, as pairs of hook name and
     * instance (see {@link #enterMayReplace}).
     */
    private static final ThreadLocal<ArrayList<Object>> REPLACING = new ThreadLocal<ArrayList<Object>>();

    private Hooks() {
    }

    /**
     * A client's hook logic, loaded in the client's own class loader so that it can use the client's types. Every
     * client's handler is an {@code bootloader.weaving.HookHandler}, which binds each hook name to the code that serves it.
     */
    public interface Handler {
        /**
         * At the entry of hooked method {@code hook}.
         *
         * @param self the instance, or null for a static method or a constructor (not yet initialised)
         * @param args the method's arguments
         * @return true when the handler took the call over and a (void) hooked method must return at once
         */
        boolean onEnter(String hook, Object self, Object[] args);

        /** Before every normal return of hooked method {@code hook}. */
        void onExit(String hook, Object self, Object[] args);

        /**
         * At the entry of hooked method {@code hook} of kind {@code ENTRY_MAY_REPLACE}.
         *
         * @return the value the hooked method returns at once, without running its body; or {@link #PROCEED}
         */
        default Object onEnterMayReplace(String hook, Object self, Object[] args) {
            return PROCEED;
        }

        /**
         * At the entry of hooked method {@code hook} of kind {@code RETRY_LOOP}: which retry layer above the client
         * the loop starting here is (docs/reference.md#layers-above-the-client), and what it retries.
         *
         * @return the layer, with what its loop retries, when the loop will retry; {@link LayerRetries#RETRIES_OFF}
         *         when its retries are switched off; null when this run of the method is not such a loop
         */
        default LayerRetries retryLayer(String hook, Object self, Object[] args) {
            return null;
        }
    }

    /** Finds the handler for a hooked class: per client, per class loader. */
    public interface Resolver {
        /** The handler for hooks in {@code site}, or null when there is none. */
        Handler handlerFor(Class<?> site);
    }

    /**
     * Thrown by a handler to pass an exception of the application's or the client's own code through to the
     * caller of the hooked method unchanged (it is not an agent error).
     */
    public static final class Propagate extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Propagate(Throwable cause) {
            super(cause);
        }
    }

    /** Handler instances registered by their classes' static initializers, until the resolver takes them. */
    private static final Map<Class<?>, Handler> REGISTERED = new HashMap<Class<?>, Handler>();

    /**
     * Called from a handler class's static initializer with its instance, so that the resolver needs no
     * reflection to make one (reflection spins method handles on Java 18+: milliseconds of start-up).
     */
    public static void register(Class<?> handlerClass, Handler handler) {
        synchronized (REGISTERED) {
            REGISTERED.put(handlerClass, handler);
        }
    }

    /** The instance {@code handlerClass} registered, removed from the registry; null when there is none. */
    public static Handler takeRegistered(Class<?> handlerClass) {
        synchronized (REGISTERED) {
            return REGISTERED.remove(handlerClass);
        }
    }

    public static void install(Resolver r) {
        resolver = r;
    }

    /** Called at the entry of a hooked method; true means "return at once" (see {@link Handler#onEnter}). */
    public static boolean enter(String hook, Class<?> site, Object self, Object[] args) {
        Resolver r = resolver;
        if (r == null) {
            return false;
        }
        try {
            Handler handler = handlerAt(r, hook, site);
            return handler != null && handler.onEnter(hook, self, args);
        } catch (Throwable t) {
            failOpen(hook, t);
            return false;
        }
    }

    /**
     * Called at the entry of a hooked method of kind {@code ENTRY_MAY_REPLACE}: the value it returns instead of
     * running its body, or {@link #PROCEED}. Re-entrancy guard: while the handler of {@code hook} runs for
     * {@code self}, a nested call of the same hook on the same instance and thread (the handler calling the hooked
     * method to make the real call, or the client re-entering it) gets {@link #PROCEED} without reaching the
     * handler, so the body runs. The same hook on another instance (a call of its own made inside an attempt)
     * reaches the handler, which treats it as a nested call (docs/reference.md#one-retry-layer).
     */
    public static Object enterMayReplace(String hook, Class<?> site, Object self, Object[] args) {
        Resolver r = resolver;
        if (r == null) {
            return PROCEED;
        }
        ArrayList<Object> running = REPLACING.get();
        if (running == null) {
            running = new ArrayList<Object>(4);
            REPLACING.set(running);
        }
        for (int i = 0; i < running.size(); i += 2) {
            if (running.get(i + 1) == self && hook.equals(running.get(i))) {
                return PROCEED;
            }
        }
        int depth = running.size();
        running.add(hook);
        running.add(self);
        try {
            Handler handler = handlerAt(r, hook, site);
            return handler == null ? PROCEED : handler.onEnterMayReplace(hook, self, args);
        } catch (Throwable t) {
            failOpen(hook, t);
            return PROCEED;
        } finally {
            while (running.size() > depth) {
                running.remove(running.size() - 1);
            }
        }
    }

    /**
     * Called at the entry of a hooked retry loop ({@code RETRY_LOOP}): this thread runs inside the layer the handler
     * names until {@link #leaveRetryLoop}, which the woven code calls at every return and throw. Always enters, even
     * when the handler fails (as "not a layer"), so that every leave has its enter.
     */
    public static void enterRetryLoop(String hook, Class<?> site, Object self, Object[] args) {
        LayerRetries layer = null;
        Resolver r = resolver;
        if (r != null) {
            try {
                Handler handler = handlerAt(r, hook, site);
                layer = handler == null ? null : handler.retryLayer(hook, self, args);
            } catch (VirtualMachineError e) {
                UpperLayer.enter((LayerRetries) null);
                throw e;
            } catch (Throwable t) {
                RetryLog.internalError("hook:" + hook, t);
            }
        }
        UpperLayer.enter(layer);
    }

    /** Called when a hooked retry loop returns or throws: ends what {@link #enterRetryLoop} began. */
    public static void leaveRetryLoop() {
        UpperLayer.exit();
    }

    /** Called before every normal return of a hooked method. */
    public static void exit(String hook, Class<?> site, Object self, Object[] args) {
        Resolver r = resolver;
        if (r == null) {
            return;
        }
        try {
            Handler handler = handlerAt(r, hook, site);
            if (handler != null) {
                handler.onExit(hook, self, args);
            }
        } catch (Throwable t) {
            failOpen(hook, t);
        }
    }

    /** The handler of {@code hook} in {@code site}, after the test-only fault injected at the hook's entry. */
    private static Handler handlerAt(Resolver r, String hook, Class<?> site) {
        InjectedFaults.atHook(hook);
        return r.handlerFor(site);
    }

    /**
     * What a hook does with {@code t}, thrown by its handler: rethrows the application's or the client's own exception
     * that a {@link Propagate} carries, and a {@link VirtualMachineError}; logs anything else once, and the hooked
     * method then runs untouched.
     */
    private static void failOpen(String hook, Throwable t) {
        if (t instanceof Propagate) {
            throw Hooks.<RuntimeException>sneaky(t.getCause());
        }
        if (t instanceof VirtualMachineError) {
            throw (VirtualMachineError) t;
        }
        RetryLog.internalError("hook:" + hook, t);
    }

    /** Rethrows {@code t} as it is, checked or not. */
    @SuppressWarnings("unchecked")
    public static <T extends Throwable> T sneaky(Throwable t) throws T {
        throw (T) t;
    }
}
