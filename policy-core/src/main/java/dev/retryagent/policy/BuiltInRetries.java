package dev.retryagent.policy;

/** What happens to the retry logic the HTTP clients carry themselves. */
public enum BuiltInRetries {
    /** The agent is the only retry layer: the clients' own retries are suppressed. */
    REPLACE("replace"),
    /** The clients keep their own retry configuration exactly as the application set it. */
    KEEP("keep");

    private final String configName;

    BuiltInRetries(String configName) {
        this.configName = configName;
    }

    public String configName() {
        return configName;
    }

    public static BuiltInRetries fromConfigName(String name) {
        for (BuiltInRetries value : values()) {
            if (value.configName.equals(name)) {
                return value;
            }
        }
        return null;
    }
}
