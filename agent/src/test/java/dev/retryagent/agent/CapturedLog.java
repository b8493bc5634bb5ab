package dev.retryagent.agent;

import dev.retryagent.engine.RetryLog;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** The agent's log lines as {@code LEVEL message}, from {@link #start} to {@link #stop}; for tests. */
public final class CapturedLog extends Handler {
    /** What was logged, in order. */
    public final List<String> lines = Collections.synchronizedList(new ArrayList<>());
    private Level levelBefore;

    /** Captures what the agent's logger logs at {@code level} and above. */
    public void start(Level level) {
        Logger logger = RetryLog.logger();
        levelBefore = logger.getLevel();
        logger.setLevel(level);
        logger.addHandler(this);
    }

    public void stop() {
        RetryLog.logger().removeHandler(this);
        RetryLog.logger().setLevel(levelBefore);
    }

    @Override
    public void publish(LogRecord record) {
        lines.add(record.getLevel() + " " + record.getMessage());
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }
}
