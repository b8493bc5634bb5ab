package dev.retryagent.it.deploy;

import static dev.retryagent.it.harness.Runs.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.contract.Batch;
import dev.retryagent.it.contract.ClientContract;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.ReportLine;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@link ClientContract} for OkHttp (sync and async, one JVM) loaded from a Spring Boot executable jar
 * ({@link SpringBootJar}): the batch application and OkHttp come from nested jars through Spring Boot's
 * {@code LaunchedClassLoader}, the JVM started with {@code -javaagent:... -jar}.
 */
class SpringBootOkHttpIT extends ClientContract<SpringBootJar.Target> {
    private static final SpringBootJar.Target JAR = new SpringBootJar.Target("okhttp", List.of("sync", "async"));

    @Override
    protected Stream<SpringBootJar.Target> targets() {
        return Stream.of(JAR);
    }

    @Override
    protected Stream<SpringBootJar.Target> quietTargets() {
        return Stream.of(JAR);
    }

    @Override
    protected String clientName() {
        return "okhttp";
    }

    @Override
    protected List<String> modeParts(String mode, Run run) {
        return List.of("mode=" + mode);
    }

    @Override
    protected String nonReplayableBody(String mode) {
        return "oneShot=true";
    }

    @Override
    protected boolean cancels(String mode) {
        return true;
    }

    @Override
    protected boolean cancelsInFlight(String mode) {
        return mode.equals("async");
    }

    @Override
    protected boolean interrupts(String mode) {
        return mode.equals("sync");
    }

    @Override
    protected void assertCancelled(ForkedApp.Result run, String id) {
        ReportLine r = result(run, id);
        assertTrue(r.has("failure"), r.toString());
    }

    @Override
    protected void checkOwn(SpringBootJar.Target jar, Run kind, Batch b,
            ForkedApp.Result run) {
        SpringBootJar.assertLoadedFromTheJar(run, "okhttp", "okhttp3.OkHttpClient", kind == Run.CONTRACT);
        assertEquals(1, run.single("INTERCEPTORS").getInt("agent"), "exactly one agent interceptor\n" + run);
        for (ReportLine callbacks : run.lines("CALLBACKS")) {
            assertEquals(1, callbacks.getInt("count"), callbacks.toString());
        }
        assertEquals(0, run.single("POOL").getInt("inUse"), run.describe());
    }
}
