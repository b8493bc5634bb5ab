package dev.retryagent.policy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** A whole policy: top-level settings, the defaults and the ordered rules. Immutable. */
public final class Policy {
    /** The marker header of docs/reference.md#one-retry-layer unless the file names another. */
    public static final String DEFAULT_MARKER_HEADER = "Retry-Attempt";

    private static final Policy BUILT_IN = new Policy("(built-in)", 1, Mode.ENFORCE, BuiltInRetries.REPLACE,
            DEFAULT_MARKER_HEADER, RetrySettings.builtIn(), Collections.<Rule>emptyList());

    private final String source;
    private final int version;
    private final Mode mode;
    private final BuiltInRetries builtInRetries;
    private final String markerHeader;
    private final RetrySettings defaults;
    private final List<Rule> rules;
    private final Rule[] ruleArray;
    private final boolean modeForced;

    /**
     * @param markerHeader the marker header name, or null when the marker is disabled
     */
    public Policy(String source, int version, Mode mode, BuiltInRetries builtInRetries, String markerHeader,
                  RetrySettings defaults, List<Rule> rules) {
        this(source, version, mode, builtInRetries, markerHeader, defaults, rules, false);
    }

    private Policy(String source, int version, Mode mode, BuiltInRetries builtInRetries, String markerHeader,
                   RetrySettings defaults, List<Rule> rules, boolean modeForced) {
        if (mode == null || builtInRetries == null || defaults == null || rules == null) {
            throw new IllegalArgumentException("mode, builtInRetries, defaults and rules are required");
        }
        this.source = source;
        this.version = version;
        this.mode = mode;
        this.builtInRetries = builtInRetries;
        this.markerHeader = markerHeader;
        this.defaults = defaults;
        this.rules = Collections.unmodifiableList(new ArrayList<Rule>(rules));
        this.ruleArray = this.rules.toArray(new Rule[0]);
        this.modeForced = modeForced;
    }

    /** The built-in default policy of docs/reference.md#the-policy-file. */
    public static Policy builtIn() {
        return BUILT_IN;
    }

    /** Where the policy came from: a file path, or {@code (built-in)}. */
    public String source() {
        return source;
    }

    public int version() {
        return version;
    }

    public Mode mode() {
        return mode;
    }

    public BuiltInRetries builtInRetries() {
        return builtInRetries;
    }

    /** The marker header name, or null when the marker is disabled. */
    public String markerHeader() {
        return markerHeader;
    }

    public RetrySettings defaults() {
        return defaults;
    }

    public List<Rule> rules() {
        return rules;
    }

    /** The first rule that matches, or null when the defaults apply. */
    public Rule ruleFor(String client, String method, String host, int port, String path) {
        for (Rule rule : ruleArray) {
            if (rule.match().matches(client, method, host, port, path)) {
                return rule;
            }
        }
        return null;
    }

    /** The settings for a call: its first matching rule's, or the defaults. */
    public RetrySettings settingsFor(String client, String method, String host, int port, String path) {
        Rule rule = ruleFor(client, method, host, port, path);
        return rule == null ? defaults : rule.settings();
    }

    /**
     * The mode for settings of this policy: an {@code off} or {@code observe} set on the policy by an
     * operator override ({@link #withModeOverride}) wins over every rule, and so does the file's own top-level
     * {@code mode: off}, the kill switch (docs/rollout.md); otherwise a rule's own mode wins.
     */
    public Mode effectiveMode(RetrySettings settings) {
        if (modeForced || mode == Mode.OFF) {
            return mode;
        }
        return settings.mode() != null ? settings.mode() : mode;
    }

    /**
     * This policy with its mode replaced by an operator's {@code mode} argument. {@code off} and
     * {@code observe} are safety switches and apply to every rule; {@code enforce} replaces only the
     * file's top-level mode, so rules that say {@code off} or {@code observe} keep it.
     */
    public Policy withModeOverride(Mode override) {
        return new Policy(source, version, override, builtInRetries, markerHeader, defaults, rules,
                override != Mode.ENFORCE);
    }
}
