package dev.retryagent.engine;

import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The log lines of SPEC 5, through java.util.logging's {@code retry-agent} logger: one line per event,
 * {@code key=value}. Only client, method, host and path (never a query, header value or body) appear.
 */
public final class RetryLog {
    public static final String LOGGER_NAME = "retry-agent";
    private static final Logger LOGGER = Logger.getLogger(LOGGER_NAME);
    private static final ConcurrentHashMap<String, Boolean> REPORTED_FAILURES = new ConcurrentHashMap<String, Boolean>();

    private RetryLog() {
    }

    public static Logger logger() {
        return LOGGER;
    }

    /** Logs what the engine decided after an attempt that ended with {@code outcome}. */
    public static void decision(CallFacts call, Outcome outcome, RetryDecision decision) {
        switch (decision.action()) {
            case RETRY:
                log(Level.INFO, "retry", call, outcome, decision, "wait=" + decision.waitMillis() + "ms");
                break;
            case WOULD_RETRY:
                log(Level.INFO, "would retry", call, outcome, decision, "wait=" + decision.waitMillis() + "ms");
                break;
            case GIVE_UP:
                log(Level.INFO, "give up", call, outcome, decision, "reason=" + decision.reason().logName());
                break;
            default:
                if (LOGGER.isLoggable(Level.FINE)) {
                    LOGGER.fine(LOGGER_NAME + " done " + call + " cause=" + outcome.cause());
                }
        }
    }

    private static void log(Level level, String event, CallFacts call, Outcome outcome, RetryDecision decision,
                            String detail) {
        if (LOGGER.isLoggable(level)) {
            LOGGER.log(level, LOGGER_NAME + " " + event + " " + call + " attempt=" + decision.attempt() + "/"
                    + decision.maxAttempts() + " cause=" + outcome.cause() + " " + detail);
        }
    }

    /** An error inside the agent: logged once per place, so that a broken hook cannot flood the log. */
    public static void internalError(String where, Throwable error) {
        if (REPORTED_FAILURES.putIfAbsent(where, Boolean.TRUE) == null) {
            LOGGER.log(Level.WARNING, LOGGER_NAME + " internal-error where=" + where
                    + " error=" + error.getClass().getName() + "; the call proceeds without retries", error);
        }
    }

    /** A message about the agent itself (start-up, policy). */
    public static void agent(Level level, String message) {
        LOGGER.log(level, LOGGER_NAME + " " + message);
    }
}
