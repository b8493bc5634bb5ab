package dev.retryagent.agent.bootloader.weaving;

import java.lang.instrument.Instrumentation;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * What the agent instruments for one HTTP client: its name, its hook points, and the handler that serves them. The
 * handler and the classes it uses need the client's types, so they are loaded in the class loader of the
 * client ({@link ClientAdapters}); this description itself names no client type. A client whose hooks need the JVM
 * readied first ({@link #prepare}) is described by a subclass; one that needs nothing, such as each retry layer above
 * the clients, by an instance of this class.
 */
public class ClientInstrumentation {
    private final String name;
    private final String handlerClass;
    private final List<HookPoint> hookPoints;

    /**
     * @param name         the client's name in policies, logs and metrics ({@code ClientNames})
     * @param handlerClass the binary name of the client's {@link HookHandler}, in the package that holds the
     *                     client's adapter classes, which serves every hook the hook points name, each with code of
     *                     the hook point's kind. Its static initializer registers its one instance
     *                     ({@link dev.retryagent.agent.bootloader.runtime.Hooks#register}); it also has a public no-argument
     *                     constructor, which serves only a thread that loses the race for that instance
     * @param hookPoints   each naming its hook with the constant its handler declares (a compile-time constant,
     *                     so that naming it loads no class of the handler's)
     */
    public ClientInstrumentation(String name, String handlerClass, HookPoint... hookPoints) {
        this.name = name;
        this.handlerClass = handlerClass;
        this.hookPoints = Collections.unmodifiableList(Arrays.asList(hookPoints.clone()));
    }

    /** The client's name in policies and logs, such as {@code okhttp}. */
    public final String name() {
        return name;
    }

    public final List<HookPoint> hookPoints() {
        return hookPoints;
    }

    /**
     * True for a retry layer above the clients (an SDK's or a library's own retry loop,
     * docs/reference.md#layers-above-the-client): hooked only at its loops, it sends nothing itself, and its name is
     * the layer's, not a client's.
     */
    public final boolean isRetryLayer() {
        for (HookPoint point : hookPoints) {
            if (point.where() != HookPoint.Where.RETRY_LOOP) {
                return false;
            }
        }
        return !hookPoints.isEmpty();
    }

    /** The binary name of the client's {@link HookHandler}. */
    public final String handlerClass() {
        return handlerClass;
    }

    /**
     * Readies the JVM for this client's hooks, once at start-up, before any class is woven (a client in
     * {@code java.base} adds the module edges its woven code needs here). False leaves the client out: its
     * classes are never woven and its calls run untouched; the client logs why.
     */
    public boolean prepare(Instrumentation inst) {
        return true;
    }
}
