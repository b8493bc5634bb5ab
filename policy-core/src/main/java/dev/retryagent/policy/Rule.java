package dev.retryagent.policy;

/** One entry of {@code rules}: a match and the settings it resolves to (defaults overridden key by key). */
public final class Rule {
    private final int index;
    private final int line;
    private final Match match;
    private final RetrySettings settings;

    /**
     * @param index position in the file's {@code rules}, from 0
     * @param line  line of the rule in its file, from 1 (0 when not from a file)
     */
    public Rule(int index, int line, Match match, RetrySettings settings) {
        this.index = index;
        this.line = line;
        this.match = match;
        this.settings = settings;
    }

    public int index() {
        return index;
    }

    public int line() {
        return line;
    }

    public Match match() {
        return match;
    }

    public RetrySettings settings() {
        return settings;
    }

    @Override
    public String toString() {
        return "rule #" + (index + 1) + (line > 0 ? " (line " + line + ")" : "") + " match " + match;
    }
}
