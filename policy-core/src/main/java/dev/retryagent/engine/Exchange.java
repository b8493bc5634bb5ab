package dev.retryagent.engine;

import java.io.IOException;

/**
 * One client's way of making an attempt, seen by the retry loop. Adapters implement it with their
 * client's request and response types; the loop stays client-neutral.
 *
 * @param <R> the client's response type
 */
public interface Exchange<R> extends Outcomes<R> {
    /**
     * Makes attempt {@code attempt} (1 for the first) and returns its response.
     *
     * @param marker the value of the marker header to send, or null when no marker is to be added
     */
    R send(int attempt, String marker) throws IOException;

    /** Releases a response the caller will never see (closes its body, returns its connection). */
    void discard(R response);
}
