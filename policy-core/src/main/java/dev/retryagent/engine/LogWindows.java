package dev.retryagent.engine;

import dev.retryagent.policy.Mode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The log at {@code info} when a destination fails often (docs/reference.md#what-it-reports): one line per retry is
 * thousands of lines a second across a fleet during an outage, so per destination (scheme, host, port) and event kind,
 * only the first event of each {@value #WINDOW_SECONDS} s window is written in full, and the window's end writes one
 * {@code retry-agent summary} line for the destination while anything happened in it.
 *
 * <p>Event kinds: {@code retry}, {@code would retry}, and {@code give up} once per reason. A give-up for
 * {@code budget} and one for {@code attempts} mean different things to an operator (the budget is protecting the
 * destination; every attempt was used), and a {@code not-idempotent} or {@code nested} give-up is a property of
 * the calling code, not of the outage: folding them into one kind would let the first reason of a window hide
 * the others. There are at most nine kinds, so a destination in a total outage writes about four lines per window
 * (a retry, a give-up for attempts, one for budget, the summary).
 *
 * <p>The summary's counts are the window's totals, the events written in full included. {@code calls} is read
 * from the engine's counters of the destination (every client), so that a call that succeeds at once costs the
 * log nothing: it is never seen here. The engine counts a call when its first attempt ends; so that calls counted
 * by other threads while a window was being opened are not missed, {@code calls} is never less than the events
 * that follow a first attempt (each call has at most one). {@code give-ups} counts every reason, {@code budget}
 * included; that one is also given alone as {@code budget-refused}.
 *
 * <p>Windows follow each other without a gap while their destination keeps failing; a window in which nothing
 * happened ends the destination's state, so memory is bounded by the destinations that failed in the last two
 * windows (and by {@link Destinations}). A window ends when {@link #flush()} sees that its time is over (the agent
 * calls it every second), or when the next event at its destination arrives after its end. Pure: the clock is
 * injected and no thread is started.
 */
public final class LogWindows {
    public static final int WINDOW_SECONDS = 10;
    private static final int RETRY = 0;
    private static final int WOULD_RETRY = 1;
    private static final int FIRST_GIVE_UP = 2;
    private static final GiveUpReason[] REASONS = GiveUpReason.values();
    private static final int KINDS = FIRST_GIVE_UP + REASONS.length;
    /** Above this many windows, an event that opens another one first ends those that are over. */
    static final int SWEEP_ABOVE = 1024;
    private static final long SWEEP_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final RetryEngine engine;
    private final Clock clock;
    private final long windowNanos;
    /** Null: {@link RetryLog#logger()}, asked when a line is written, so that it exists only once one is. */
    private final Logger logger;
    private final Runnable firstWindowOpened;
    private final AtomicBoolean anyWindowOpened = new AtomicBoolean();
    /** Racy: at worst two threads sweep at once. */
    private volatile long lastSweepNanos;
    private final ConcurrentHashMap<Destination, Window> windows = new ConcurrentHashMap<Destination, Window>();

    /**
     * Windows of {@value #WINDOW_SECONDS} s over the events of {@code engine}'s calls, written to
     * {@link RetryLog#logger()}. {@code firstWindowOpened} runs once, on the thread of the first event: the caller
     * starts calling {@link #flush()} then, so that a service whose calls never fail never pays for it.
     */
    public LogWindows(RetryEngine engine, Clock clock, Runnable firstWindowOpened) {
        this(engine, clock, TimeUnit.SECONDS.toNanos(WINDOW_SECONDS), null, firstWindowOpened);
    }

    LogWindows(RetryEngine engine, Clock clock, long windowNanos, Logger logger, Runnable firstWindowOpened) {
        if (windowNanos <= 0) {
            throw new IllegalArgumentException("windowNanos must be positive");
        }
        this.engine = engine;
        this.clock = clock;
        this.windowNanos = windowNanos;
        this.logger = logger;
        this.firstWindowOpened = firstWindowOpened;
        this.lastSweepNanos = clock.nanoTime() - SWEEP_EVERY_NANOS;
    }

    /**
     * Counts an event (a decision other than done) of {@code call}, under a rule in {@code mode}, and writes it in
     * full when it is the first of its kind at its destination in the current window.
     */
    void event(CallFacts call, Mode mode, Outcome outcome, RetryDecision decision) {
        int kind = kindOf(decision);
        if (kind < 0) {
            return;
        }
        Destination destination = engine.destinationOf(call);
        long now = clock.nanoTime();
        String summary = null;
        boolean first;
        while (true) {
            Window w = windows.get(destination);
            if (w == null) {
                if (windows.size() >= SWEEP_ABOVE && now - lastSweepNanos >= SWEEP_EVERY_NANOS) {
                    // Bounded without the periodic flush too; at most once a second, since it walks every window.
                    lastSweepNanos = now;
                    flush(now);
                }
                // The call whose first attempt this event follows was counted before its window existed.
                Window opened = new Window(now + windowNanos, calls(destination) - (followsFirstAttempt(decision) ? 1 : 0));
                w = windows.putIfAbsent(destination, opened);
                if (w == null) {
                    w = opened;
                    if (!anyWindowOpened.get() && anyWindowOpened.compareAndSet(false, true)) {
                        firstWindowOpened.run();
                    }
                }
            }
            synchronized (w) {
                if (w.ended) {
                    continue;
                }
                if (now - w.end >= 0) {
                    summary = w.roll(destination, now, calls(destination), followsFirstAttempt(decision));
                }
                first = w.counts[kind]++ == 0;
                w.any = true;
                if (followsFirstAttempt(decision)) {
                    w.firstAttemptEvents++;
                }
            }
            break;
        }
        if (summary != null) {
            write(summary);
        }
        if (first) {
            write(RetryLog.line(call, mode, outcome, decision));
        }
    }

    /** Ends every window whose time is over: writes its summary if anything happened in it, else forgets it. */
    public void flush() {
        flush(clock.nanoTime());
    }

    private void flush(long now) {
        for (Map.Entry<Destination, Window> entry : windows.entrySet()) {
            Destination destination = entry.getKey();
            Window w = entry.getValue();
            String summary = null;
            synchronized (w) {
                if (w.ended || now - w.end < 0) {
                    continue;
                }
                if (w.any) {
                    summary = w.roll(destination, now, calls(destination), false);
                } else {
                    w.ended = true;
                    windows.remove(destination, w);
                }
            }
            if (summary != null) {
                write(summary);
            }
        }
    }

    private void write(String line) {
        (logger != null ? logger : RetryLog.logger()).log(Level.INFO, line);
    }

    /**
     * Ends every window now, over or not, and returns the summaries of those in which anything happened, for the
     * caller to write: at JVM exit, when the logger's handlers may already be closed.
     */
    public List<String> endAll() {
        long now = clock.nanoTime();
        List<String> summaries = new ArrayList<String>();
        for (Map.Entry<Destination, Window> entry : windows.entrySet()) {
            Window w = entry.getValue();
            synchronized (w) {
                if (w.ended) {
                    continue;
                }
                if (w.any) {
                    summaries.add(w.summary(entry.getKey(), calls(entry.getKey()), now - (w.end - windowNanos)));
                }
                w.ended = true;
                windows.remove(entry.getKey(), w);
            }
        }
        return summaries;
    }

    /** How many destinations have a window now (for tests: memory stays bounded). */
    int size() {
        return windows.size();
    }

    private static int kindOf(RetryDecision decision) {
        switch (decision.action()) {
            case RETRY:
                return RETRY;
            case WOULD_RETRY:
                return WOULD_RETRY;
            case GIVE_UP:
                return FIRST_GIVE_UP + decision.reason().ordinal();
            default:
                return -1;
        }
    }

    /** Whether the decision is the one made after a call's first attempt (so the call began just before). */
    private static boolean followsFirstAttempt(RetryDecision decision) {
        return decision.action() == RetryDecision.Action.GIVE_UP ? decision.attempt() == 1 : decision.attempt() == 2;
    }

    private static long calls(Destination destination) {
        long calls = 0;
        for (RetryCounters c : destination.counters()) {
            calls += c.calls();
        }
        return calls;
    }

    /** One destination's current window; guarded by its own monitor. */
    private final class Window {
        long end;
        long callsAtStart;
        final long[] counts = new long[KINDS];
        long firstAttemptEvents;
        boolean any;
        /** Removed from the map: an event that finds it takes a new one. */
        boolean ended;

        Window(long end, long callsAtStart) {
            this.end = end;
            this.callsAtStart = callsAtStart;
        }

        /**
         * Ends this window at {@code now} and starts the next: right after it, or at {@code now} when a whole
         * window has passed since (nothing was flushed meanwhile). Returns the summary line, or null when nothing
         * happened. {@code startsWithCall}: the event that rolls it follows a first attempt, so its call belongs
         * to the new window.
         */
        String roll(Destination destination, long now, long callsNow, boolean startsWithCall) {
            String summary = any ? summary(destination, callsNow - (startsWithCall ? 1 : 0), windowNanos) : null;
            callsAtStart = callsNow - (startsWithCall ? 1 : 0);
            end = now - end >= windowNanos ? now + windowNanos : end + windowNanos;
            java.util.Arrays.fill(counts, 0);
            firstAttemptEvents = 0;
            any = false;
            return summary;
        }

        String summary(Destination destination, long callsAtEnd, long spanNanos) {
            long giveUps = 0;
            StringBuilder reasons = new StringBuilder();
            for (GiveUpReason reason : REASONS) {
                long n = counts[FIRST_GIVE_UP + reason.ordinal()];
                if (n > 0) {
                    giveUps += n;
                    reasons.append(reasons.length() == 0 ? "" : ",").append(reason.logName()).append(':').append(n);
                }
            }
            StringBuilder line = new StringBuilder(160);
            line.append(RetryLog.LOGGER_NAME).append(" summary host=").append(destination.host())
                    .append(" port=").append(destination.port())
                    .append(" scheme=").append(destination.scheme())
                    .append(" calls=").append(Math.max(firstAttemptEvents, callsAtEnd - callsAtStart))
                    .append(" retries=").append(counts[RETRY])
                    .append(" would-retry=").append(counts[WOULD_RETRY])
                    .append(" give-ups=").append(giveUps)
                    .append(" budget-refused=").append(counts[FIRST_GIVE_UP + GiveUpReason.BUDGET.ordinal()]);
            if (reasons.length() > 0) {
                line.append(" give-up-reasons=").append(reasons);
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(spanNanos);
            line.append(" window=").append(millis % 1000 == 0 ? (millis / 1000) + "s" : millis + "ms");
            return line.toString();
        }
    }
}
