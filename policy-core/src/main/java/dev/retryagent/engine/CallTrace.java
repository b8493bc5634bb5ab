package dev.retryagent.engine;

/**
 * One call's trace, from its start on the caller's thread to its last attempt (see {@link CallTracer}). An
 * implementation must not throw: the loops call it between attempts, where a failure would lose the caller's answer.
 */
public interface CallTrace {
    /**
     * Attempt {@code attempt} is about to be sent from this thread: the call's trace context is this thread's until
     * the returned scope is closed, on this thread, once the attempt has been handed to the client (a sync attempt:
     * once it has ended), so that the client's own tracing puts the attempt under the call's parent and counts it.
     */
    Scope attemptStarting(int attempt);

    /** Attempt {@code nextAttempt} will be sent in {@code waitMillis} ms, because the last one ended with {@code cause}. */
    void retrying(int nextAttempt, long waitMillis, String cause);

    /** What {@link #attemptStarting} opened. */
    interface Scope {
        void close();
    }
}
