package dev.retryagent.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/** Holds scheduled tasks until the test runs them; records each delay; advances a {@link FakeClock}. */
final class FakeScheduler implements Scheduler {
    private final FakeClock clock;
    private final Deque<Runnable> pending = new ArrayDeque<>();
    private final List<Long> delays = new ArrayList<>();

    FakeScheduler(FakeClock clock) {
        this.clock = clock;
    }

    @Override
    public synchronized void schedule(Runnable task, long delayMillis) {
        delays.add(delayMillis);
        pending.addLast(task);
    }

    synchronized int pendingCount() {
        return pending.size();
    }

    List<Long> delays() {
        return delays;
    }

    /** Runs the oldest pending task after advancing the clock by its delay; false when none is pending. */
    boolean runNext() {
        Runnable task;
        long delay;
        synchronized (this) {
            task = pending.pollFirst();
            if (task == null) {
                return false;
            }
            delay = delays.get(delays.size() - pending.size() - 1);
        }
        if (clock != null) {
            clock.advanceMillis(delay);
        }
        task.run();
        return true;
    }

    /** Runs pending tasks, including those they schedule, until none is left; returns how many ran. */
    int runAll() {
        int ran = 0;
        while (runNext()) {
            ran++;
            if (ran > 1000) {
                throw new AssertionError("scheduler never drained");
            }
        }
        return ran;
    }
}
