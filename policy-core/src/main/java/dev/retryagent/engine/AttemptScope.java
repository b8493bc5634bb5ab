package dev.retryagent.engine;

/**
 * Which attempt of an agent-run call this thread is making, so that a call made inside it is recognised as nested
 * (docs/reference.md#one-retry-layer): an application interceptor's own call, a wrapper client built on another
 * instrumented client, any instrumented call made while an attempt runs. Only the outermost call retries; a nested one
 * is executed exactly once and its marker carries the number of the attempt it is part of.
 *
 * <p>Per thread, because a call made inside an attempt runs on the attempt's thread. The sync loop enters the
 * scope around each attempt itself. An async attempt runs on the client's threads, so its number travels with its
 * request, and an adapter that runs the attempt synchronously somewhere (OkHttp's interceptor chain on a
 * dispatcher thread) enters the scope there. Calls handed to another thread are not seen as nested.
 */
public final class AttemptScope {
    private static final ThreadLocal<OfThread> CURRENT = new ThreadLocal<OfThread>() {
        @Override
        protected OfThread initialValue() {
            return new OfThread();
        }
    };

    /**
     * A thread's scope, and the {@link CallRun} its sync loop reuses: one thread-local lookup per call gives both.
     * Never leaves its thread.
     */
    static final class OfThread {
        /** What {@link #current} answers. */
        int attempt;
        /**
         * The call whose attempt this thread is making, unless that is {@link #run}'s with nothing around it
         * ({@link #ownRunAttempting}); null otherwise.
         */
        private RunningCall running;
        /**
         * This thread's own run is making an attempt, and no other call's attempt encloses it: a flag rather than
         * {@link #running}, so that the common attempt writes no reference (nor pays its GC barrier). An attempt
         * started inside it sets {@link #running}, which so always names the innermost.
         */
        private boolean ownRunAttempting;
        /** The run the calls on this thread take in turn. */
        private final CallRun run = new CallRun();
        /** Whether a call on this thread has {@link #run}. */
        private boolean runTaken;

        /** The call whose attempt this thread is making, or null. */
        RunningCall running() {
            RunningCall r = running;
            return r != null ? r : ownRunAttempting ? run : null;
        }

        /** Marks this thread as making an attempt of {@code r}, until {@link #leave}; returns what that restores. */
        RunningCall enter(CallRun r) {
            RunningCall outer = running;
            if (r == run && outer == null) {
                ownRunAttempting = true;
            } else {
                running = r;
            }
            return outer;
        }

        /** Ends the attempt of {@code r} {@link #enter} began, {@code outer} what it returned. */
        void leave(CallRun r, RunningCall outer) {
            if (r == run && outer == null) {
                ownRunAttempting = false;
            } else {
                running = outer;
            }
        }

        /**
         * Runs {@code call}, which the agent leaves alone, as no attempt of any call's: the calls its client's hooks
         * make inside it are not the enclosing call's.
         */
        <R> R outsideAttempts(Exchange<R> call) throws java.io.IOException {
            RunningCall outer = running;
            boolean ownOuter = ownRunAttempting;
            running = null;
            ownRunAttempting = false;
            try {
                return call.send(1, null);
            } finally {
                running = outer;
                ownRunAttempting = ownOuter;
            }
        }

        /** A run for a call on this thread: this thread's, or a new one for a call made while another runs. */
        CallRun takeRun() {
            if (runTaken) {
                return new CallRun();
            }
            runTaken = true;
            return run;
        }

        /** The call that took {@code run} is over ({@link CallRun#end ended}, or never started). */
        void giveBack(CallRun run) {
            if (run == this.run) {
                runTaken = false;
            }
        }
    }

    private AttemptScope() {
    }

    /** The attempt this thread is making of an agent-run call (1 for the first), or 0 when none. */
    public static int current() {
        return CURRENT.get().attempt;
    }

    /** A call whose attempt a thread is making, as {@link #currentCall} and {@link #currentPlan} answer it. */
    public interface RunningCall {
        /** The facts the call runs under. */
        CallFacts call();

        /** The call's plan. */
        CallPlan plan();
    }

    /**
     * The facts of the agent-run call whose attempt this thread is making, whether or not that attempt opens a scope,
     * or null when none: for a hook of the client's that runs inside an attempt (a client's own follow-up of a
     * response) and asks what the agent does with the call ({@link #currentPlan}), without reading the request again.
     */
    public static CallFacts currentCall() {
        RunningCall running = CURRENT.get().running();
        return running == null ? null : running.call();
    }

    /** The plan of the call {@link #currentCall} is, or null when none. */
    public static CallPlan currentPlan() {
        RunningCall running = CURRENT.get().running();
        return running == null ? null : running.plan();
    }

    /**
     * Marks this thread as making an attempt of {@code running} (null: none), until called again with what this
     * returned: for an adapter that runs an attempt of the async loop synchronously on some thread, as the sync loop
     * does around each of its attempts.
     *
     * @return the call this thread was making an attempt of before, or null
     */
    public static RunningCall attemptOf(RunningCall running) {
        OfThread current = CURRENT.get();
        RunningCall previous = current.running;
        current.running = running;
        return previous;
    }

    /**
     * Marks this thread as making attempt {@code attempt} of an agent-run call, until {@link #exit}.
     *
     * @return what to hand to {@link #exit} afterwards (the enclosing scope)
     */
    public static int enter(int attempt) {
        OfThread current = CURRENT.get();
        int previous = current.attempt;
        current.attempt = attempt;
        return previous;
    }

    /** This thread's scope, for a loop that reads and sets it around each attempt. */
    static OfThread ofThisThread() {
        return CURRENT.get();
    }

    /** Ends the scope {@link #enter} began, restoring {@code previous}. */
    public static void exit(int previous) {
        CURRENT.get().attempt = previous;
    }
}
