package dev.retryagent.policy;

/**
 * What the agent does with a call made inside a retry loop of another layer in the same JVM, above the client (an
 * SDK's or a library's own retries, docs/reference.md#layers-above-the-client).
 */
public enum UpperLayers {
    /** The layer above owns the retries: the agent sends the call once, unmarked, and counts it. */
    DEFER("defer"),
    /** The agent retries the call as any other; the attempts multiply with the layer's own. */
    RETRY("retry");

    private final String configName;

    UpperLayers(String configName) {
        this.configName = configName;
    }

    public String configName() {
        return configName;
    }
}
