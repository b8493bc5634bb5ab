package dev.retryagent.analysis;

import dev.retryagent.policy.BuiltInRetries;
import dev.retryagent.policy.Match;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetryAfterPolicy;
import dev.retryagent.policy.RetrySettings;
import dev.retryagent.policy.Rule;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What a valid policy means for one call, per section (the defaults, then each rule): what it retries, how many
 * attempts a destination can see, how long a call can take when every attempt fails ({@link Timeline}), whether the
 * retries outlast an outage ({@link Outage}), and the settings that are likely mistakes ({@link SectionChecks};
 * docs/operations.md). Pure: time is the operator's stated attempt time, randomness a fixed seed, so the same file
 * always gives the same figures. What {@code java -jar retry-agent.jar check} prints; never on the agent's boot path.
 */
public final class PolicyAnalysis {
    /** The attempt time assumed when the operator states none: an order of magnitude, not a measurement. */
    public static final long DEFAULT_ATTEMPT_MILLIS = 1000;
    /** Draws of the jitter per figure; odd, so that the median is one draw. */
    public static final int SAMPLES = 2001;
    public static final long SEED = 42;
    /** Above this many attempts a failing destination's load is multiplied more than a retry is worth. */
    public static final int MAX_REASONABLE_ATTEMPTS = 5;

    private final Policy policy;
    private final long attemptMillis;
    private final boolean attemptTimeStated;
    /** The outage to ride out, or -1 when none was asked about. */
    private final long outageMillis;
    private final List<Finding> warnings = new ArrayList<Finding>();
    private final List<String> notes = new ArrayList<String>();
    private final List<Section> sections = new ArrayList<Section>();

    private PolicyAnalysis(Policy policy, long attemptMillis, boolean attemptTimeStated, long outageMillis) {
        this.policy = policy;
        this.attemptMillis = attemptMillis;
        this.attemptTimeStated = attemptTimeStated;
        this.outageMillis = outageMillis;
    }

    /**
     * @param attemptMillis the time one attempt takes, as the operator states it (or {@link #DEFAULT_ATTEMPT_MILLIS})
     * @param outageMillis  the outage to ride out, or -1
     */
    public static PolicyAnalysis of(Policy policy, long attemptMillis, boolean attemptTimeStated, long outageMillis) {
        PolicyAnalysis analysis = new PolicyAnalysis(policy, attemptMillis, attemptTimeStated, outageMillis);
        analysis.analyse();
        return analysis;
    }

    public Policy policy() {
        return policy;
    }

    public long attemptMillis() {
        return attemptMillis;
    }

    public boolean attemptTimeStated() {
        return attemptTimeStated;
    }

    /** The outage to ride out, or -1 when none was asked about. */
    public long outageMillis() {
        return outageMillis;
    }

    /** The policy's own warnings, about no section in particular. */
    public List<Finding> warnings() {
        return Collections.unmodifiableList(warnings);
    }

    public List<String> notes() {
        return Collections.unmodifiableList(notes);
    }

    /** The defaults, then each rule in the file's order. */
    public List<Section> sections() {
        return Collections.unmodifiableList(sections);
    }

    /** Every warning: the policy's and each section's own (an inherited one is counted where it is set). */
    public int warningCount() {
        int count = warnings.size();
        for (Section section : sections) {
            for (Finding finding : section.warnings) {
                if (!finding.inherited()) {
                    count++;
                }
            }
        }
        return count;
    }

    private void analyse() {
        Section defaults = section("defaults", null, policy.defaults(), null);
        sections.add(defaults);
        for (Rule rule : policy.rules()) {
            sections.add(section("rule #" + (rule.index() + 1), rule, rule.settings(), defaults));
        }
        boolean anyRetries = false;
        for (Section section : sections) {
            anyRetries |= section.retries();
        }
        if (policy.markerHeader() == null && anyRetries) {
            warnings.add(new Finding("marker.enabled", "the marker is disabled: a layer below (another service with the "
                    + "agent, a second client in this JVM) retries again, and layers multiply (3 layers of 3 attempts: "
                    + "27 requests to the last service)", false));
        }
        List<String> unbounded = new ArrayList<String>();
        for (Section section : sections) {
            if (section.mode() != Mode.OFF && !section.settings().boundsAttempts()) {
                unbounded.add(section.rule() == null ? "the defaults" : "rule " + (section.rule().index() + 1));
            }
        }
        if (!unbounded.isEmpty()) {
            notes.add("calls may hang (" + Human.join(unbounded) + "): without attemptTimeout an attempt lasts as long "
                    + "as the client lets it, and HttpURLConnection and java.net.http wait for ever by default (no "
                    + "connect or read timeout); the deadline then only stops the retries. attemptTimeout bounds each "
                    + "attempt, and the deadline then ends the call");
        }
        if (policy.builtInRetries() == BuiltInRetries.KEEP) {
            notes.add("builtInRetries keep: the clients' own hidden retries (OkHttp's retryOnConnectionFailure, "
                    + "HttpClient 5's retry strategy, the JDK's resend) stay on top of the agent's");
        }
        if (policy.mode() != Mode.ENFORCE) {
            notes.add("mode " + policy.mode().configName() + " for the whole file: rules without a mode of their own "
                    + (policy.mode() == Mode.OBSERVE ? "log `would retry` and never retry" : "leave every call alone"));
        }
    }

    private Section section(String name, Rule rule, RetrySettings settings, Section defaults) {
        Section s = new Section(name, rule, settings, policy.effectiveMode(settings));
        if (s.mode() == Mode.OFF) {
            s.notes.add("mode off: the agent leaves these calls alone (no marker, no retry); its other settings are unused");
            return s;
        }
        if (s.mode() == Mode.OBSERVE) {
            s.notes.add("mode observe: no retry and no marker yet; the agent logs `would retry`. The figures are what "
                    + "enforce would do");
        }
        s.attemptTimeFromPolicy = settings.attemptTimeoutMillis() > 0;
        long attempt = s.attemptTimeFromPolicy ? settings.attemptTimeoutMillis() : attemptMillis;
        s.attemptMillis = attempt;
        boolean bounded = settings.boundsAttempts();
        s.timeline = Timeline.of(settings.maxAttempts(), settings.backoff(), settings.deadlineMillis(), attempt,
                bounded, true);
        s.mostAttempts = Timeline.mostAttempts(settings.maxAttempts(), settings.backoff(), settings.deadlineMillis());
        RetryAfterPolicy ra = settings.retryAfter();
        if (ra.honor() && settings.maxAttempts() > 1) {
            s.retryAfterTimeline = Timeline.withRetryAfter(settings.maxAttempts(), settings.backoff(),
                    settings.deadlineMillis(), attempt, bounded, ra);
        }
        if (outageMillis >= 0) {
            s.outage = Outage.of(settings, attempt, outageMillis, s.timeline);
        }
        SectionChecks.check(s, attempt, outageMillis);
        if (rule != null) {
            shadowing(s, rule);
        }
        if (defaults != null && defaults.mode() != Mode.OFF) {
            for (int i = 0; i < s.warnings.size(); i++) {
                Finding own = s.warnings.get(i);
                for (Finding inherited : defaults.warnings) {
                    // Whether a rule rides an outage out is a fact about the calls it matches, reported for each.
                    if (inherited.key().equals(own.key()) && inherited.message().equals(own.message())
                            && !"outage".equals(own.key())) {
                        s.warnings.set(i, new Finding(own.key(), own.message(), true));
                    }
                }
            }
        }
        return s;
    }

    /** A rule that an earlier rule always wins over: every key the earlier one gives, this one gives the same or
     * narrower. */
    private void shadowing(Section s, Rule rule) {
        for (Rule earlier : policy.rules()) {
            if (earlier.index() >= rule.index()) {
                break;
            }
            if (covers(earlier.match(), rule.match())) {
                s.warnings.add(new Finding("match", "never applies: " + earlier.toString().replaceFirst(" match .*", "")
                        + " comes first and matches every call this rule matches", false));
                return;
            }
        }
    }

    private static boolean covers(Match wide, Match narrow) {
        if (wide.host() != null && (narrow.host() == null
                || !wide.host().pattern().equalsIgnoreCase(narrow.host().pattern()))) {
            return false;
        }
        if (wide.port() >= 0 && wide.port() != narrow.port()) {
            return false;
        }
        if (wide.path() != null && (narrow.path() == null || !wide.path().pattern().equals(narrow.path().pattern()))) {
            return false;
        }
        if (!wide.methods().isEmpty() && (narrow.methods().isEmpty() || !wide.methods().containsAll(narrow.methods()))) {
            return false;
        }
        return wide.client() == null || wide.client().equals(narrow.client());
    }
}
