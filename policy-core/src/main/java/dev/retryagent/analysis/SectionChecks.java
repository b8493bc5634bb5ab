package dev.retryagent.analysis;

import dev.retryagent.policy.BackoffPolicy;
import dev.retryagent.policy.Jitter;
import dev.retryagent.policy.RetryAfterPolicy;
import dev.retryagent.policy.RetrySettings;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The settings of one section that are likely mistakes (docs/operations.md), one method per check, each adding its
 * warning (or note) to the section, in the order {@code check} lists them. The checks of the waits run only where a
 * retry can happen (more than one attempt).
 */
final class SectionChecks {
    /** A wait shorter than this is, for a failing server and a fleet of clients, an immediate retry. */
    static final long IMMEDIATE_MILLIS = 10;
    /** A jitter range below this share of the wait it spreads leaves clients nearly in step. */
    static final double NARROW_JITTER = 0.25;
    /** A Retry-After spread below this leaves clients told the same delay nearly in step. */
    static final double NARROW_SPREAD = 0.1;

    private static final Set<String> NOT_IDEMPOTENT = new LinkedHashSet<String>(Arrays.asList("POST", "PATCH", "CONNECT"));

    private final Section s;
    private final RetrySettings settings;
    private final long attemptMillis;
    private final long outageMillis;

    private SectionChecks(Section s, long attemptMillis, long outageMillis) {
        this.s = s;
        this.settings = s.settings();
        this.attemptMillis = attemptMillis;
        this.outageMillis = outageMillis;
    }

    /** Runs every check on {@code s}, whose timeline (and outage, if asked about) is computed already. */
    static void check(Section s, long attemptMillis, long outageMillis) {
        SectionChecks checks = new SectionChecks(s, attemptMillis, outageMillis);
        checks.nothingToRetry();
        checks.manyAttempts();
        checks.clientErrorStatuses();
        checks.outage();
        if (s.settings().maxAttempts() <= 1) {
            return;
        }
        checks.jitter();
        checks.firstWait();
        checks.retryAfterSpread();
        checks.retryAfterMax();
        checks.retryAfterIgnored();
        checks.deadline();
        checks.attemptTimeout();
        checks.budget();
        checks.idempotentMethods();
        checks.methodsNeverRetried();
    }

    private void warn(String key, String message) {
        s.warnings.add(new Finding(key, message, false));
    }

    private void nothingToRetry() {
        if (!s.retriesAnything() && settings.maxAttempts() > 1) {
            warn("retryOn", "retryOn names no status and no failure kind: nothing is ever retried "
                    + "(say `mode: off` if that is meant)");
        }
    }

    private void manyAttempts() {
        int max = settings.maxAttempts();
        if (max > PolicyAnalysis.MAX_REASONABLE_ATTEMPTS) {
            warn("maxAttempts", "maxAttempts " + max + " is above " + PolicyAnalysis.MAX_REASONABLE_ATTEMPTS
                    + ": a failing destination gets up to " + max + " times its load from these calls (only the budget "
                    + "stops it)");
        }
    }

    private void clientErrorStatuses() {
        for (int code : settings.retryStatuses().codes()) {
            if (code >= 400 && code < 500 && code != 408 && code != 429) {
                warn("retryOn.statuses", "status " + code + " in retryOn.statuses: a 4xx other than "
                        + "408/429 says the request itself is wrong, and a retry gets the same answer");
            }
        }
    }

    private void outage() {
        Outage o = s.outage();
        if (o != null && !o.medianCase()) {
            warn("outage", "cannot ride out an outage of " + Human.duration(outageMillis)
                    + (o.bestCase() ? " in the median call (only " + Human.percent(o.share()) + " of calls do)"
                    : ": the last attempt starts by " + Human.duration(s.timeline().latestStartMillis())
                    + " at the latest"));
        }
    }

    private void jitter() {
        BackoffPolicy backoff = settings.backoff();
        if (backoff.jitter() == Jitter.NONE) {
            warn("backoff.jitter", "jitter none: clients that failed together retry together, in step, "
                    + "at every retry (use full)");
        } else if (backoff.jitter() == Jitter.DECORRELATED && backoff.capMillis() <= backoff.baseMillis()) {
            warn("backoff.cap", "decorrelated jitter with cap " + Human.duration(backoff.capMillis())
                    + " not above base " + Human.duration(backoff.baseMillis()) + ": every wait is exactly "
                    + Human.duration(backoff.capMillis()) + ", no jitter at all");
        } else if (backoff.jitter() == Jitter.DECORRELATED
                && backoff.capMillis() - backoff.baseMillis() < NARROW_JITTER * backoff.capMillis()) {
            warn("backoff.cap", "decorrelated jitter between base " + Human.duration(backoff.baseMillis())
                    + " and cap " + Human.duration(backoff.capMillis()) + " spreads waits of up to "
                    + Human.duration(backoff.capMillis()) + " over only " + Human.duration(backoff.capMillis()
                    - backoff.baseMillis()) + ": clients retry nearly in step (a cap of 3 x base or more spreads them)");
        }
    }

    private void firstWait() {
        long firstWait = s.timeline().supWait[1];
        if (settings.backoff().jitter() != Jitter.NONE && firstWait < IMMEDIATE_MILLIS) {
            warn("backoff.base", "the first retry comes at most " + Human.duration(firstWait)
                    + " after a failure: too soon for a failing server to recover, and clients that failed together "
                    + "are back together (a base of 50ms or more spreads them)");
        }
    }

    private void retryAfterSpread() {
        RetryAfterPolicy ra = settings.retryAfter();
        if (ra.honor() && ra.spread() < NARROW_SPREAD) {
            warn("retryAfter.spread", "retryAfter.spread " + ra.spread() + ": clients told the same "
                    + "Retry-After come back within " + Human.percent(ra.spread()) + " of it, nearly in step (0.5 "
                    + "spreads them)");
        }
    }

    private void retryAfterMax() {
        RetryAfterPolicy ra = settings.retryAfter();
        if (ra.honor() && ra.maxMillis() >= settings.deadlineMillis()) {
            // A note, not a warning: the built-in defaults (max 30s, deadline 10s) are like this, and the outcome is
            // safe either way: a Retry-After the deadline cannot wait out goes back to the caller at once.
            s.notes.add("retryAfter.max " + Human.duration(ra.maxMillis()) + " is not below the deadline "
                    + Human.duration(settings.deadlineMillis()) + ": a Retry-After longer than the time left before the "
                    + "deadline goes back to the caller at once, so the deadline is the real limit");
        }
    }

    private void retryAfterIgnored() {
        if (!settings.retryAfter().honor()
                && (settings.retryStatuses().contains(429) || settings.retryStatuses().contains(503))) {
            warn("retryAfter.honor", "retryAfter.honor false: a 429 or 503 that says when to come back "
                    + "is retried sooner than the server asked");
        }
    }

    private void deadline() {
        Timeline t = s.timeline();
        String deadline = "deadline " + Human.duration(settings.deadlineMillis());
        if (s.mostAttempts() <= 1) {
            warn("deadline", deadline + " is not longer than the shortest first wait (" + Human.duration(t.minWait[1])
                    + "): no retry can ever happen");
        } else if (t.longestAttempts() <= 1 && s.attemptTimeFromPolicy()) {
            warn("deadline", deadline + " is not longer than one attemptTimeout (" + Human.duration(attemptMillis)
                    + ") plus the shortest first wait (" + Human.duration(t.minWait[1]) + "): an attempt that runs to "
                    + "its limit (a dependency that hangs) is never retried");
        } else if (t.longestAttempts() <= 1) {
            warn("deadline", deadline + " leaves no room for a retry after one attempt of "
                    + Human.duration(attemptMillis) + " (the attempt time): no retry happens");
        } else if (t.medianAttempts() <= 1 && !s.attemptTimeFromPolicy()) { // else attemptTimeout() says it
            warn("deadline", deadline + ": in the median call no retry fits before it (attempts of "
                    + Human.duration(attemptMillis) + ")");
        }
    }

    /**
     * After an attempt that ran to its {@code attemptTimeout} (a dependency that hangs), a retry comes only if the
     * first wait ends before the deadline. (When no wait can, {@link #deadline} says so.)
     */
    private void attemptTimeout() {
        Timeline t = s.timeline();
        if (!s.attemptTimeFromPolicy() || t.longestAttempts() <= 1) {
            return;
        }
        long room = settings.deadlineMillis() - attemptMillis;
        if (room < t.supWait[1]) {
            warn("attemptTimeout", "deadline " + Human.duration(settings.deadlineMillis()) + " is shorter than one "
                    + "attemptTimeout (" + Human.duration(attemptMillis) + ") plus the first wait (up to "
                    + Human.duration(t.supWait[1]) + "): after an attempt that runs to its limit, a retry happens only "
                    + "when the wait drawn is under " + Human.duration(room));
        }
    }

    private void budget() {
        if (settings.budget().ratio() == 0 && settings.budget().minPerSecond() == 0) {
            warn("budget", "budget ratio 0 and minPerSecond 0: the budget refuses every retry");
        }
    }

    private void idempotentMethods() {
        for (String method : settings.idempotentMethods()) {
            if (NOT_IDEMPOTENT.contains(method)) {
                warn("idempotentMethods", method + " in idempotentMethods: a " + method + " without an "
                        + "idempotency key is retried and may take effect twice (send an idempotency key instead)");
            }
        }
    }

    private void methodsNeverRetried() {
        if (s.rule() == null || s.rule().match().methods().isEmpty() || !settings.idempotencyKeyHeaders().isEmpty()) {
            return;
        }
        Set<String> methods = s.rule().match().methods();
        for (String method : methods) {
            if (settings.isIdempotentMethod(method)) {
                return;
            }
        }
        boolean unsent = settings.retriesUnsentRequests();
        warn("idempotencyKeyHeaders", "the rule matches only " + Human.join(methods)
                + ", none idempotent, and names no idempotency key header: it "
                + (unsent ? "retries only a request that never left" : "never retries"));
    }
}
