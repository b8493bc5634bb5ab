package dev.retryagent.agent.startup;

import dev.retryagent.policy.Mode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.logging.Level;

/**
 * The agent's settings (docs/reference.md#starting-the-agent): agent arguments ({@code key=value} pairs separated by
 * {@code ,}), then system properties {@code retry.agent.KEY}, then environment variables {@code RETRY_AGENT_KEY}. An
 * unknown key or an invalid value never stops the application: it becomes a warning that names the key, and the value
 * is ignored (the next source, or the default, applies).
 */
public final class AgentConfig {
    public static final String POLICY = "policy";
    public static final String MODE = "mode";
    public static final String LOG = "log";
    static final List<String> KEYS = Collections.unmodifiableList(Arrays.asList(POLICY, MODE, LOG));

    static final String PROPERTY_PREFIX = "retry.agent.";
    static final String ENV_PREFIX = "RETRY_AGENT_";
    static final String TEST_PROPERTY_PREFIX = PROPERTY_PREFIX + "test.";

    private final String policy;
    private final Mode mode;
    private final Level logLevel;
    private final String logName;
    private final List<String> warnings;

    private AgentConfig(String policy, Mode mode, Level logLevel, String logName, List<String> warnings) {
        this.policy = policy;
        this.mode = mode;
        this.logLevel = logLevel;
        this.logName = logName;
        this.warnings = Collections.unmodifiableList(warnings);
    }

    /** The policy file, or null for the built-in policy. */
    public String policy() {
        return policy;
    }

    /** The operator's mode override, or null to keep the file's. */
    public Mode mode() {
        return mode;
    }

    /** The level of the {@code retry-agent} logger. */
    public Level logLevel() {
        return logLevel;
    }

    /** {@code info}, {@code debug}, {@code warn} or {@code off}. */
    public String logName() {
        return logName;
    }

    /** One line per problem found, each naming its key and source. */
    public List<String> warnings() {
        return warnings;
    }

    /** The environment variable for {@code key}: {@code RETRY_AGENT_} + upper case, {@code .}/{@code -} as {@code _}.
     * */
    static String envName(String key) {
        return ENV_PREFIX + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    public static AgentConfig resolve(String agentArgs, Properties systemProperties, Map<String, String> env) {
        List<String> warnings = new ArrayList<String>();
        // One map per source, key -> value, in precedence order.
        Map<String, String> fromArgs = parseArgs(agentArgs, warnings);
        Map<String, String> fromProps = new LinkedHashMap<String, String>();
        for (String name : systemProperties.stringPropertyNames()) {
            // retry.agent.test.*: switches of the agent's own tests (InjectedFaults), not settings.
            if (name.startsWith(PROPERTY_PREFIX) && !name.startsWith(TEST_PROPERTY_PREFIX)) {
                String key = name.substring(PROPERTY_PREFIX.length());
                if (KEYS.contains(key)) {
                    fromProps.put(key, systemProperties.getProperty(name));
                } else {
                    warnings.add(warning(name, "system-property", "unknown key; known keys: " + KEYS));
                }
            }
        }
        Map<String, String> fromEnv = new LinkedHashMap<String, String>();
        for (Map.Entry<String, String> e : env.entrySet()) {
            if (e.getKey().startsWith(ENV_PREFIX)) {
                String key = null;
                for (String known : KEYS) {
                    if (envName(known).equals(e.getKey())) {
                        key = known;
                    }
                }
                if (key != null) {
                    fromEnv.put(key, e.getValue());
                } else {
                    warnings.add(warning(e.getKey(), "environment-variable",
                            "unknown key; known variables: " + envName(POLICY) + ", " + envName(MODE) + ", " + envName(LOG)));
                }
            }
        }
        List<Source> sources = Arrays.asList(
                new Source("agent-argument", fromArgs),
                new Source("system-property", fromProps),
                new Source("environment-variable", fromEnv));

        String policy = null;
        Mode mode = null;
        Level level = null;
        String levelName = null;
        for (Source source : sources) {
            String value = source.values.get(POLICY);
            if (policy == null && value != null) {
                if (value.trim().isEmpty()) {
                    warnings.add(warning(POLICY, source.name, "empty value; ignored"));
                } else {
                    policy = value.trim();
                }
            }
            value = source.values.get(MODE);
            if (mode == null && value != null) {
                mode = Mode.fromConfigName(value.trim().toLowerCase(Locale.ROOT));
                if (mode == null) {
                    warnings.add(warning(MODE, source.name, "invalid value '" + value + "' (enforce|observe|off); ignored"));
                }
            }
            value = source.values.get(LOG);
            if (level == null && value != null) {
                levelName = value.trim().toLowerCase(Locale.ROOT);
                level = logLevel(levelName);
                if (level == null) {
                    warnings.add(warning(LOG, source.name, "invalid value '" + value + "' (info|debug|warn|off); ignored"));
                }
            }
        }
        if (level == null) {
            level = Level.INFO;
            levelName = "info";
        }
        return new AgentConfig(policy, mode, level, levelName, warnings);
    }

    static Level logLevel(String name) {
        if ("info".equals(name)) {
            return Level.INFO;
        }
        if ("debug".equals(name)) {
            return Level.FINE;
        }
        if ("warn".equals(name)) {
            return Level.WARNING;
        }
        if ("off".equals(name)) {
            return Level.OFF;
        }
        return null;
    }

    private static Map<String, String> parseArgs(String agentArgs, List<String> warnings) {
        Map<String, String> values = new LinkedHashMap<String, String>();
        if (agentArgs == null) {
            return values;
        }
        for (String pair : agentArgs.split(",")) {
            String trimmed = pair.trim();
            if (trimmed.isEmpty()) {
                continue;
            }
            int eq = trimmed.indexOf('=');
            if (eq <= 0) {
                warnings.add(warning(trimmed, "agent-argument", "not a key=value pair; ignored"));
                continue;
            }
            String key = trimmed.substring(0, eq).trim();
            if (!KEYS.contains(key)) {
                warnings.add(warning(key, "agent-argument", "unknown key; known keys: " + KEYS));
                continue;
            }
            values.put(key, trimmed.substring(eq + 1));
        }
        return values;
    }

    private static String warning(String key, String source, String message) {
        return "config-warning key=" + key + " source=" + source + " problem=\"" + message + "\"";
    }

    private static final class Source {
        final String name;
        final Map<String, String> values;

        Source(String name, Map<String, String> values) {
            this.name = name;
            this.values = values;
        }
    }
}
