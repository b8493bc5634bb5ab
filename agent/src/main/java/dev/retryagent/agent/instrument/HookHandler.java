package dev.retryagent.agent.instrument;

import dev.retryagent.agent.bootstrap.Hooks;
import dev.retryagent.engine.RetryLog;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@link Hooks.Handler} every client and retry layer extends: its constructor binds each hook name its
 * {@link ClientInstrumentation} uses to the code that serves it ({@link #serve}), and the kind of that code is the kind
 * of the hook point ({@link HookPoint.Where}). {@code Hooks} calls reach the code of their hook through one lookup;
 * {@code ClientHandlersTest} checks, over every client the agent registers, that each hook point has code of its
 * kind and each bound hook a hook point. A hook without code of the kind called (which that test rules out) runs its
 * method untouched and is logged once as an internal error.
 */
public abstract class HookHandler implements Hooks.Handler {
    /** Code for an {@code ENTRY} hook point: runs at the entry, the method's body follows. */
    public abstract static class OnEntry {
        public abstract void run(Object self, Object[] args);
    }

    /** Code for an {@code ENTRY_MAY_SKIP} hook point: true when it took the call over and the method returns at once. */
    public abstract static class OnEntryMaySkip {
        public abstract boolean run(Object self, Object[] args);
    }

    /**
     * Code for an {@code ENTRY_MAY_REPLACE} hook point: the value the method returns without running its body, or
     * {@link Hooks#PROCEED}.
     */
    public abstract static class OnEntryMayReplace {
        public abstract Object run(Object self, Object[] args);
    }

    /** Code for an {@code EXIT} hook point: runs before each normal return. */
    public abstract static class OnExit {
        public abstract void run(Object self, Object[] args);
    }

    /** Code for a {@code RETRY_LOOP} hook point: the layer's answer, as {@link Hooks.Handler#retryLayer}. */
    public abstract static class OnRetryLoop {
        public abstract String run(Object self, Object[] args);
    }

    /** Per hook name, its code: one of the five {@code On*} types. */
    private final Map<String, Object> served = new HashMap<String, Object>();

    protected final void serve(String hook, OnEntry code) {
        bind(hook, code);
    }

    protected final void serve(String hook, OnEntryMaySkip code) {
        bind(hook, code);
    }

    protected final void serve(String hook, OnEntryMayReplace code) {
        bind(hook, code);
    }

    protected final void serve(String hook, OnExit code) {
        bind(hook, code);
    }

    protected final void serve(String hook, OnRetryLoop code) {
        bind(hook, code);
    }

    private void bind(String hook, Object code) {
        if (hook == null || code == null) {
            throw new IllegalArgumentException(getClass().getName() + ": a hook and its code, not null");
        }
        if (served.put(hook, code) != null) {
            throw new IllegalArgumentException(getClass().getName() + " serves " + hook + " twice");
        }
    }

    /** Every hook this handler serves, with the kind of hook point its code is for, in the order bound. */
    public final Map<String, HookPoint.Where> served() {
        Map<String, HookPoint.Where> kinds = new LinkedHashMap<String, HookPoint.Where>();
        for (Map.Entry<String, Object> e : served.entrySet()) {
            kinds.put(e.getKey(), kindOf(e.getValue()));
        }
        return kinds;
    }

    private static HookPoint.Where kindOf(Object code) {
        if (code instanceof OnEntry) {
            return HookPoint.Where.ENTRY;
        }
        if (code instanceof OnEntryMaySkip) {
            return HookPoint.Where.ENTRY_MAY_SKIP;
        }
        if (code instanceof OnEntryMayReplace) {
            return HookPoint.Where.ENTRY_MAY_REPLACE;
        }
        if (code instanceof OnExit) {
            return HookPoint.Where.EXIT;
        }
        return HookPoint.Where.RETRY_LOOP;
    }

    /** {@code ENTRY} and {@code ENTRY_MAY_SKIP}: the woven code makes the same call for both. */
    @Override
    public final boolean onEnter(String hook, Object self, Object[] args) {
        Object code = served.get(hook);
        if (code instanceof OnEntryMaySkip) {
            return ((OnEntryMaySkip) code).run(self, args);
        }
        if (code instanceof OnEntry) {
            ((OnEntry) code).run(self, args);
        } else {
            unserved(hook, "ENTRY or ENTRY_MAY_SKIP");
        }
        return false;
    }

    @Override
    public final Object onEnterMayReplace(String hook, Object self, Object[] args) {
        Object code = served.get(hook);
        if (code instanceof OnEntryMayReplace) {
            return ((OnEntryMayReplace) code).run(self, args);
        }
        unserved(hook, "ENTRY_MAY_REPLACE");
        return Hooks.PROCEED;
    }

    @Override
    public final void onExit(String hook, Object self, Object[] args) {
        Object code = served.get(hook);
        if (code instanceof OnExit) {
            ((OnExit) code).run(self, args);
        } else {
            unserved(hook, "EXIT");
        }
    }

    @Override
    public final String retryLayer(String hook, Object self, Object[] args) {
        Object code = served.get(hook);
        if (code instanceof OnRetryLoop) {
            return ((OnRetryLoop) code).run(self, args);
        }
        unserved(hook, "RETRY_LOOP");
        return null;
    }

    /** Fail open: the hooked method runs as without the agent; logged once per hook, as a handler's own failure. */
    private void unserved(String hook, String called) {
        Object code = served.get(hook);
        RetryLog.internalError("hook:" + hook, new IllegalStateException(getClass().getName() + " has no "
                + called + " code for hook " + hook + (code == null ? "" : " (it has " + kindOf(code) + " code)")));
    }
}
