package dev.retryagent.agent.bootloader.weaving;

import dev.retryagent.engine.LayerRetries;
import dev.retryagent.engine.UpperLayer;
import java.lang.reflect.Field;

/**
 * The handler of a retry layer above the clients (hook points of kind {@code RETRY_LOOP} only): it answers
 * {@link dev.retryagent.agent.bootloader.runtime.Hooks.Handler#retryLayer} from the loop's own object at each of the hooks it is
 * made with. A subclass in the layer's package reads the library's fields (by reflection, fail open: whatever it
 * throws counts as "no layer"): whether the loop retries ({@link #layerOf}) and, where the library's own
 * classification can be read, which outcomes ({@link #retriesOf}).
 */
public abstract class RetryLoopHandler extends HookHandler {
    /** @param hooks the names of the layer's hook points, each served by {@link #layerOf} */
    protected RetryLoopHandler(String... hooks) {
        for (String hook : hooks) {
            serve(hook, new Loop(this, hook));
        }
    }

    /** The code of one of the layer's hooks. */
    private static final class Loop extends OnRetryLoop {
        private final RetryLoopHandler handler;
        private final String hook;

        Loop(RetryLoopHandler handler, String hook) {
            this.handler = handler;
            this.hook = hook;
        }

        @Override
        public LayerRetries run(Object self, Object[] args) {
            return handler.layerAt(hook, self, args);
        }
    }

    /** The last layer {@link #retriesOf} answered from a name alone, kept so that a call allocates nothing. */
    private volatile LayerRetries named;

    private LayerRetries layerAt(String hook, Object self, Object[] args) {
        Object loop = loopOf(self, args);
        if (loop == null) {
            return null;
        }
        try {
            return retriesOf(hook, loop);
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
     * The layer's name when this run of the loop {@code loop} (at hook point {@code hook}, one the handler was made
     * with) will retry, {@code UpperLayer.RETRIES_OFF} when its retries are off, null when it is no retry loop.
     */
    protected abstract String layerOf(String hook, Object loop) throws ReflectiveOperationException;

    /**
     * {@link #layerOf}'s answer with what the loop retries: by default nothing is known of that (every outcome of its
     * calls is left to it, docs/reference.md#layers-above-the-client). A layer whose library's own classification can
     * be read answers it instead.
     */
    protected LayerRetries retriesOf(String hook, Object loop) throws ReflectiveOperationException {
        String layer = layerOf(hook, loop);
        if (layer == null) {
            return null;
        }
        if (UpperLayer.RETRIES_OFF.equals(layer)) {
            return LayerRetries.RETRIES_OFF;
        }
        LayerRetries known = named;
        if (known == null || !known.layer().equals(layer)) {
            known = LayerRetries.unknown(layer);
            named = known;
        }
        return known;
    }

    /**
     * The field {@code name} that the class named {@code owner} declares, found from {@code type} (that class or one
     * of its subclasses, an application's own included) and made accessible: a library's private setting. For a
     * {@link PerClassLookup}, whose {@code computeValue} throws nothing checked.
     *
     * @throws IllegalStateException when there is no such field
     */
    protected static Field declaredField(Class<?> type, String owner, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(owner)) {
                try {
                    Field f = c.getDeclaredField(name);
                    f.setAccessible(true);
                    return f;
                } catch (NoSuchFieldException e) {
                    break;
                }
            }
        }
        throw new IllegalStateException("no field " + owner + "." + name + " from " + type.getName());
    }
}
