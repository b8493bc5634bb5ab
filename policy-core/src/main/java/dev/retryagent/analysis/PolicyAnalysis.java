package dev.retryagent.agent;

import dev.retryagent.engine.Backoff;
import dev.retryagent.engine.RandomSource;
import dev.retryagent.policy.BackoffPolicy;
import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Jitter;
import dev.retryagent.policy.Match;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetryAfterPolicy;
import dev.retryagent.policy.RetrySettings;
import dev.retryagent.policy.Rule;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What a valid policy means for one call, per section (the defaults, then each rule): what it retries, how many
 * attempts a destination can see, how long a call can take when every attempt fails, whether the retries outlast
 * an outage, and the settings that are likely mistakes (docs/operations.md). Pure: time is the operator's stated
 * attempt time, randomness a fixed seed, so the same file always gives the same figures.
 *
 * <p>Timeline of a call, as the engine runs it (docs/reference.md#backoff, #deadline): attempt 1 starts at 0; after
 * attempt k ends at {@code elapsed}, the wait w before attempt k+1 is drawn, and the call gives up when {@code elapsed
 * + w >= deadline}; otherwise attempt k+1 starts at {@code elapsed + w}. An attempt itself is never cut short.
 */
final class PolicyAnalysis {
    /** The attempt time assumed when the operator states none: an order of magnitude, not a measurement. */
    static final long DEFAULT_ATTEMPT_MILLIS = 1000;
    /** Draws of the jitter per figure; odd, so that the median is one draw. */
    static final int SAMPLES = 2001;
    static final long SEED = 42;
    /** Above this many attempts a failing destination's load is multiplied more than a retry is worth. */
    static final int MAX_REASONABLE_ATTEMPTS = 5;
    /** A wait shorter than this is, for a failing server and a fleet of clients, an immediate retry. */
    static final long IMMEDIATE_MILLIS = 10;
    /** A jitter range below this share of the wait it spreads leaves clients nearly in step. */
    static final double NARROW_JITTER = 0.25;
    /** A Retry-After spread below this leaves clients told the same delay nearly in step. */
    static final double NARROW_SPREAD = 0.1;

    private static final Set<String> NOT_IDEMPOTENT = new LinkedHashSet<String>(Arrays.asList("POST", "PATCH", "CONNECT"));

    final Policy policy;
    final long attemptMillis;
    final boolean attemptTimeStated;
    /** The outage to ride out, or -1 when none was asked about. */
    final long outageMillis;
    final List<Finding> warnings = new ArrayList<Finding>();
    final List<String> notes = new ArrayList<String>();
    final List<Section> sections = new ArrayList<Section>();

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
    static PolicyAnalysis of(Policy policy, long attemptMillis, boolean attemptTimeStated, long outageMillis) {
        PolicyAnalysis analysis = new PolicyAnalysis(policy, attemptMillis, attemptTimeStated, outageMillis);
        analysis.analyse();
        return analysis;
    }

    /** Every warning: the policy's and each section's own (an inherited one is counted where it is set). */
    int warningCount() {
        int count = warnings.size();
        for (Section section : sections) {
            for (Finding finding : section.warnings) {
                if (!finding.inherited) {
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
        if (policy.builtInRetries() == dev.retryagent.policy.BuiltInRetries.KEEP) {
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
        if (s.mode == Mode.OFF) {
            s.notes.add("mode off: the agent leaves these calls alone (no marker, no retry); its other settings are unused");
            return s;
        }
        if (s.mode == Mode.OBSERVE) {
            s.notes.add("mode observe: no retry and no marker yet; the agent logs `would retry`. The figures are what "
                    + "enforce would do");
        }
        s.timeline = Timeline.of(settings.maxAttempts(), settings.backoff(), settings.deadlineMillis(), attemptMillis,
                true);
        s.mostAttempts = Timeline.mostAttempts(settings.maxAttempts(), settings.backoff(), settings.deadlineMillis());
        RetryAfterPolicy ra = settings.retryAfter();
        if (ra.honor() && settings.maxAttempts() > 1) {
            s.retryAfterTimeline = Timeline.withRetryAfter(settings.maxAttempts(), settings.backoff(),
                    settings.deadlineMillis(), attemptMillis, ra);
        }
        if (outageMillis >= 0) {
            s.outage = Outage.of(settings, attemptMillis, outageMillis, s.timeline);
        }
        warn(s);
        if (rule != null) {
            shadowing(s, rule);
        }
        if (defaults != null && defaults.mode != Mode.OFF) {
            for (int i = 0; i < s.warnings.size(); i++) {
                Finding own = s.warnings.get(i);
                for (Finding inherited : defaults.warnings) {
                    // Whether a rule rides an outage out is a fact about the calls it matches, reported for each.
                    if (inherited.key.equals(own.key) && inherited.message.equals(own.message)
                            && !"outage".equals(own.key)) {
                        s.warnings.set(i, new Finding(own.key, own.message, true));
                    }
                }
            }
        }
        return s;
    }

    private void warn(Section s) {
        RetrySettings settings = s.settings;
        List<Finding> w = s.warnings;
        int max = settings.maxAttempts();
        BackoffPolicy backoff = settings.backoff();
        if (!retriesAnything(s)) {
            if (max > 1) {
                w.add(new Finding("retryOn", "retryOn names no status and no failure kind: nothing is ever retried "
                        + "(say `mode: off` if that is meant)", false));
            }
        }
        if (max > MAX_REASONABLE_ATTEMPTS) {
            w.add(new Finding("maxAttempts", "maxAttempts " + max + " is above " + MAX_REASONABLE_ATTEMPTS
                    + ": a failing destination gets up to " + max + " times its load from these calls (only the budget "
                    + "stops it)", false));
        }
        for (int code : settings.retryStatuses().codes()) {
            if (code >= 400 && code < 500 && code != 408 && code != 429) {
                w.add(new Finding("retryOn.statuses", "status " + code + " in retryOn.statuses: a 4xx other than "
                        + "408/429 says the request itself is wrong, and a retry gets the same answer", false));
            }
        }
        if (s.outage != null && !s.outage.medianCase) {
            w.add(new Finding("outage", "cannot ride out an outage of " + Human.duration(outageMillis)
                    + (s.outage.bestCase ? " in the median call (only " + percent(s.outage.share) + " of calls do)"
                    : ": the last attempt starts by " + Human.duration(s.timeline.latestStartMillis) + " at the latest"),
                    false));
        }
        if (max <= 1) {
            return;
        }
        if (backoff.jitter() == Jitter.NONE) {
            w.add(new Finding("backoff.jitter", "jitter none: clients that failed together retry together, in step, "
                    + "at every retry (use full)", false));
        } else if (backoff.jitter() == Jitter.DECORRELATED && backoff.capMillis() <= backoff.baseMillis()) {
            w.add(new Finding("backoff.cap", "decorrelated jitter with cap " + Human.duration(backoff.capMillis())
                    + " not above base " + Human.duration(backoff.baseMillis()) + ": every wait is exactly "
                    + Human.duration(backoff.capMillis()) + ", no jitter at all", false));
        } else if (backoff.jitter() == Jitter.DECORRELATED
                && backoff.capMillis() - backoff.baseMillis() < NARROW_JITTER * backoff.capMillis()) {
            w.add(new Finding("backoff.cap", "decorrelated jitter between base " + Human.duration(backoff.baseMillis())
                    + " and cap " + Human.duration(backoff.capMillis()) + " spreads waits of up to "
                    + Human.duration(backoff.capMillis()) + " over only " + Human.duration(backoff.capMillis()
                    - backoff.baseMillis()) + ": clients retry nearly in step (a cap of 3 x base or more spreads them)",
                    false));
        }
        long firstWait = s.timeline.supWait[1];
        if (backoff.jitter() != Jitter.NONE && firstWait < IMMEDIATE_MILLIS) {
            w.add(new Finding("backoff.base", "the first retry comes at most " + Human.duration(firstWait)
                    + " after a failure: too soon for a failing server to recover, and clients that failed together "
                    + "are back together (a base of 50ms or more spreads them)", false));
        }
        RetryAfterPolicy ra = settings.retryAfter();
        if (ra.honor() && ra.spread() < NARROW_SPREAD) {
            w.add(new Finding("retryAfter.spread", "retryAfter.spread " + ra.spread() + ": clients told the same "
                    + "Retry-After come back within " + percent(ra.spread()) + " of it, nearly in step (0.5 spreads them)",
                    false));
        }
        if (ra.honor() && ra.maxMillis() >= settings.deadlineMillis()) {
            // A note, not a warning: the built-in defaults (max 30s, deadline 10s) are like this, and the outcome is
            // safe either way: a Retry-After the deadline cannot wait out goes back to the caller at once.
            s.notes.add("retryAfter.max " + Human.duration(ra.maxMillis()) + " is not below the deadline "
                    + Human.duration(settings.deadlineMillis()) + ": a Retry-After longer than the time left before the "
                    + "deadline goes back to the caller at once, so the deadline is the real limit");
        }
        if (!ra.honor() && (settings.retryStatuses().contains(429) || settings.retryStatuses().contains(503))) {
            w.add(new Finding("retryAfter.honor", "retryAfter.honor false: a 429 or 503 that says when to come back "
                    + "is retried sooner than the server asked", false));
        }
        Timeline t = s.timeline;
        if (s.mostAttempts <= 1) {
            w.add(new Finding("deadline", "deadline " + Human.duration(settings.deadlineMillis())
                    + " is not longer than the shortest first wait (" + Human.duration(t.minWait[1])
                    + "): no retry can ever happen", false));
        } else if (t.longestAttempts <= 1) {
            w.add(new Finding("deadline", "deadline " + Human.duration(settings.deadlineMillis()) + " leaves no "
                    + "room for a retry after one attempt of " + Human.duration(attemptMillis) + " (the attempt time)"
                    + ": no retry happens", false));
        } else if (t.medianAttempts <= 1) {
            w.add(new Finding("deadline", "deadline " + Human.duration(settings.deadlineMillis()) + ": in the median "
                    + "call no retry fits before it (attempts of " + Human.duration(attemptMillis) + ")", false));
        }
        if (settings.budget().ratio() == 0 && settings.budget().minPerSecond() == 0) {
            w.add(new Finding("budget", "budget ratio 0 and minPerSecond 0: the budget refuses every retry", false));
        }
        for (String method : settings.idempotentMethods()) {
            if (NOT_IDEMPOTENT.contains(method)) {
                w.add(new Finding("idempotentMethods", method + " in idempotentMethods: a " + method + " without an "
                        + "idempotency key is retried and may take effect twice (send an idempotency key instead)",
                        false));
            }
        }
        if (s.rule != null && !s.rule.match().methods().isEmpty() && settings.idempotencyKeyHeaders().isEmpty()) {
            boolean any = false;
            for (String method : s.rule.match().methods()) {
                any |= settings.isIdempotentMethod(method);
            }
            if (!any) {
                w.add(new Finding("idempotencyKeyHeaders", "the rule matches only " + join(s.rule.match().methods())
                        + ", none idempotent, and names no idempotency key header: it never retries", false));
            }
        }
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

    private static boolean retriesAnything(Section s) {
        return s.settings.retryStatuses().codes().length > 0 || !s.settings.retryFailures().isEmpty();
    }

    static String percent(double share) {
        double p = share * 100;
        if (p > 0 && p < 1) {
            return "<1%";
        }
        return Math.round(p) + "%";
    }

    static String join(Iterable<?> items) {
        StringBuilder sb = new StringBuilder();
        for (Object item : items) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(item);
        }
        return sb.toString();
    }

    /** A warning or a note, with the key it is about ({@code backoff.jitter}, relative to its section). */
    static final class Finding {
        final String key;
        final String message;
        /** The defaults have the same finding: it is reported there, and counted once. */
        final boolean inherited;

        Finding(String key, String message, boolean inherited) {
            this.key = key;
            this.message = message;
            this.inherited = inherited;
        }
    }

    /** The defaults or one rule. */
    static final class Section {
        final String name;
        /** Null for the defaults. */
        final Rule rule;
        final RetrySettings settings;
        final Mode mode;
        /** Null in mode off. */
        Timeline timeline;
        /** Null when Retry-After is ignored or nothing is retried. */
        Timeline retryAfterTimeline;
        /** Null without --outage, and in mode off. */
        Outage outage;
        /** The most attempts a destination sees for one call, attempts failing at once (0 ms each). */
        int mostAttempts = 1;
        final List<Finding> warnings = new ArrayList<Finding>();
        final List<String> notes = new ArrayList<String>();

        Section(String name, Rule rule, RetrySettings settings, Mode mode) {
            this.name = name;
            this.rule = rule;
            this.settings = settings;
            this.mode = mode;
        }

        /** Whether calls of this section are retried now (enforce, more than one attempt, something to retry). */
        boolean retries() {
            return mode == Mode.ENFORCE && settings.maxAttempts() > 1 && retriesAnything(this);
        }

        /** Failure kinds in the order of the enum, spelled as in policy files. */
        List<String> failureNames() {
            List<String> names = new ArrayList<String>();
            for (FailureKind kind : FailureKind.values()) {
                if (settings.retryFailures().contains(kind)) {
                    names.add(kind.configName());
                }
            }
            return names;
        }
    }

    /**
     * The times of a call whose every attempt fails in a way worth retrying, each taking {@code attemptMillis}:
     * exact bounds from the extreme draws of the jitter, and medians over {@link #SAMPLES} seeded draws.
     */
    static final class Timeline {
        final int maxAttempts;
        final long deadlineMillis;
        final long attemptMillis;
        /** Indexed by retry, from 1: the shortest and the longest wait the jitter can draw (the latter not drawn,
         * approached). */
        final long[] minWait;
        final long[] supWait;

        /** Attempts of the longest call, and the latest its last attempt can start. */
        int longestAttempts;
        long latestStartMillis;
        /** The deadline, not the backoff, bounds the latest start (the attempt then starts just before it). */
        boolean deadlineBound;

        int medianAttempts;
        long medianWaitMillis;
        long medianStartMillis;
        long medianTotalMillis;
        /** Start of each sampled call's last attempt, sorted. */
        long[] lastStarts;

        private Timeline(int maxAttempts, long deadlineMillis, long attemptMillis, long[] minWait, long[] supWait) {
            this.maxAttempts = maxAttempts;
            this.deadlineMillis = deadlineMillis;
            this.attemptMillis = attemptMillis;
            this.minWait = minWait;
            this.supWait = supWait;
            bounds();
        }

        static Timeline of(int maxAttempts, BackoffPolicy backoff, long deadlineMillis, long attemptMillis,
                           boolean sample) {
            long[][] waits = waitBounds(maxAttempts, backoff);
            Timeline t = new Timeline(maxAttempts, deadlineMillis, attemptMillis, waits[0], waits[1]);
            if (sample) {
                t.sample(backoff);
            }
            return t;
        }

        /** Exact bounds when a server answers with Retry-After: a wait can then be anything up to max x (1 + spread).
         * */
        static Timeline withRetryAfter(int maxAttempts, BackoffPolicy backoff, long deadlineMillis, long attemptMillis,
                                       RetryAfterPolicy ra) {
            long[][] waits = waitBounds(maxAttempts, backoff);
            long longest = saturate(ra.maxMillis() * (1 + ra.spread()));
            for (int retry = 1; retry < maxAttempts; retry++) {
                waits[0][retry] = 0; // Retry-After: 0
                waits[1][retry] = Math.max(waits[1][retry], longest);
            }
            return new Timeline(maxAttempts, deadlineMillis, attemptMillis, waits[0], waits[1]);
        }

        /** The most attempts of one call when every attempt fails at once. */
        static int mostAttempts(int maxAttempts, BackoffPolicy backoff, long deadlineMillis) {
            return Timeline.of(maxAttempts, backoff, deadlineMillis, 0, false).longestAttempts;
        }

        long longestTotalMillis() {
            return latestStartMillis + attemptMillis;
        }

        long longestWaitMillis() {
            return latestStartMillis - (longestAttempts - 1) * attemptMillis;
        }

        /** Share of sampled calls whose last attempt starts at or after {@code millis}. */
        double shareStartingFrom(long millis) {
            int from = Arrays.binarySearch(lastStarts, millis);
            if (from < 0) {
                from = -from - 1;
            } else {
                while (from > 0 && lastStarts[from - 1] == millis) {
                    from--;
                }
            }
            return (lastStarts.length - from) / (double) lastStarts.length;
        }

        /**
         * The latest start is the largest attempt number m whose earliest start (shortest draws) is before the
         * deadline: the draws can then place it anywhere up to its latest start, or just before the deadline.
         */
        private void bounds() {
            double earliest = 0;
            double latest = 0;
            longestAttempts = 1;
            latestStartMillis = 0;
            deadlineBound = false;
            for (int m = 2; m <= maxAttempts; m++) {
                earliest += attemptMillis + minWait[m - 1];
                latest += attemptMillis + supWait[m - 1];
                if (earliest >= deadlineMillis) {
                    break;
                }
                longestAttempts = m;
                deadlineBound = latest >= deadlineMillis;
                latestStartMillis = deadlineBound ? deadlineMillis : (long) latest;
            }
        }

        private void sample(BackoffPolicy policy) {
            Backoff backoff = Backoff.of(policy);
            RandomSource random = RandomSource.seeded(SEED);
            int[] attempts = new int[SAMPLES];
            long[] waits = new long[SAMPLES];
            long[] starts = new long[SAMPLES];
            for (int s = 0; s < SAMPLES; s++) {
                long elapsed = attemptMillis;
                long start = 0;
                long waited = 0;
                long previous = 0;
                int made = 1;
                for (int retry = 1; retry < maxAttempts; retry++) {
                    long wait = backoff.waitMillis(retry, previous, random);
                    if (elapsed + wait >= deadlineMillis) {
                        break;
                    }
                    start = elapsed + wait;
                    waited += wait;
                    previous = wait;
                    made++;
                    elapsed = start + attemptMillis;
                }
                attempts[s] = made;
                waits[s] = waited;
                starts[s] = start;
            }
            Arrays.sort(attempts);
            Arrays.sort(waits);
            Arrays.sort(starts);
            lastStarts = starts;
            medianAttempts = attempts[SAMPLES / 2];
            medianWaitMillis = waits[SAMPLES / 2];
            medianStartMillis = starts[SAMPLES / 2];
            medianTotalMillis = medianStartMillis + attemptMillis;
        }

        /** [0][retry]: shortest wait, [1][retry]: longest, for retry 1 .. maxAttempts - 1 (docs/reference.md#backoff).
         * */
        private static long[][] waitBounds(int maxAttempts, BackoffPolicy b) {
            long[] min = new long[Math.max(maxAttempts, 2)];
            long[] sup = new long[min.length];
            double previousSup = b.baseMillis();
            for (int retry = 1; retry < min.length; retry++) {
                double e = cappedExponential(b, retry);
                switch (b.jitter()) {
                    case FULL:
                        min[retry] = 0;
                        sup[retry] = saturate(e);
                        break;
                    case EQUAL:
                        min[retry] = saturate(e / 2);
                        sup[retry] = saturate(e);
                        break;
                    case DECORRELATED:
                        min[retry] = Math.min(b.capMillis(), b.baseMillis());
                        previousSup = Math.min(b.capMillis(), Math.max(b.baseMillis(), previousSup * 3));
                        sup[retry] = saturate(previousSup);
                        break;
                    default:
                        min[retry] = saturate(e);
                        sup[retry] = saturate(e);
                        break;
                }
            }
            return new long[][] {min, sup};
        }

        /** {@code min(cap, base * multiplier^(retry-1))}, as the engine's backoff computes it. */
        static double cappedExponential(BackoffPolicy b, int retry) {
            double base = b.baseMillis();
            double cap = b.capMillis();
            if (base == 0 || base >= cap) {
                return Math.min(base, cap);
            }
            return Math.min(cap, base * Math.pow(b.multiplier(), retry - 1));
        }

        static long saturate(double millis) {
            return millis >= Long.MAX_VALUE / 4 ? Long.MAX_VALUE / 4 : (long) millis;
        }
    }

    /**
     * Whether a call that starts when an outage begins still has an attempt left once it is over: its last attempt
     * starts at or after the outage's end. The best case is the longest draws of the jitter; the median case the
     * median draw; the share is the part of sampled calls that ride it out.
     */
    static final class Outage {
        final long outageMillis;
        final boolean bestCase;
        final boolean medianCase;
        final double share;
        /** Null when the median call rides it out, or nothing reasonable does. */
        Suggestion suggestion;

        private Outage(long outageMillis, boolean bestCase, boolean medianCase, double share) {
            this.outageMillis = outageMillis;
            this.bestCase = bestCase;
            this.medianCase = medianCase;
            this.share = share;
        }

        static Outage of(RetrySettings settings, long attemptMillis, long outageMillis, Timeline t) {
            Outage o = new Outage(outageMillis, ridesOut(t, outageMillis), t.medianStartMillis >= outageMillis,
                    t.shareStartingFrom(outageMillis));
            if (!o.medianCase) {
                o.suggestion = Suggestion.find(settings, attemptMillis, outageMillis);
            }
            return o;
        }

        /** At best: an attempt bound by the deadline starts before it, so only a deadline past the outage helps. */
        static boolean ridesOut(Timeline t, long outageMillis) {
            return t.deadlineBound ? t.deadlineMillis > outageMillis : t.latestStartMillis >= outageMillis;
        }
    }

    /**
     * The smallest change of maxAttempts (up to 5), backoff base and cap, and deadline that lets the median call ride
     * the outage out; among equal changes, the one whose longest call is shortest. Jitter and multiplier are kept.
     */
    static final class Suggestion {
        final int maxAttempts;
        final long baseMillis;
        final long capMillis;
        final long deadlineMillis;
        final Timeline timeline;
        final Set<String> changed;

        private Suggestion(int maxAttempts, long baseMillis, long capMillis, long deadlineMillis, Timeline timeline,
                           Set<String> changed) {
            this.maxAttempts = maxAttempts;
            this.baseMillis = baseMillis;
            this.capMillis = capMillis;
            this.deadlineMillis = deadlineMillis;
            this.timeline = timeline;
            this.changed = changed;
        }

        static Suggestion find(RetrySettings settings, long attemptMillis, long outageMillis) {
            BackoffPolicy now = settings.backoff();
            long[] bases = distinct(now.baseMillis(), 100, 250, 500, 1000, 2000, niceCeil(outageMillis / 8),
                    niceCeil(outageMillis / 4));
            long[] caps = distinct(now.capMillis(), 1000, 2000, 4000, 5000, 8000, 10_000, 15_000, 30_000, 60_000,
                    niceCeil(outageMillis / 4), niceCeil(outageMillis / 2), niceCeil(outageMillis));
            Suggestion best = null;
            for (int n = 2; n <= MAX_REASONABLE_ATTEMPTS; n++) {
                for (long base : bases) {
                    for (long cap : caps) {
                        boolean current = base == now.baseMillis() && cap == now.capMillis();
                        if (cap < base && !current) {
                            continue;
                        }
                        BackoffPolicy backoff = new BackoffPolicy(base, cap, now.multiplier(), now.jitter());
                        Timeline unbounded = Timeline.of(n, backoff, Long.MAX_VALUE / 2, attemptMillis, false);
                        long roomy = Math.max(settings.deadlineMillis(), niceCeil(unbounded.latestStartMillis + 1));
                        long[] deadlines = settings.deadlineMillis() > outageMillis
                                ? new long[] {settings.deadlineMillis(), roomy} : new long[] {roomy};
                        for (long deadline : deadlines) {
                            Timeline t = Timeline.of(n, backoff, deadline, attemptMillis, true);
                            if (t.medianStartMillis < outageMillis) {
                                continue;
                            }
                            Set<String> changed = new LinkedHashSet<String>();
                            if (n != settings.maxAttempts()) {
                                changed.add("maxAttempts");
                            }
                            if (base != now.baseMillis()) {
                                changed.add("backoff.base");
                            }
                            if (cap != now.capMillis()) {
                                changed.add("backoff.cap");
                            }
                            if (deadline != settings.deadlineMillis()) {
                                changed.add("deadline");
                            }
                            Suggestion s = new Suggestion(n, base, cap, deadline, t, changed);
                            if (best == null || s.betterThan(best)) {
                                best = s;
                            }
                        }
                    }
                }
            }
            return best;
        }

        private boolean betterThan(Suggestion other) {
            if (changed.size() != other.changed.size()) {
                return changed.size() < other.changed.size();
            }
            if (timeline.longestTotalMillis() != other.timeline.longestTotalMillis()) {
                return timeline.longestTotalMillis() < other.timeline.longestTotalMillis();
            }
            return maxAttempts < other.maxAttempts;
        }

        private static long[] distinct(long... values) {
            Set<Long> seen = new LinkedHashSet<Long>();
            for (long value : values) {
                if (value > 0 || values[0] == value) {
                    seen.add(value);
                }
            }
            long[] result = new long[seen.size()];
            int i = 0;
            for (Long value : seen) {
                result[i++] = value;
            }
            return result;
        }

        /** Rounds up to a duration an operator would write: whole seconds, then 5 s, then minutes. */
        static long niceCeil(long millis) {
            long step = millis <= 10_000 ? 1000 : millis <= 60_000 ? 5000 : millis <= 600_000 ? 60_000 : 300_000;
            return Math.max(step, (millis + step - 1) / step * step);
        }
    }

    /** Durations for people: 700ms, 3.3s, 2m, 2m30s. */
    static final class Human {
        private Human() {
        }

        static String duration(long millis) {
            if (millis < 1000) {
                return millis + "ms";
            }
            if (millis < 60_000) {
                return seconds(millis) + "s";
            }
            long minutes = millis / 60_000;
            long rest = millis % 60_000;
            if (minutes >= 60) {
                long hours = minutes / 60;
                minutes %= 60;
                return hours + "h" + (minutes > 0 ? minutes + "m" : "") + (rest > 0 ? seconds(rest) + "s" : "");
            }
            return minutes + "m" + (rest > 0 ? seconds(rest) + "s" : "");
        }

        /** Seconds with up to two decimals, rounded, trailing zeros dropped: 3.3, 10.25, 7. */
        private static String seconds(long millis) {
            long hundredths = (millis + 5) / 10;
            long whole = hundredths / 100;
            long fraction = hundredths % 100;
            if (fraction == 0) {
                return Long.toString(whole);
            }
            return whole + "." + (fraction % 10 == 0 ? Long.toString(fraction / 10) : (fraction < 10 ? "0" : "") + fraction);
        }
    }
}
