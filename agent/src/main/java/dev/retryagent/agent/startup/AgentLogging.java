package dev.retryagent.agent.startup;

import dev.retryagent.engine.RetryLog;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Sends the {@code retry-agent} logger to stderr, one line per event, each starting with {@code retry-agent}
 * (docs/reference.md#what-it-reports), and nowhere else: the application's own logging configuration neither receives
 * nor reformats it. The logger is set up when the agent writes its first line ({@link RetryLog#createWhenWritten}): a
 * start at {@code warn} that has nothing to say leaves {@code java.util.logging} to the application.
 */
final class AgentLogging {
    private AgentLogging() {
    }

    static void install(final Level level) {
        RetryLog.createWhenWritten(level, new RetryLog.Setup() {
            @Override
            public void configure(Logger logger) {
                logger.setUseParentHandlers(false);
                for (Handler handler : logger.getHandlers()) {
                    if (handler instanceof OneLineStderrHandler) {
                        logger.removeHandler(handler);
                    }
                }
                Handler handler = new OneLineStderrHandler();
                handler.setLevel(Level.ALL);
                logger.addHandler(handler);
                logger.setLevel(level);
            }
        });
    }

    /** Formats a record as exactly one line; a throwable adds its type and top frames, never a message. */
    static String format(LogRecord record, boolean withTrace) {
        String message = MessageFormatter.INSTANCE.formatMessage(record);
        if (message == null) {
            message = "";
        }
        StringBuilder line = new StringBuilder(message.length() + 64);
        if (!message.startsWith(RetryLog.LOGGER_NAME)) {
            line.append(RetryLog.LOGGER_NAME).append(' ');
        }
        line.append(message);
        Throwable thrown = record.getThrown();
        if (thrown != null && withTrace) {
            // Exception messages may quote URLs or header values: only the type and where it was thrown.
            line.append(" trace=").append(thrown.getClass().getName());
            StackTraceElement[] frames = thrown.getStackTrace();
            for (int i = 0; i < frames.length && i < 5; i++) {
                line.append(i == 0 ? "@" : "<").append(frames[i]);
            }
        }
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\n' || c == '\r') {
                line.setCharAt(i, ' ');
            }
        }
        return line.toString();
    }

    static final class OneLineStderrHandler extends Handler {
        @Override
        public void publish(LogRecord record) {
            if (!isLoggable(record)) {
                return;
            }
            Logger logger = RetryLog.logger();
            boolean debug = logger.isLoggable(Level.FINE);
            System.err.println(format(record, debug));
        }

        @Override
        public void flush() {
            System.err.flush();
        }

        @Override
        public void close() {
            // stderr is not ours to close
        }
    }

    /** Only for {@link Formatter#formatMessage}: parameters and resource bundles, as JUL defines them. */
    private static final class MessageFormatter extends Formatter {
        static final MessageFormatter INSTANCE = new MessageFormatter();

        @Override
        public String format(LogRecord record) {
            return formatMessage(record);
        }
    }
}
