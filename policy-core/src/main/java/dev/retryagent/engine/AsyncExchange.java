package dev.retryagent.engine;

/**
 * One client's way of making an asynchronous attempt. {@link #send} must not block: it hands the
 * attempt to the client's own dispatcher or reactor, which reports back through the {@link AsyncAttempt}.
 * The loop calls it for a retry only when the wait is over, the attempt before has finished and the call
 * has not been cancelled.
 *
 * @param <R> the client's response type
 */
public interface AsyncExchange<R> extends OutcomeReader<R> {
    /**
     * Starts attempt {@code attempt}. A retry that cannot start is reported as that attempt's failure
     * ({@link AsyncAttempt#failed}), so that the caller gets the client's exception; what send throws for the
     * first attempt is the client's own and propagates.
     *
     * @param scope   the {@link AttemptScope} number for code that runs the attempt synchronously on a client thread
     *                (calls made there are nested in it), or 0 when the attempt opens no scope
     * @param marker  the marker header value, or null for none
     * @param handle  where the client reports the attempt's response, failure and end
     */
    void send(int attempt, int scope, String marker, AsyncAttempt<R> handle);

    /**
     * Starts attempt {@code attempt} with its connect and read timeouts at most {@code limitMillis}, as
     * {@link Exchange#send(int, String, long)} says. A client that can bound an attempt through its own per-request
     * settings overrides this.
     *
     * @param limitMillis at least 1, or 0 when the rule bounds no attempt (the client's own timeouts alone)
     */
    default void send(int attempt, int scope, String marker, long limitMillis, AsyncAttempt<R> handle) {
        send(attempt, scope, marker, handle);
    }

    void discard(R response);

    /** True once the application cancelled the call: no further attempt is made. */
    boolean isCancelled();
}
