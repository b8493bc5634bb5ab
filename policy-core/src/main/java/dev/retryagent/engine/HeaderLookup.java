package dev.retryagent.engine;

/**
 * Whether a client's request carries a header, however the client stores its headers: what an adapter gives
 * {@link CallFacts.Builder#build} so that the engine can read the idempotency-key and marker headers of the call's
 * rule without knowing the client.
 */
public interface HeaderLookup {
    /** True when the request carries header {@code name}, compared case-insensitively as HTTP does. */
    boolean has(String name);

    /**
     * True when the request carries the marker header {@code name} as the application (or a layer above) set it.
     * A client whose request object also holds a marker the agent set itself for an earlier step of the same call
     * must leave that one out here.
     */
    default boolean hasMarker(String name) {
        return has(name);
    }

    /**
     * The first value of header {@code name} (compared case-insensitively), or null when the request has none; for
     * the attempt headers of retry layers above the client ({@link UpperLayer}). A client that cannot tell answers
     * null.
     */
    default String value(String name) {
        return null;
    }
}
