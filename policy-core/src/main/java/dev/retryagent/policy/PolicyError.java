package dev.retryagent.policy;

import java.io.Serializable;

/**
 * One problem found in a policy file: where it is (file, line, key) and what is wrong.
 * {@link #toString()} is the form operators see: {@code file:line: key: message}.
 */
public final class PolicyError implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String file;
    private final int line;
    private final String key;
    private final String message;

    /**
     * @param file    the policy file (or source name) the error is in
     * @param line    the line, from 1
     * @param key     the dotted key path, such as {@code defaults.backoff.base} or {@code rules[2].match.host};
     *                {@code (file)} for problems with the file as a whole, {@code (yaml)} for YAML syntax
     * @param message what was found and what is allowed
     */
    public PolicyError(String file, int line, String key, String message) {
        this.file = file == null ? "(unknown)" : file;
        this.line = line;
        this.key = key == null ? "(file)" : key;
        this.message = message == null ? "" : message;
    }

    public String file() {
        return file;
    }

    /** The line, from 1. */
    public int line() {
        return line;
    }

    /** The dotted key path, such as {@code rules[2].match.host}. */
    public String key() {
        return key;
    }

    public String message() {
        return message;
    }

    @Override
    public boolean equals(Object other) {
        if (this == other) {
            return true;
        }
        if (!(other instanceof PolicyError)) {
            return false;
        }
        PolicyError that = (PolicyError) other;
        return line == that.line && file.equals(that.file) && key.equals(that.key) && message.equals(that.message);
    }

    @Override
    public int hashCode() {
        int h = file.hashCode();
        h = 31 * h + line;
        h = 31 * h + key.hashCode();
        return 31 * h + message.hashCode();
    }

    /** {@code file:line: key: message}. */
    @Override
    public String toString() {
        return file + ":" + line + ": " + key + ": " + message;
    }
}
