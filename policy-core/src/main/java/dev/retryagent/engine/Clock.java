package dev.retryagent.engine;

/** Time as the engine sees it; injected so that tests never wait. */
public interface Clock {
    /** Monotonic time for elapsed and deadline arithmetic. */
    long nanoTime();

    /** Wall-clock time, only for Retry-After HTTP-dates. */
    long currentTimeMillis();

    Clock SYSTEM = new Clock() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public long currentTimeMillis() {
            return System.currentTimeMillis();
        }
    };
}
