package dev.retryagent.agent.instrument;

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
     * The binary name of the class implementing {@link dev.retryagent.agent.bootstrap.Hooks.Handler}, with a
     * public no-argument constructor.
     */
    String handlerClass();

    /**
     * Every class the handler needs besides the client's, the JDK's and the bootstrap ones, supertypes
     * before subtypes: they are defined in the client's class loader when the agent's own copies cannot see
     * that client (a child class loader).
     */
    List<String> adapterClasses();
}
