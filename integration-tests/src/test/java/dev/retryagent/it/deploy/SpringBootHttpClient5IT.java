package dev.retryagent.it.deploy;

import static dev.retryagent.it.harness.Runs.result;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.retryagent.it.contract.Batch;
import dev.retryagent.it.contract.ClientContract;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.ReportLine;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@link ClientContract} for Apache HttpClient 5 (classic, async and fluent, one JVM; the version the Spring Boot
 * BOM manages) loaded from a Spring Boot executable jar ({@link SpringBootJar}): the batch application and the
 * client come from nested jars through Spring Boot's {@code LaunchedClassLoader}, the JVM started with
 * {@code -javaagent:... -jar}.
 */
class SpringBootHttpClient5IT extends ClientContract<SpringBootJar.Target> {
    @Override
    protected Stream<SpringBootJar.Target> targets() {
        return Stream.of(new SpringBootJar.Target("httpclient5", List.of("classic", "async", "fluent")));
    }

    /** The fluent API has no client of its own to switch the client's own retries off on. */
    @Override
    protected Stream<SpringBootJar.Target> quietTargets() {
        return Stream.of(new SpringBootJar.Target("httpclient5", List.of("classic", "async")));
    }

    @Override
    protected String clientName() {
        return "apache-httpclient5";
    }

    @Override
    protected List<String> modeParts(String mode, Run run) {
        // alone, createDefault's strategy resends a 503: the quiet runs use a client that does not
        return run == Run.CONTRACT ? List.of("api=" + mode) : List.of("api=" + mode, "client=noretries");
    }

    @Override
    protected String nonReplayableBody(String mode) {
        return "stream=true";
    }

    @Override
    protected boolean cancels(String mode) {
        return mode.equals("async");
    }

    @Override
    protected boolean cancelsInFlight(String mode) {
        return mode.equals("async");
    }

    @Override
    protected boolean interrupts(String mode) {
        return !mode.equals("async");
    }

    /** Future.cancel(true): the caller sees a CancellationException, the callback hears of it once. */
    @Override
    protected void assertCancelled(ForkedApp.Result run, String id) {
        ReportLine cancelled = result(run, id);
        assertEquals("true", cancelled.get("cancelled"), cancelled.toString());
        ReportLine callbacks = run.lines("CALLBACKS").stream().filter(l -> l.get("id").equals(id)).findFirst()
                .orElseThrow();
        assertEquals("cancelled", callbacks.get("kinds"));
    }

    @Override
    protected String retryAfterField() {
        return "retryAfter";
    }

    @Override
    protected void checkOwn(SpringBootJar.Target jar, Run kind, Batch b, ForkedApp.Result run) {
        SpringBootJar.assertLoadedFromTheJar(run, "apache-httpclient5",
                "org.apache.hc.client5.http.impl.classic.HttpClients", kind == Run.CONTRACT);
        for (ReportLine callbacks : run.lines("CALLBACKS")) {
            assertEquals(1, callbacks.getInt("count"), "exactly one callback: " + callbacks);
        }
        for (ReportLine pool : run.lines("POOL")) {
            assertEquals(0, pool.getInt("leased"), "no connection left leased: " + pool);
        }
    }
}
