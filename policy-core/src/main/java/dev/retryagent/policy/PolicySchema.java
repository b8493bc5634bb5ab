package dev.retryagent.policy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;

/**
 * The shape of a policy file (docs/reference.md#the-policy-file): the keys each mapping accepts and the words each
 * value may be.
 * The words of modes, jitters, failure kinds, built-in retries and clients come from the model types that
 * define them, so that a new one needs no second edit here.
 */
final class PolicySchema {
    static final List<String> TOP_KEYS = names("version", "mode", "builtInRetries", "marker", "defaults", "rules");
    static final List<String> SETTINGS_KEYS = names("maxAttempts", "backoff", "deadline", "attemptTimeout", "retryOn", "retryAfter",
            "idempotentMethods", "idempotencyKeyHeaders", "retryUnsent", "budget", "upperLayers");
    /** A rule holds its {@code match}, its {@code mode} and any of the settings. */
    static final List<String> RULE_KEYS = concat(names("match", "mode"), SETTINGS_KEYS);
    static final List<String> MARKER_KEYS = names("header", "enabled");
    static final List<String> BACKOFF_KEYS = names("base", "cap", "multiplier", "jitter");
    static final List<String> RETRY_ON_KEYS = names("statuses", "failures");
    static final List<String> RETRY_AFTER_KEYS = names("honor", "max", "spread");
    static final List<String> DEADLINE_KEYS = names("after", "enforce");
    static final List<String> BUDGET_KEYS = names("ratio", "minPerSecond");
    static final List<String> MATCH_KEYS = names("host", "port", "path", "methods", "client");

    /** The methods a policy may name. */
    static final List<String> METHODS = names("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE", "POST", "PATCH",
            "CONNECT");
    static final ConfigWords<Mode> MODES = ConfigWords.of(EnumSet.allOf(Mode.class), Mode::configName);
    static final ConfigWords<BuiltInRetries> BUILT_IN_RETRIES = ConfigWords.of(EnumSet.allOf(BuiltInRetries.class),
            BuiltInRetries::configName);
    static final ConfigWords<UpperLayers> UPPER_LAYERS = ConfigWords.of(EnumSet.allOf(UpperLayers.class),
            UpperLayers::configName);
    static final ConfigWords<Jitter> JITTERS = ConfigWords.of(EnumSet.allOf(Jitter.class), Jitter::configName);
    /** Every failure kind but {@link FailureKind#OTHER}, which is never retried and so cannot be named. */
    static final ConfigWords<FailureKind> FAILURES = ConfigWords.of(
            EnumSet.complementOf(EnumSet.of(FailureKind.OTHER)), FailureKind::configName);
    static final ConfigWords<String> CLIENTS = ConfigWords.of(Match.CLIENTS, client -> client);

    static final int MAX_ATTEMPTS = 100;
    static final double MAX_SPREAD = 10.0;

    /** Where a mapping sits in the file, and so which keys it accepts and which hints its unknown keys get. */
    enum Place {
        TOP(TOP_KEYS), MARKER(MARKER_KEYS), DEFAULTS(SETTINGS_KEYS), RULE(RULE_KEYS), MATCH(MATCH_KEYS),
        BACKOFF(BACKOFF_KEYS), RETRY_ON(RETRY_ON_KEYS), RETRY_AFTER(RETRY_AFTER_KEYS), BUDGET(BUDGET_KEYS),
        DEADLINE(DEADLINE_KEYS);

        private final List<String> keys;

        Place(List<String> keys) {
            this.keys = keys;
        }

        /** The keys a mapping here accepts, in the order messages list them. */
        List<String> keys() {
            return keys;
        }
    }

    private PolicySchema() {
    }

    private static List<String> names(String... names) {
        return Collections.unmodifiableList(Arrays.asList(names));
    }

    private static List<String> concat(List<String> first, List<String> second) {
        List<String> all = new ArrayList<String>(first);
        all.addAll(second);
        return Collections.unmodifiableList(all);
    }
}
