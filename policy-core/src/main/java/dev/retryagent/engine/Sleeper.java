package dev.retryagent.engine;

/** Blocks the calling thread between attempts; injected so that tests never wait. */
public interface Sleeper {
    /** Waits {@code millis}; an interrupt ends the wait with {@link InterruptedException}. */
    void sleep(long millis) throws InterruptedException;

    Sleeper SYSTEM = new Sleeper() {
        @Override
        public void sleep(long millis) throws InterruptedException {
            Thread.sleep(millis);
        }
    };
}
