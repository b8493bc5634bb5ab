package dev.retryagent.policy;

/** What the agent does with the calls a policy covers. */
public enum Mode {
    /** Decide and retry. */
    ENFORCE("enforce"),
    /** Decide, count and log "would retry", but never change traffic. */
    OBSERVE("observe"),
    /** Leave calls alone. */
    OFF("off");

    private final String configName;

    Mode(String configName) {
        this.configName = configName;
    }

    /** The name used in policy files and agent arguments. */
    public String configName() {
        return configName;
    }

    /** The mode spelled {@code name} in a policy file or argument, or null when there is none. */
    public static Mode fromConfigName(String name) {
        for (Mode mode : values()) {
            if (mode.configName.equals(name)) {
                return mode;
            }
        }
        return null;
    }
}
