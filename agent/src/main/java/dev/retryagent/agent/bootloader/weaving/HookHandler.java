package dev.retryagent.agent.bootloader.weaving;

import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.engine.LayerRetries;
import dev.retryagent.engine.RetryLog;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@link Hooks.Handler} every client and retry layer extends: its constructor binds each hook name its
 * {@link ClientInstrumentation} uses to the code that serves it ({@link #serve}), and the kind of that code is the kind
 * of the hook point ({@link HookPoint.Where}). A call from {@code Hooks} finds the code of its hook among the
 * handler's few hooks of that kind, allocating nothing; {@code ClientHandlersTest} checks, over every client the agent registers, that each hook point has code of its
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
        public abstract LayerRetries run(Object self, Object[] args);
    }

    /*
     * Per kind of call from Hooks, the hooks bound, each followed by its code: {hook, code, hook, code, ...}; written by
     * the constructor only. A hook is found by identity first (the woven code and the handler name it by the same
     * compile-time constant: one interned string), so a call compares no more names than a chain of name tests per
     * kind would. The entries hold both ENTRY (OnEntry) and ENTRY_MAY_SKIP (OnEntryMaySkip) code.
     */
    private Object[] entries = new Object[0];
    private Object[] replaces = new Object[0];
    private Object[] exits = new Object[0];
    private Object[] loops = new Object[0];

    protected final void serve(String hook, OnEntry code) {
        entries = bind(entries, hook, code);
    }

    protected final void serve(String hook, OnEntryMaySkip code) {
        entries = bind(entries, hook, code);
    }

    protected final void serve(String hook, OnEntryMayReplace code) {
        replaces = bind(replaces, hook, code);
    }

    protected final void serve(String hook, OnExit code) {
        exits = bind(exits, hook, code);
    }

    protected final void serve(String hook, OnRetryLoop code) {
        loops = bind(loops, hook, code);
    }

    /** {@code table} with {@code hook} and its code added. */
    private Object[] bind(Object[] table, String hook, Object code) {
        if (hook == null || code == null) {
            throw new IllegalArgumentException(getClass().getName() + ": a hook and its code, not null");
        }
        if (kindOf(hook) != null) {
            throw new IllegalArgumentException(getClass().getName() + " serves " + hook + " twice");
        }
        Object[] longer = Arrays.copyOf(table, table.length + 2);
        longer[table.length] = hook;
        longer[table.length + 1] = code;
        return longer;
    }

    /** The code of {@code hook} in {@code table}, or null. */
    private static Object codeOf(Object[] table, String hook) {
        for (int i = 0; i < table.length; i += 2) {
            if (table[i] == hook) {
                return table[i + 1];
            }
        }
        return codeByName(table, hook);
    }

    /** {@link #codeOf} for a name that is not the handler's own constant (a caller's copy of it). */
    private static Object codeByName(Object[] table, String hook) {
        for (int i = 0; i < table.length; i += 2) {
            if (table[i].equals(hook)) {
                return table[i + 1];
            }
        }
        return null;
    }

    /** Every hook this handler serves, with the kind of hook point its code is for. */
    public final Map<String, HookPoint.Where> served() {
        Map<String, HookPoint.Where> kinds = new LinkedHashMap<String, HookPoint.Where>();
        for (Object[] table : new Object[][] {entries, replaces, exits, loops}) {
            for (int i = 0; i < table.length; i += 2) {
                kinds.put((String) table[i], kindOf((String) table[i]));
            }
        }
        return kinds;
    }

    /** The kind of hook point {@code hook}'s code is for; null when the handler does not serve it. */
    private HookPoint.Where kindOf(String hook) {
        Object entry = codeOf(entries, hook);
        if (entry != null) {
            return entry instanceof OnEntryMaySkip ? HookPoint.Where.ENTRY_MAY_SKIP : HookPoint.Where.ENTRY;
        }
        if (codeOf(replaces, hook) != null) {
            return HookPoint.Where.ENTRY_MAY_REPLACE;
        }
        if (codeOf(exits, hook) != null) {
            return HookPoint.Where.EXIT;
        }
        return codeOf(loops, hook) != null ? HookPoint.Where.RETRY_LOOP : null;
    }

    /** {@code ENTRY} and {@code ENTRY_MAY_SKIP}: the woven code makes the same call for both. */
    @Override
    public final boolean onEnter(String hook, Object self, Object[] args) {
        Object code = codeOf(entries, hook);
        if (code instanceof OnEntryMaySkip) {
            return ((OnEntryMaySkip) code).run(self, args);
        }
        if (code != null) {
            ((OnEntry) code).run(self, args);
        } else {
            unserved(hook, "ENTRY or ENTRY_MAY_SKIP");
        }
        return false;
    }

    @Override
    public final Object onEnterMayReplace(String hook, Object self, Object[] args) {
        Object code = codeOf(replaces, hook);
        if (code == null) {
            unserved(hook, "ENTRY_MAY_REPLACE");
            return Hooks.PROCEED;
        }
        return ((OnEntryMayReplace) code).run(self, args);
    }

    @Override
    public final void onExit(String hook, Object self, Object[] args) {
        Object code = codeOf(exits, hook);
        if (code == null) {
            unserved(hook, "EXIT");
        } else {
            ((OnExit) code).run(self, args);
        }
    }

    @Override
    public final LayerRetries retryLayer(String hook, Object self, Object[] args) {
        Object code = codeOf(loops, hook);
        if (code == null) {
            unserved(hook, "RETRY_LOOP");
            return null;
        }
        return ((OnRetryLoop) code).run(self, args);
    }

    /** Fail open: the hooked method runs as without the agent; logged once per hook, as a handler's own failure. */
    private void unserved(String hook, String called) {
        HookPoint.Where kind = kindOf(hook);
        RetryLog.internalError("hook:" + hook, new IllegalStateException(getClass().getName() + " has no "
                + called + " code for hook " + hook + (kind == null ? "" : " (it has " + kind + " code)")));
    }
}
