package dev.retryagent.analysis;

import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.RetrySettings;
import dev.retryagent.policy.Rule;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** What {@link PolicyAnalysis} found for the defaults or one rule. */
public final class Section {
    private final String name;
    private final Rule rule;
    private final RetrySettings settings;
    private final Mode mode;
    Timeline timeline;
    Timeline retryAfterTimeline;
    Outage outage;
    int mostAttempts = 1;
    /** What one attempt takes in its figures: the rule's {@code attemptTimeout}, else the operator's attempt time. */
    long attemptMillis;
    /** {@link #attemptMillis} is the rule's {@code attemptTimeout}: the figures hold for attempts that hang too. */
    boolean attemptTimeFromPolicy;
    final List<Finding> warnings = new ArrayList<Finding>();
    final List<String> notes = new ArrayList<String>();

    Section(String name, Rule rule, RetrySettings settings, Mode mode) {
        this.name = name;
        this.rule = rule;
        this.settings = settings;
        this.mode = mode;
    }

    /** {@code defaults}, or {@code rule #N}. */
    public String name() {
        return name;
    }

    /** Null for the defaults. */
    public Rule rule() {
        return rule;
    }

    public RetrySettings settings() {
        return settings;
    }

    /** The mode its calls run in: its own, or the file's. */
    public Mode mode() {
        return mode;
    }

    /** Null in mode off. */
    public Timeline timeline() {
        return timeline;
    }

    /** Null when Retry-After is ignored or nothing is retried. */
    public Timeline retryAfterTimeline() {
        return retryAfterTimeline;
    }

    /** Null without an outage to ride out, and in mode off. */
    public Outage outage() {
        return outage;
    }

    /** What one attempt takes in this section's figures. */
    public long attemptMillis() {
        return attemptMillis;
    }

    /**
     * Whether {@link #attemptMillis} is the rule's {@code attemptTimeout}: no attempt takes longer, so the figures are
     * exact for attempts that run to their limit (a dependency that hangs), not an assumption.
     */
    public boolean attemptTimeFromPolicy() {
        return attemptTimeFromPolicy;
    }

    /** The most attempts a destination sees for one call, attempts failing at once (0 ms each). */
    public int mostAttempts() {
        return mostAttempts;
    }

    public List<Finding> warnings() {
        return Collections.unmodifiableList(warnings);
    }

    public List<String> notes() {
        return Collections.unmodifiableList(notes);
    }

    /** Whether calls of this section are retried now (enforce, more than one attempt, something to retry). */
    public boolean retries() {
        return mode == Mode.ENFORCE && settings.maxAttempts() > 1 && retriesAnything();
    }

    /** Whether its retryOn names any status or failure kind. */
    boolean retriesAnything() {
        return settings.retryStatuses().codes().length > 0 || !settings.retryFailures().isEmpty();
    }

    /** Failure kinds in the order of the enum, spelled as in policy files. */
    public List<String> failureNames() {
        List<String> names = new ArrayList<String>();
        for (FailureKind kind : FailureKind.values()) {
            if (settings.retryFailures().contains(kind)) {
                names.add(kind.configName());
            }
        }
        return names;
    }
}
