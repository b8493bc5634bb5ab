package dev.retryagent.engine;

import java.io.IOException;

/**
 * One client's way of making an attempt, seen by the retry loop. Adapters implement it with their
 * client's request and response types; the loop stays client-neutral.
 *
 * @param <R> the client's response type
 */
public interface Exchange<R> extends OutcomeReader<R> {
    /**
     * Makes attempt {@code attempt} (1 for the first) and returns its response.
     *
     * @param marker the value of the marker header to send, or null when no marker is to be added
     */
    R send(int attempt, String marker) throws IOException;

    /**
     * Makes attempt {@code attempt} with its connect and read timeouts at most {@code limitMillis}: the smaller of
     * the rule's {@code attemptTimeout} and the time left before an enforced deadline (see
     * {@link CallRun#attemptLimitMillis}), the application's own smaller timeouts kept. A client that can bound an
     * attempt through its own per-request settings overrides this; an attempt it cuts short fails with the client's
     * own timeout exception.
     *
     * @param limitMillis at least 1, or 0 when the rule bounds no attempt (the client's own timeouts alone)
     */
    default R send(int attempt, String marker, long limitMillis) throws IOException {
        return send(attempt, marker);
    }

    /** Releases a response the caller will never see (closes its body, returns its connection). */
    void discard(R response);
}
