package dev.retryagent.it.deploy;

import dev.retryagent.it.contract.Batch;
import dev.retryagent.it.contract.ClientContract;
import dev.retryagent.it.harness.ForkedApp;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@link ClientContract} for the JDK's HttpURLConnection called by an application loaded from a Spring Boot
 * executable jar ({@link SpringBootJar}): the batch application comes from the jar's {@code BOOT-INF/classes}
 * through Spring Boot's {@code LaunchedClassLoader} (whose nested-jar URL handler makes {@code URLConnection}s
 * of its own), the client from the JDK, the JVM started with {@code -javaagent:... -jar}.
 */
class SpringBootHttpUrlConnectionIT extends ClientContract<SpringBootJar.Target> {
    private static final SpringBootJar.Target JAR = new SpringBootJar.Target("httpurlconnection", List.of("sync"));

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
        return "httpurlconnection";
    }

    @Override
    protected List<String> modeParts(String mode, Run run) {
        return List.of();
    }

    @Override
    protected boolean interrupts(String mode) {
        return true;
    }

    @Override
    protected String nonReplayableBody(String mode) {
        return "streaming=fixed";
    }

    @Override
    protected List<String> extraParts(String mode, String scenario) {
        return scenario.equals("notFound") ? List.of("read=stream") : List.of();
    }

    @Override
    protected void checkOwn(SpringBootJar.Target jar, Run kind, Batch b, ForkedApp.Result run) {
        SpringBootJar.assertLoadedFromTheJar(run, "httpurlconnection", "java.net.HttpURLConnection", false);
    }
}
