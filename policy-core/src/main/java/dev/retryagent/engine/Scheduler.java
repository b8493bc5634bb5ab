package dev.retryagent.engine;

/**
 * Runs a task after a delay without blocking the caller: async retries wait here, never on a
 * dispatcher or I/O reactor thread (SPEC 4.10).
 */
public interface Scheduler {
    void schedule(Runnable task, long delayMillis);
}
