package dev.retryagent.engine;

import dev.retryagent.policy.BackoffPolicy;
import dev.retryagent.policy.BuiltInRetries;
import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Jitter;
import dev.retryagent.policy.Match;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetrySettings;
import dev.retryagent.policy.Rule;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What the agent adds to a call that succeeds at its first attempt, the common case: the call's plan (its
 * mode and marker) asked before the attempt, with the rule lookup for the call's destination, and the
 * decision after it. The policy is the built-in defaults plus five rules; the call matches none of them, or
 * only the last, so that every rule is tried. The facts are built once (the request exists before the
 * agent sees it); the real clock and random source are used, as in production.
 *
 * <pre>
 * mvn -B -q -pl policy-core -Pbench -DskipTests package
 * java -jar policy-core/target/benchmarks.jar FirstAttemptSuccess -f 1 -wi 3 -w 1s -i 5 -r 1s -prof gc
 * </pre>
 *
 * Target: at most 25 ns and 0 bytes ({@code gc.alloc.rate.norm}) per call.
 * <ul>
 *   <li>{@link #firstAttemptSuccessInLoop}: the engine's part of a loop's call: the plan (rule lookup, mode and
 *       marker), and the decision, given the call's start as a run keeps it (no clock reading).</li>
 *   <li>{@link #throughRetryLoop}: the path every synchronous call takes, {@link RetryLoop#execute} with an
 *       exchange whose attempt answers 200 at once: the call's run (nested or not, mode, marker, scope), the
 *       attempt with its marker value, the decision (with the redirect check the adapters make) and its log
 *       call. This is the figure the target is about.</li>
 *   <li>{@link #postWithoutKeyThroughRetryLoop}: the same path for a {@code POST} without idempotency key: under the
 *       built-in defaults it may be retried only if it never left, for which it reads the clock at its start.</li>
 *   <li>{@link #readThroughRetryLoop}: what an adapter does for a {@code GET}: its facts read through the builder
 *       (the rule lookup, the headers), then {@link RetryLoop#execute}, which plans the call.</li>
 *   <li>{@link #nanoTime}: the clock read alone, for reference.</li>
 * </ul>
 * {@code -p match=alternating} makes consecutive calls differ in path, so that the rule lookup remembered
 * for the destination never applies: the cost of a full lookup over the five rules.
 */
@State(Scope.Thread)
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class FirstAttemptSuccessBenchmark {
    /** {@code none}: the call matches no rule (defaults apply); {@code last}: it matches the fifth. */
    @Param({"none", "last"})
    public String match;

    private RetryEngine engine;
    private CallFacts[] calls;
    private CallFacts[] posts;
    private int next;
    private final Outcome ok = Outcome.status(200, null);
    private long startNanos;
    private RetryLoop loop;
    /** The path of the calls {@link #readThroughRetryLoop} reads. */
    private String path;
    private final Object response = new Object();
    /** What the exchange's attempt was sent with, so that the marker value is not dead code. */
    private String sentMarker;
    private final Exchange<Object> exchange = new Exchange<Object>() {
        @Override
        public Object send(int attempt, String marker) {
            sentMarker = marker;
            return response;
        }

        @Override
        public void discard(Object r) {
        }

        @Override
        public Outcome outcome(Object r) {
            return ok;
        }

        @Override
        public FailureKind classify(java.io.IOException failure) {
            return FailureKind.OTHER;
        }

        /** As the adapters do: the response's own request may have been redirected elsewhere. */
        @Override
        public CallFacts decidedUnder(CallFacts call, Object r) {
            return call.redirectedTo(call.scheme(), call.host(), call.port(), call.path());
        }
    };

    @Setup
    public void setUp() throws java.io.IOException {
        RetrySettings defaults = RetrySettings.builtIn();
        List<Rule> rules = Arrays.asList(
                rule(0, new Match("payments.internal", -1, null, methods("POST"), null),
                        defaults.toBuilder().maxAttempts(2)),
                rule(1, new Match("*.partner.example", -1, "/v1/sync/**", methods(), null),
                        defaults.toBuilder().backoff(new BackoffPolicy(1000, 60_000, 2.0, Jitter.FULL))),
                rule(2, new Match("reports.internal", -1, null, methods(), null),
                        defaults.toBuilder().mode(Mode.OFF)),
                rule(3, new Match("*.legacy.internal", 8443, null, methods(), "apache-httpclient5"),
                        defaults.toBuilder().maxAttempts(5).backoff(new BackoffPolicy(200, 5000, 2.0, Jitter.EQUAL))),
                rule(4, new Match("*.internal", -1, "/v2/**", methods("GET", "HEAD", "POST"), null),
                        defaults.toBuilder().maxAttempts(4).deadlineMillis(5_000)));
        Policy policy = new Policy("bench.yaml", 1, Mode.ENFORCE, BuiltInRetries.REPLACE,
                Policy.DEFAULT_MARKER_HEADER, defaults, rules);
        engine = new RetryEngine(policy, Clock.SYSTEM, RandomSource.THREAD_LOCAL);
        loop = new RetryLoop(engine, Clock.SYSTEM, Sleeper.SYSTEM);

        String[] paths;
        Rule expected;
        switch (match) {
            case "none":
                paths = new String[] {"/v1/items/42"};
                expected = null;
                break;
            case "last":
                paths = new String[] {"/v2/items/42"};
                expected = rules.get(4);
                break;
            case "alternating":
                paths = new String[] {"/v1/items/42", "/v1/items/43"};
                expected = null;
                break;
            default:
                throw new IllegalArgumentException("match: none, last or alternating");
        }
        path = paths[0];
        calls = new CallFacts[paths.length];
        posts = new CallFacts[paths.length];
        for (int i = 0; i < paths.length; i++) {
            calls[i] = new CallFacts("okhttp", "GET", "https", "inventory.internal", 443, paths[i], false, true, false);
            posts[i] = new CallFacts("okhttp", "POST", "https", "inventory.internal", 443, paths[i], false, true, false);
            for (String method : new String[] {"GET", "POST"}) {
                Rule found = policy.ruleFor("okhttp", method, "inventory.internal", 443, paths[i]);
                if (found != expected) {
                    throw new IllegalStateException(method + " " + paths[i] + " matches " + found + ", not " + expected);
                }
            }
        }
        startNanos = System.nanoTime();
        // The destination and its counters exist after the first call of a running service.
        loop.execute(calls[0], exchange);
    }

    private static Rule rule(int index, Match match, RetrySettings.Builder settings) {
        return new Rule(index, index + 1, match, settings.build());
    }

    private static Set<String> methods(String... methods) {
        return methods.length == 0 ? Collections.<String>emptySet() : new LinkedHashSet<String>(Arrays.asList(methods));
    }

    /** A request without the idempotency-key and marker headers, as most are. */
    private static final HeaderLookup NO_HEADERS = new HeaderLookup() {
        @Override
        public boolean has(String name) {
            return false;
        }

        @Override
        public String value(String name) {
            return null;
        }
    };

    private CallFacts nextCall() {
        return next(calls);
    }

    /** The next call; made without a builder, its facts carry no rule: each run looks it up, as a real call does. */
    private CallFacts next(CallFacts[] all) {
        if (all.length == 1) {
            return all[0];
        }
        int i = next;
        next = i + 1 == all.length ? 0 : i + 1;
        return all[i];
    }

    @Benchmark
    public RetryDecision firstAttemptSuccessInLoop(Blackhole bh) {
        CallFacts call = nextCall();
        CallPlan plan = engine.plan(call);
        bh.consume(plan.mode());
        bh.consume(plan.markerHeader());
        return engine.decide(plan, new AttemptResult(call, null, 1, ok, 0, true, startNanos, Clock.SYSTEM, 0, false,
                true));
    }

    @Benchmark
    public Object throughRetryLoop(Blackhole bh) throws java.io.IOException {
        Object r = loop.execute(nextCall(), exchange);
        bh.consume(sentMarker);
        return r;
    }

    @Benchmark
    public Object postWithoutKeyThroughRetryLoop(Blackhole bh) throws java.io.IOException {
        Object r = loop.execute(next(posts), exchange);
        bh.consume(sentMarker);
        return r;
    }

    @Benchmark
    public Object readThroughRetryLoop(Blackhole bh) throws java.io.IOException {
        CallFacts call = CallFacts.builder("okhttp", "GET", "https", "inventory.internal", 443, path)
                .bodyReplayable(true).build(engine, NO_HEADERS);
        Object r = loop.execute(call, exchange);
        bh.consume(sentMarker);
        return r;
    }

    @Benchmark
    public long nanoTime() {
        return System.nanoTime();
    }
}
