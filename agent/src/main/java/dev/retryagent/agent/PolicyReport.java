package dev.retryagent.agent;

import dev.retryagent.engine.Backoff;
import dev.retryagent.engine.RandomSource;
import dev.retryagent.policy.BackoffPolicy;
import dev.retryagent.policy.Durations;
import dev.retryagent.policy.Jitter;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetrySettings;
import dev.retryagent.policy.Rule;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What {@code check POLICY} prints for a valid policy (SPEC 6): the effective settings of the defaults and of
 * each rule, what they imply for one call (most attempts, longest and median time spent waiting between
 * attempts, from the backoff alone), and warnings about settings that are likely mistakes.
 */
final class PolicyReport {
    private static final int SAMPLES = 2001;

    private PolicyReport() {
    }

    static void print(Policy policy, PrintStream out) {
        out.println("version: " + policy.version());
        out.println("mode: " + policy.mode().configName());
        out.println("builtInRetries: " + policy.builtInRetries().configName());
        out.println("marker.header: " + (policy.markerHeader() == null ? "(none)" : policy.markerHeader()));
        section(out, "defaults", policy.defaults(), policy);
        for (Rule rule : policy.rules()) {
            section(out, rule.toString(), rule.settings(), policy);
        }
    }

    private static void section(PrintStream out, String title, RetrySettings settings, Policy policy) {
        out.println();
        out.println(title + ":");
        Mode mode = policy.effectiveMode(settings);
        out.println("  mode: " + mode.configName());
        out.println("  settings: " + settings);
        if (mode != Mode.ENFORCE) {
            out.println("  most attempts per call: 1 (mode " + mode.configName() + ": the agent never retries"
                    + (mode == Mode.OBSERVE ? ", it logs what it would do)" : ")"));
            return;
        }
        int attempts = settings.maxAttempts();
        out.println("  most attempts per call: " + attempts);
        if (attempts > 1) {
            long[] waits = sampleTotalWaits(settings);
            out.println("  time waiting between attempts (backoff, capped by the deadline): longest "
                    + Durations.format(waits[waits.length - 1]) + ", median " + Durations.format(waits[waits.length / 2]));
            if (settings.retryAfter().honor()) {
                long ra = Math.min(settings.deadlineMillis(), (long) ((attempts - 1)
                        * settings.retryAfter().maxMillis() * (1 + settings.retryAfter().spread())));
                out.println("  longest with Retry-After (each up to " + Durations.format(settings.retryAfter().maxMillis())
                        + "): " + Durations.format(ra));
            }
        }
        for (String warning : warnings(settings)) {
            out.println("  warning: " + warning);
        }
    }

    /** Total wait of a call that uses every attempt, sorted, over many seeded draws of the jitter. */
    private static long[] sampleTotalWaits(RetrySettings settings) {
        Backoff backoff = Backoff.of(settings.backoff());
        RandomSource random = RandomSource.seeded(42);
        long[] totals = new long[SAMPLES];
        for (int s = 0; s < SAMPLES; s++) {
            long total = 0;
            long previous = 0;
            for (int retry = 1; retry < settings.maxAttempts(); retry++) {
                long wait = backoff.waitMillis(retry, previous, random);
                if (total + wait >= settings.deadlineMillis()) {
                    break; // the engine gives up rather than wait past the deadline
                }
                total += wait;
                previous = wait;
            }
            totals[s] = total;
        }
        Arrays.sort(totals);
        return totals;
    }

    static List<String> warnings(RetrySettings settings) {
        List<String> warnings = new ArrayList<String>();
        BackoffPolicy backoff = settings.backoff();
        if (backoff.jitter() == Jitter.NONE && settings.maxAttempts() > 1) {
            warnings.add("jitter none: clients that fail together retry together");
        }
        for (int code : settings.retryStatuses().codes()) {
            if (code >= 400 && code < 500 && code != 408 && code != 429) {
                warnings.add("status " + code + " in retryOn.statuses: a 4xx other than 408/429 rarely changes on a retry");
            }
        }
        if (settings.maxAttempts() > 5) {
            warnings.add("maxAttempts " + settings.maxAttempts() + " above 5 multiplies the load on a failing destination");
        }
        if (backoff.jitter() == Jitter.EQUAL || backoff.jitter() == Jitter.FULL) {
            long cap = Math.min(backoff.capMillis(), backoff.baseMillis());
            long range = backoff.jitter() == Jitter.EQUAL ? cap / 2 : cap;
            if (range < 10 && backoff.capMillis() >= 1000) {
                warnings.add("jitter range of the first retry (" + range + "ms) is far smaller than the waits it spreads");
            }
        }
        return warnings;
    }
}
