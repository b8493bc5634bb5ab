package dev.retryagent.policy;

/** How a backoff wait is randomised (docs/reference.md#backoff). */
public enum Jitter {
    FULL("full"),
    EQUAL("equal"),
    DECORRELATED("decorrelated"),
    NONE("none");

    private final String configName;

    Jitter(String configName) {
        this.configName = configName;
    }

    public String configName() {
        return configName;
    }

    public static Jitter fromConfigName(String name) {
        for (Jitter jitter : values()) {
            if (jitter.configName.equals(name)) {
                return jitter;
            }
        }
        return null;
    }
}
