package dev.retryagent.policy;

/**
 * How an attempt failed without a response (docs/reference.md#classification). Adapters map each client's exceptions to
 * one of these; anything that will not change on a retry (TLS errors, unknown host, ...) is {@link #OTHER}.
 */
public enum FailureKind {
    /** Refused, unreachable, connect timeout. */
    CONNECT("connect"),
    /** Connection reset or closed before a complete response. */
    RESET("reset"),
    /** Read timeout. */
    TIMEOUT("timeout"),
    /** Never retried; cannot be named in {@code retryOn.failures}. */
    OTHER("other");

    private final String configName;

    FailureKind(String configName) {
        this.configName = configName;
    }

    public String configName() {
        return configName;
    }

    /** The retryable kind named {@code name} in a policy file, or null ({@code other} is not nameable). */
    public static FailureKind fromConfigName(String name) {
        for (FailureKind kind : values()) {
            if (kind != OTHER && kind.configName.equals(name)) {
                return kind;
            }
        }
        return null;
    }
}
