package dev.retryagent.engine;

import dev.retryagent.policy.Mode;

import java.security.AccessControlException;
import java.security.AccessController;
import java.security.PrivilegedAction;
import java.security.PrivilegedActionException;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The log lines of docs/reference.md#what-it-reports, through java.util.logging's {@code retry-agent} logger: one line
 * per event, {@code key=value}, at {@code info} thinned out per destination by {@link LogWindows}. Only client, method,
 * host and path (never a query, header value or body) appear.
 *
 * <p>The agent has the logger created when the first line is written ({@link #createWhenWritten}): the first
 * {@code java.util.logging} logger of a JVM initialises its {@code LogManager} (its configuration, the system
 * logger finder), about 10 ms of CPU that an application which never logs through it would pay at every start.
 */
public final class RetryLog {
    public static final String LOGGER_NAME = "retry-agent";
    private static final int OFF = Level.OFF.intValue();
    /** Null until created: {@link #logger()}. */
    private static volatile Logger logger;
    /** Set by {@link #createWhenWritten}; null: {@link #isLoggable} creates the logger to ask it. */
    private static volatile Setup setup;
    /** While the logger does not exist, and {@link #setup} is set: the level from which lines are written. */
    private static volatile int levelValue = Level.INFO.intValue();
    private static final ConcurrentHashMap<String, Boolean> REPORTED_FAILURES = new ConcurrentHashMap<String, Boolean>();
    private static volatile LogWindows windows;

    private RetryLog() {
    }

    /** What the agent does to the logger once it is created (its handler and level). */
    public interface Setup {
        void configure(Logger logger);
    }

    /** The logger, created (and configured, see {@link #createWhenWritten}) at the first call. */
    public static Logger logger() {
        Logger l = logger;
        if (l == null) {
            synchronized (RetryLog.class) {
                l = logger;
                if (l == null) {
                    // Privileged: the first line may come from an application's thread, whose grant need not
                    // include configuring java.util.logging.
                    l = AccessController.doPrivileged(new PrivilegedAction<Logger>() {
                        @Override
                        public Logger run() {
                            Logger created = Logger.getLogger(LOGGER_NAME);
                            Setup s = setup;
                            if (s != null) {
                                s.configure(created);
                            }
                            return created;
                        }
                    });
                    logger = l;
                }
            }
        }
        return l;
    }

    /**
     * Until a line is written at {@code level} or above, the logger is not created: {@link #isLoggable} answers from
     * {@code level} (as the logger would with that level), and {@code configure} runs on the logger when it is. A
     * logger that exists already is configured now.
     */
    public static void createWhenWritten(Level level, Setup configure) {
        synchronized (RetryLog.class) {
            levelValue = level.intValue();
            setup = configure;
            Logger l = logger;
            if (l != null) {
                configure.configure(l);
            }
        }
    }

    /** As {@link Logger#isLoggable} of the logger, without creating it while {@link #createWhenWritten} holds. */
    public static boolean isLoggable(Level level) {
        Logger l = logger;
        if (l != null) {
            return l.isLoggable(level);
        }
        if (setup == null) {
            return logger().isLoggable(level);
        }
        int threshold = levelValue;
        return level.intValue() >= threshold && threshold != OFF;
    }

    /**
     * Logs what the engine decided after an attempt that ended with {@code outcome}. At {@code debug} every
     * event is a line; at {@code info}, once {@link #install(LogWindows)} was called, the windows decide which
     * are written in full and count the rest. A call that is done (a success) costs nothing unless at debug.
     * {@code mode}: the mode of the rule the decision was made under.
     */
    public static void decision(CallFacts call, Mode mode, Outcome outcome, RetryDecision decision) {
        if (decision.action() == RetryDecision.Action.DONE) {
            if (isLoggable(Level.FINE)) {
                logger().fine(LOGGER_NAME + " done " + call + " cause=" + outcome.cause());
            }
            return;
        }
        if (!isLoggable(Level.INFO)) {
            return;
        }
        LogWindows w = windows;
        if (w != null && !isLoggable(Level.FINE)) {
            w.event(call, mode, outcome, decision);
        } else {
            logger().log(Level.INFO, line(call, mode, outcome, decision));
        }
    }

    /** The full line of an event: a retry, a would-retry or a give-up. */
    static String line(CallFacts call, Mode mode, Outcome outcome, RetryDecision decision) {
        String event;
        String detail;
        switch (decision.action()) {
            case RETRY:
                event = "retry";
                detail = "wait=" + decision.waitMillis() + "ms" + (decision.isClientsResend() ? " past=deadline" : "");
                break;
            case WOULD_RETRY:
                event = "would retry";
                detail = "wait=" + decision.waitMillis() + "ms";
                break;
            default:
                GiveUpReason reason = decision.reason();
                // Observe mode changes nothing: a call that enforce would leave to the layer above is reported so.
                event = reason == GiveUpReason.UPPER_LAYER && mode == Mode.OBSERVE ? "would defer" : "give up";
                detail = "reason=" + reason.logName();
                if (reason == GiveUpReason.UPPER_LAYER) {
                    LayerRetries layer = call.upperLayerRetries();
                    detail += " layer=" + (layer != null ? layer.layerFor(outcome) : call.upperLayer());
                }
        }
        return LOGGER_NAME + " " + event + " " + call + " attempt=" + decision.attempt() + "/"
                + decision.maxAttempts() + " cause=" + outcome.cause() + (outcome.isUnsent() ? " sent=no " : " ")
                + detail;
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

    /**
     * An error inside the agent: logged once per place, so that a broken hook cannot flood the log; a security
     * manager's refusal as {@code permission-missing}, with the permission the policy lacks.
     */
    public static void internalError(String where, Throwable error) {
        internalError(where, error, "the call proceeds without retries");
    }

    /**
     * As {@link #internalError(String, Throwable)}, for work beside the calls (metrics, the policy watcher), with what
     * follows from the error in {@code consequence}.
     */
    public static void internalError(String where, Throwable error, String consequence) {
        if (error instanceof PrivilegedActionException && error.getCause() != null) {
            error = error.getCause();
        }
        if (REPORTED_FAILURES.putIfAbsent(where, Boolean.TRUE) == null && isLoggable(Level.WARNING)) {
            AccessControlException denied = denial(error);
            if (denied != null) {
                // The security policy's decision, not a bug: the permission to grant says more than a stack trace.
                logger().log(Level.WARNING, LOGGER_NAME + " permission-missing where=" + where
                        + " permission=" + denied.getPermission() + "; " + consequence);
            } else {
                logger().log(Level.WARNING, LOGGER_NAME + " internal-error where=" + where
                        + " error=" + error.getClass().getName() + "; " + consequence, error);
            }
        }
    }

    /** The security manager's refusal that {@code t} is, or was caused by (through reflection's wrappers), else null. */
    private static AccessControlException denial(Throwable t) {
        for (int depth = 0; t != null && depth < 8; depth++, t = t.getCause()) {
            if (t instanceof AccessControlException && ((AccessControlException) t).getPermission() != null) {
                return (AccessControlException) t;
            }
        }
        return null;
    }

    /** A message about the agent itself (start-up, policy). */
    public static void agent(Level level, String message) {
        if (isLoggable(level)) {
            logger().log(level, LOGGER_NAME + " " + message);
        }
    }
}
