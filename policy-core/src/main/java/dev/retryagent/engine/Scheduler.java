package dev.retryagent.engine;

/**
 * Runs a task after a delay without blocking the caller: async retries wait here, never on a
 * dispatcher or I/O reactor thread (docs/reference.md#interrupts-async-calls-and-cancel).
 */
public interface Scheduler {
    void schedule(Runnable task, long delayMillis);
}
