package dev.retryagent.engine;

/** A random source that returns what the test sets: a fixed draw, so that expected waits are exact. */
final class FakeRandom implements RandomSource {
    private volatile double next;

    FakeRandom(double next) {
        set(next);
    }

    FakeRandom set(double value) {
        if (!(value >= 0.0 && value < 1.0)) {
            throw new IllegalArgumentException("a draw must be in [0, 1): " + value);
        }
        next = value;
        return this;
    }

    @Override
    public double nextDouble() {
        return next;
    }
}
