package dev.retryagent.analysis;

/** A warning of {@link PolicyAnalysis}, with the key it is about ({@code backoff.jitter}, relative to its section). */
public final class Finding {
    private final String key;
    private final String message;
    private final boolean inherited;

    Finding(String key, String message, boolean inherited) {
        this.key = key;
        this.message = message;
        this.inherited = inherited;
    }

    public String key() {
        return key;
    }

    public String message() {
        return message;
    }

    /** The defaults have the same finding: it is reported there, and counted once. */
    public boolean inherited() {
        return inherited;
    }
}
