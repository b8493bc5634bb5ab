package dev.retryagent.engine;

/**
 * Where a tracing system beside the agent learns of the calls the agent may retry, so that a trace shows each attempt
 * of a call under the call's parent, and the waits between them. The loops ask it once per call this layer may retry,
 * on the thread that starts the call; nested calls and calls the agent leaves alone are not shown to it.
 */
public interface CallTracer {
    /** Traces nothing: what the loops use when no tracing system is present. */
    CallTracer NONE = new CallTracer() {
        @Override
        public CallTrace callStarting() {
            return null;
        }
    };

    /** The trace of a call starting on this thread, or null when nothing traces it. */
    CallTrace callStarting();
}
