package dev.retryagent.engine;


/**
 * One client's way of making an asynchronous attempt. {@link #send} must not block: it hands the
 * attempt to the client's own dispatcher or reactor, which reports back through the callback.
 *
 * @param <R> the client's response type
 */
public interface AsyncExchange<R> extends Outcomes<R> {
    /**
     * Starts attempt {@code attempt}.
     *
     * @param scope  the {@link AttemptScope} number for code that runs the attempt synchronously on a client thread
     *               (calls made there are nested in it), or 0 when the attempt opens no scope
     * @param marker the marker header value, or null for none
     */
    void send(int attempt, int scope, String marker, AttemptCallback<R> callback);

    void discard(R response);

    /** True once the application cancelled the call: no further attempt is made. */
    boolean isCancelled();
}
