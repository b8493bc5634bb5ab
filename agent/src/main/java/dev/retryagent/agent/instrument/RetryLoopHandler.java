package dev.retryagent.agent.instrument;

import dev.retryagent.agent.bootstrap.Hooks;
import java.lang.reflect.Field;

/**
 * The handler of a retry layer above the clients (hook points of kind {@code RETRY_LOOP} only): it answers
 * {@link Hooks.Handler#retryLayer} from the loop's own object and has nothing to do at any other hook. A subclass in
 * the layer's package reads the library's fields (by reflection, fail open: whatever it throws counts as "no layer").
 */
public abstract class RetryLoopHandler implements Hooks.Handler {
    @Override
    public final boolean onEnter(String hook, Object self, Object[] args) {
        return false;
    }

    @Override
    public final void onExit(String hook, Object self, Object[] args) {
    }

    @Override
    public final String retryLayer(String hook, Object self, Object[] args) {
        Object loop = loopOf(self, args);
        if (loop == null) {
            return null;
        }
        try {
            return layerOf(hook, loop);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read the retry settings of " + loop.getClass().getName(), e);
        }
    }

    /**
     * The object whose settings say whether the loop retries: the hooked method's {@code self} (null in a static
     * method); a layer whose loop is a static method holding it in an argument answers that argument.
     */
    protected Object loopOf(Object self, Object[] args) {
        return self;
    }

    /**
     * The layer's name when this run of the loop {@code loop} (at hook point {@code hook}) will retry,
     * {@code UpperLayer.RETRIES_OFF} when its retries are off, null when it is no retry loop.
     */
    protected abstract String layerOf(String hook, Object loop) throws ReflectiveOperationException;

    /**
     * The field {@code name} that the class named {@code owner} declares, found from {@code type} (that class or one
     * of its subclasses, an application's own included) and made accessible: a library's private setting.
     */
    protected static Field declaredField(Class<?> type, String owner, String name) throws NoSuchFieldException {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(owner)) {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f;
            }
        }
        throw new NoSuchFieldException(owner + "." + name + " from " + type.getName());
    }
}
