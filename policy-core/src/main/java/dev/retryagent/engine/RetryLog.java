package dev.retryagent.engine;

import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The log lines of SPEC 5, through java.util.logging's {@code retry-agent} logger: one line per event,
 * {@code key=value}, at {@code info} thinned out per destination by {@link LogWindows}. Only client, method, host
 * and path (never a query, header value or body) appear.
 */
public final class RetryLog {
    public static final String LOGGER_NAME = "retry-agent";
    private static final Logger LOGGER = Logger.getLogger(LOGGER_NAME);
    private static final ConcurrentHashMap<String, Boolean> REPORTED_FAILURES = new ConcurrentHashMap<String, Boolean>();
    private static volatile LogWindows windows;

    private RetryLog() {
    }

    public static Logger logger() {
        return LOGGER;
    }

    /**
     * Logs what the engine decided after an attempt that ended with {@code outcome}. At {@code debug} every
     * event is a line; at {@code info}, once {@link #install(LogWindows)} was called, the windows decide which
     * are written in full and count the rest. A call that is done (a success) costs nothing unless at debug.
     */
    public static void decision(CallFacts call, Outcome outcome, RetryDecision decision) {
        if (decision.action() == RetryDecision.Action.DONE) {
            if (LOGGER.isLoggable(Level.FINE)) {
                LOGGER.fine(LOGGER_NAME + " done " + call + " cause=" + outcome.cause());
            }
            return;
        }
        if (!LOGGER.isLoggable(Level.INFO)) {
            return;
        }
        LogWindows w = windows;
        if (w != null && !LOGGER.isLoggable(Level.FINE)) {
            w.event(call, outcome, decision);
        } else {
            LOGGER.log(Level.INFO, line(call, outcome, decision));
        }
    }

    /** The full line of an event: a retry, a would-retry or a give-up. */
    static String line(CallFacts call, Outcome outcome, RetryDecision decision) {
        String event;
        String detail;
        switch (decision.action()) {
            case RETRY:
                event = "retry";
                detail = "wait=" + decision.waitMillis() + "ms";
                break;
            case WOULD_RETRY:
                event = "would retry";
                detail = "wait=" + decision.waitMillis() + "ms";
                break;
            default:
                event = "give up";
                detail = "reason=" + decision.reason().logName();
        }
        return LOGGER_NAME + " " + event + " " + call + " attempt=" + decision.attempt() + "/"
                + decision.maxAttempts() + " cause=" + outcome.cause() + " " + detail;
    }

    /**
     * Makes {@code logWindows} decide what is written at {@code info} (null: every event, as at debug). The agent
     * installs one with its engine and calls {@link #flushWindows()} every second.
     */
    public static void install(LogWindows logWindows) {
        windows = logWindows;
    }

    /** Ends the windows whose time is over, writing their summary lines (see {@link LogWindows#flush()}). */
    public static void flushWindows() {
        LogWindows w = windows;
        if (w != null) {
            w.flush();
        }
    }

    /** Ends every window now and returns the summaries to write (see {@link LogWindows#endAll()}); for JVM exit. */
    public static List<String> endAllWindows() {
        LogWindows w = windows;
        return w == null ? Collections.<String>emptyList() : w.endAll();
    }

    /** An error inside the agent: logged once per place, so that a broken hook cannot flood the log. */
    public static void internalError(String where, Throwable error) {
        internalError(where, error, "the call proceeds without retries");
    }

    /**
     * As {@link #internalError(String, Throwable)}, for work beside the calls (metrics, the policy watcher), with what
     * follows from the error in {@code consequence}.
     */
    public static void internalError(String where, Throwable error, String consequence) {
        if (REPORTED_FAILURES.putIfAbsent(where, Boolean.TRUE) == null) {
            LOGGER.log(Level.WARNING, LOGGER_NAME + " internal-error where=" + where
                    + " error=" + error.getClass().getName() + "; " + consequence, error);
        }
    }

    /** A message about the agent itself (start-up, policy). */
    public static void agent(Level level, String message) {
        LOGGER.log(level, LOGGER_NAME + " " + message);
    }
}
