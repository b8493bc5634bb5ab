package dev.retryagent.engine;

import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.RetryAfterPolicy;
import dev.retryagent.policy.RetrySettings;

/**
 * The engine's decision after an attempt. The order of the checks is the contract's: classify first (a success or a
 * non-retryable outcome is simply done), then the reasons that forbid any retry of this request (nested, body,
 * idempotency), then the ones that depend on time (attempts, Retry-After, deadline), and the budget last, so that a
 * retry refused for another reason never spends budget. Never waits; time and randomness are injected. Thread-safe.
 */
final class Decider {
    private final Clock clock;
    private final RandomSource random;
    private final RuleLookup lookup;

    Decider(Clock clock, RandomSource random, RuleLookup lookup) {
        this.clock = clock;
        this.random = random;
        this.lookup = lookup;
    }

    /**
     * Decides what follows an attempt planned as {@code plan}, given the fields of its {@link AttemptResult}. A first
     * attempt is counted in the budget at the call's start, when it went out; the elapsed time (for the deadline) and
     * the budget's "now" are read only for an outcome that may be retried and no refusal stops. So the common case, a
     * first attempt that succeeds, costs the one clock read the loop made at the start of the call. With
     * {@code clientsResend}, a reset past the deadline is followed by the one resend the client alone would have made
     * ({@link RetryDecision#clientsResend}); the application's own limit of the call, {@code callerLimitMillis} (0:
     * none), is a deadline besides the rule's.
     *
     * <p>One method for the whole decision: too large for the JIT to inline into {@link RetryEngine#decide}, which so
     * stays small enough to be inlined into the loops, where the {@link AttemptResult} is then never allocated.
     */
    RetryDecision decide(CallPlan plan, CallFacts call, CallFacts origin, int number, Outcome outcome,
                         boolean firstAtDestination, long previousWaitMillis, boolean timed, long startNanos,
                         Clock loopClock, long callerLimitMillis, boolean clientsResend) {
        if (origin != null && number == 1 && !call.sameDestination(origin)) {
            // The call's own destination received it, though the client redirected the attempt elsewhere.
            Accounting.countCall(lookup.destinationOf(origin), origin.client(), timed, startNanos);
        }
        ResolvedRule r = plan.rule;
        if (r.mode == Mode.OFF) {
            return RetryDecision.done();
        }
        Destination destination = lookup.destinationOf(call);
        RetryCounters counters = destination.countersFor(call.client());
        if (firstAtDestination) {
            Accounting.countFirst(destination, counters, call, timed,
                    timed && number > 1 ? loopClock.nanoTime() : startNanos);
        }
        if (outcome.isAttemptTimeout()) {
            counters.attemptTimeouts.increment();
        }
        RetryDecision settled = withoutTime(r.settings, counters, call, number, outcome);
        if (settled != null) {
            return settled;
        }
        if (!timed) {
            // CallPlan.timed answered for every rule of the call's policy, and redirected facts keep that policy.
            throw new IllegalStateException("a call that read no clock at its start is decided on time");
        }
        // The checks that depend on the time, in the contract's order.
        long now = loopClock.nanoTime();
        Mode mode = r.mode;
        RetrySettings settings = r.settings;
        int max = settings.maxAttempts();
        long waitMillis = -1;
        RetryAfterPolicy retryAfter = settings.retryAfter();
        if (retryAfter.honor() && outcome.retryAfter() != null) {
            long askedMillis = RetryAfter.delayMillis(outcome.retryAfter(), clock.currentTimeMillis());
            if (askedMillis > retryAfter.maxMillis()) {
                return Accounting.giveUp(counters, GiveUpReason.RETRY_AFTER_TOO_LONG, number, max);
            }
            if (askedMillis >= 0) {
                // Never earlier than asked; spread above the floor so that clients told the same
                // delay do not come back in the same instant.
                waitMillis = askedMillis + (long) (random.nextDouble() * askedMillis * retryAfter.spread());
            }
        }
        if (waitMillis < 0) {
            waitMillis = r.backoff().waitMillis(number, previousWaitMillis, random);
        }
        long deadline = callerLimitMillis > 0 ? Math.min(settings.deadlineMillis(), callerLimitMillis)
                : settings.deadlineMillis();
        if ((now - startNanos) / 1_000_000L + waitMillis >= deadline) {
            if (clientsResend && mode == Mode.ENFORCE && outcome.failure() == FailureKind.RESET) {
                counters.retries.increment(); // as the client alone: at once, whatever the budget
                return RetryDecision.clientsResend(number + 1, max);
            }
            return Accounting.giveUp(counters, GiveUpReason.DEADLINE, number, max);
        }

        if (mode == Mode.OBSERVE) {
            if (!destination.budget.wouldAllowRetry(now, settings.budget())) {
                return Accounting.giveUp(counters, GiveUpReason.BUDGET, number, max);
            }
            counters.wouldRetry.increment();
            return RetryDecision.wouldRetry(waitMillis, number + 1, max);
        }
        if (!destination.budget.tryAcquireRetry(now, settings.budget())) {
            return Accounting.giveUp(counters, GiveUpReason.BUDGET, number, max);
        }
        counters.retries.increment();
        if (outcome.isUnsent()) {
            counters.unsentRetries.increment();
        }
        return RetryDecision.retry(waitMillis, number + 1, max);
    }

    /**
     * The decision when the time does not matter to it: done for an outcome that is not retried, a give-up for a
     * {@link CallPlan#refusal}; else null.
     */
    private static RetryDecision withoutTime(RetrySettings settings, RetryCounters counters, CallFacts call,
                                             int attempt, Outcome outcome) {
        if (!isRetryable(settings, outcome)) {
            return Accounting.done(counters, attempt, outcome);
        }
        GiveUpReason refused = CallPlan.refusal(settings, call, attempt, outcome.isUnsent());
        if (refused != GiveUpReason.NESTED && CallPlan.leftToLayer(call, outcome)) {
            refused = GiveUpReason.UPPER_LAYER; // the contract's order: before body, idempotency and attempts
        }
        return refused == null ? null : Accounting.giveUp(counters, refused, attempt, settings.maxAttempts());
    }

    private static boolean isRetryable(RetrySettings settings, Outcome outcome) {
        return outcome.isFailure()
                ? settings.retriesFailure(outcome.failure())
                : settings.retryStatuses().contains(outcome.status());
    }
}
