package dev.retryagent.agent.instrument;

import dev.retryagent.agent.bootstrap.Hooks;

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
        if (self == null) {
            return null;
        }
        try {
            return layerOf(self);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read the retry settings of " + self.getClass().getName(), e);
        }
    }

    /**
     * The layer's name when this run of the loop {@code self} will retry, {@code UpperLayer.RETRIES_OFF} when its
     * retries are off, null when it is no retry loop.
     */
    protected abstract String layerOf(Object self) throws ReflectiveOperationException;
}
