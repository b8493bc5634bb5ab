package dev.retryagent.agent.instrument;

import java.lang.instrument.Instrumentation;
import java.util.List;

/**
 * What the agent instruments for one HTTP client: its hook points, and the handler that serves them. The
 * handler and the classes it uses need the client's types, so they are loaded in the class loader of the
 * client ({@link ClientAdapters}); this description itself names no client type.
 */
public interface ClientInstrumentation {
    /** The client's name in policies and logs, such as {@code okhttp}. */
    String name();

    List<HookPoint> hookPoints();

    /**
     * The binary name of the class implementing {@link dev.retryagent.agent.bootstrap.Hooks.Handler}. Its static
     * initializer registers its one instance ({@link dev.retryagent.agent.bootstrap.Hooks#register}); it also has a
     * public no-argument constructor, which serves only a thread that loses the race for that instance.
     */
    String handlerClass();

    /**
     * Readies the JVM for this client's hooks, once at start-up, before any class is woven (a client in
     * {@code java.base} adds the module edges its woven code needs here). False leaves the client out: its
     * classes are never woven and its calls run untouched; the client logs why.
     */
    default boolean prepare(Instrumentation inst) {
        return true;
    }
}
