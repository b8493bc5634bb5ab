package dev.retryagent.engine;

import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;

/** Uniform random numbers for jitter; injected so that tests are repeatable. */
public interface RandomSource {
    /** A uniform draw from [0, 1). */
    double nextDouble();

    /** The production source: per-thread, so that concurrent calls never contend on one generator. */
    RandomSource THREAD_LOCAL = new RandomSource() {
        @Override
        public double nextDouble() {
            return ThreadLocalRandom.current().nextDouble();
        }
    };

    /** A repeatable source for tests; not thread-safe. */
    static RandomSource seeded(long seed) {
        final SplittableRandom random = new SplittableRandom(seed);
        return new RandomSource() {
            @Override
            public double nextDouble() {
                return random.nextDouble();
            }
        };
    }
}
