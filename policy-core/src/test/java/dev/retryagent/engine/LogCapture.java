package dev.retryagent.engine;

import java.util.function.Consumer;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** The agent's log records, for tests. */
final class LogCapture {
    private LogCapture() {
    }

    /**
     * Hands every record the agent's logger writes at {@code level} and above to {@code records}; the handler to remove
     * from {@code RetryLog.logger()} afterwards.
     */
    static Handler capture(Level level, Consumer<LogRecord> records) {
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                records.accept(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = RetryLog.logger();
        logger.setLevel(level);
        logger.addHandler(handler);
        return handler;
    }
}
