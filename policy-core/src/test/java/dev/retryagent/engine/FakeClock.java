package dev.retryagent.engine;

import java.util.concurrent.TimeUnit;

/** A clock that moves only when a test moves it; monotonic and wall time move together. */
final class FakeClock implements Clock {
    /** 2026-01-15T12:00:00Z, a Thursday. */
    static final long DEFAULT_WALL_MILLIS = 1_768_478_400_000L;

    private volatile long nanos;
    private volatile long wallMillis;

    FakeClock() {
        this(5_000_000_000L, DEFAULT_WALL_MILLIS);
    }

    FakeClock(long nanos, long wallMillis) {
        this.nanos = nanos;
        this.wallMillis = wallMillis;
    }

    @Override
    public long nanoTime() {
        return nanos;
    }

    @Override
    public long currentTimeMillis() {
        return wallMillis;
    }

    synchronized void advanceMillis(long millis) {
        nanos += TimeUnit.MILLISECONDS.toNanos(millis);
        wallMillis += millis;
    }

    synchronized void advanceSeconds(long seconds) {
        advanceMillis(TimeUnit.SECONDS.toMillis(seconds));
    }
}
