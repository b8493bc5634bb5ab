package dev.retryagent.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * Records the waits it is asked for instead of waiting; advances a {@link FakeClock} by each wait, and
 * can be told to end a given wait with an interrupt, as a real {@link Thread#sleep} would.
 */
final class FakeSleeper implements Sleeper {
    private final FakeClock clock;
    private final List<Long> sleeps = new ArrayList<>();
    private int interruptAtSleep = -1;

    FakeSleeper(FakeClock clock) {
        this.clock = clock;
    }

    /** The {@code n}th sleep (1 for the first) throws InterruptedException, with the flag cleared. */
    FakeSleeper interruptAt(int n) {
        interruptAtSleep = n;
        return this;
    }

    @Override
    public void sleep(long millis) throws InterruptedException {
        sleeps.add(millis);
        if (sleeps.size() == interruptAtSleep || Thread.interrupted()) {
            throw new InterruptedException("fake interrupt");
        }
        if (clock != null) {
            clock.advanceMillis(millis);
        }
    }

    List<Long> sleeps() {
        return sleeps;
    }
}
