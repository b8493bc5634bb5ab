package dev.retryagent.engine;

import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetrySettings;
import dev.retryagent.policy.UpperLayers;
import java.util.Collections;
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

/**
 * What reading a call's facts costs, as every adapter does once per call: the rule lookup, the idempotency-key and
 * marker headers, and, where the rule says {@code upperLayers: defer}, whether the call is made inside a retry loop
 * above the client (a thread-local read, then the AWS SDK's two attempt headers when no loop is running). The
 * request has eight headers, looked up by a case-insensitive scan as OkHttp and HttpCore do.
 *
 * <pre>
 * mvn -B -q -pl policy-core -Pbench -DskipTests package
 * java -jar policy-core/target/benchmarks.jar CallFacts -prof gc
 * </pre>
 *
 * {@code upperLayers=retry} reads no layer at all: the difference between the two rows is the layer's cost.
 * {@code inLoop=true} reads it inside a hooked loop, where the headers are not looked at.
 */
@State(Scope.Thread)
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CallFactsBenchmark {
    @Param({"defer", "retry"})
    public String upperLayers;

    @Param({"false", "true"})
    public boolean inLoop;

    private static final String[] HEADERS = {
        "Host", "inventory.internal", "User-Agent", "okhttp/4.12.0", "Accept", "application/json",
        "Accept-Encoding", "gzip", "Connection", "Keep-Alive", "Authorization", "Bearer x",
        "X-Request-Id", "5c0f", "traceparent", "00-4bf9-00f0-01"};

    private final HeaderLookup headers = new HeaderLookup() {
        @Override
        public boolean has(String name) {
            return value(name) != null;
        }

        @Override
        public String value(String name) {
            for (int i = 0; i < HEADERS.length; i += 2) {
                if (HEADERS[i].equalsIgnoreCase(name)) {
                    return HEADERS[i + 1];
                }
            }
            return null;
        }
    };

    private RetryEngine engine;

    @Setup
    public void setUp() {
        RetrySettings defaults = RetrySettings.builtIn().toBuilder()
                .upperLayers("retry".equals(upperLayers) ? UpperLayers.RETRY : UpperLayers.DEFER).build();
        Policy policy = new Policy("bench.yaml", 1, dev.retryagent.policy.Mode.ENFORCE,
                dev.retryagent.policy.BuiltInRetries.REPLACE, Policy.DEFAULT_MARKER_HEADER, defaults,
                Collections.<dev.retryagent.policy.Rule>emptyList());
        engine = new RetryEngine(policy, Clock.SYSTEM, RandomSource.THREAD_LOCAL);
        // The destination exists after the first call of a running service.
        CallFacts first = facts();
        engine.decide(engine.plan(first), new AttemptResult(first, null, 1, Outcome.status(200, null), 0, true,
                System.nanoTime(), Clock.SYSTEM, 0, false, true));
        if (inLoop) {
            UpperLayer.enter("aws-sdk-v2");
        }
    }

    private CallFacts facts() {
        return CallFacts.builder("okhttp", "GET", "https", "inventory.internal", 443, "/v1/items/42")
                .build(engine, headers);
    }

    @Benchmark
    public CallFacts readFacts() {
        return facts();
    }
}
