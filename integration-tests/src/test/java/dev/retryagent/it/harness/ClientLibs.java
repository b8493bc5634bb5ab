package dev.retryagent.it.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The client library sets a forked application can run with, each a directory of jars (the client and its
 * transitive dependencies) that {@code maven-dependency-plugin} fills in {@code pre-integration-test}:
 * {@code target/client-libs/<set>/}, passed in as system property {@code retry.agent.it.libs.<set>}.
 */
public enum ClientLibs {
    /** No library: the JDK's own HttpURLConnection. */
    NONE(null),
    OKHTTP_4("okhttp-4.12"),
    OKHTTP_5("okhttp-5"),
    HTTPCLIENT5_OLDEST("httpclient5-5.2"),
    HTTPCLIENT5_NEWEST("httpclient5-5.6"),
    /** HttpClient 4.5.6 with HttpAsyncClient 4.1.3 (an old release still common in fleets). */
    HTTPCLIENT4_OLDEST("httpclient4-4.5.6"),
    /** HttpClient 4.5.14 with HttpAsyncClient 4.1.5 (the last releases). */
    HTTPCLIENT4_NEWEST("httpclient4-4.5.14"),
    /** Reactor Netty's HTTP client 1.0.x (Spring Boot 2.7's line, Java 8) with its reactor-core and Netty 4.1. */
    REACTOR_NETTY_1_0("reactor-netty-1.0"),
    /** Reactor Netty 1.1.x (Spring Boot 3.0 to 3.3) with reactor-core 3.5. */
    REACTOR_NETTY_1_1("reactor-netty-1.1"),
    /** Reactor Netty 1.2.x (Spring Boot 3.4 and 3.5) with reactor-core 3.7. */
    REACTOR_NETTY_1_2("reactor-netty-1.2"),
    /** Reactor Netty 1.3.x (Spring Boot 4) with reactor-core 3.8 and Netty 4.2. */
    REACTOR_NETTY_1_3("reactor-netty-1.3"),
    /** Spring's WebClient 5.3 (spring-webflux) over Reactor Netty 1.0, as in Spring Boot 2.7. */
    SPRING_WEBFLUX_5_3("spring-webflux-5.3"),
    /** Spring's WebClient 6.2 over Reactor Netty 1.2, as in Spring Boot 3.4 and 3.5. */
    SPRING_WEBFLUX_6_2("spring-webflux-6.2"),
    /** OpenTelemetry's API, for an application that makes spans of its own (beside the OpenTelemetry agent). */
    OTEL_API("otel-api");

    private final String setName;

    ClientLibs(String setName) {
        this.setName = setName;
    }

    /** The directory name under {@code target/client-libs/}, e.g. {@code okhttp-5}; null for {@link #NONE}. */
    public String setName() {
        return setName;
    }

    /** The version of the client library in this set, e.g. {@code 5.5.1}; null for {@link #NONE}. */
    public String version() {
        return setName == null ? null : System.getProperty("retry.agent.it.version." + setName);
    }

    public Path dir() {
        if (setName == null) {
            return null;
        }
        String configured = System.getProperty("retry.agent.it.libs." + setName);
        return configured != null && !configured.isBlank()
                ? Paths.get(configured)
                : Paths.get("target", "client-libs", setName).toAbsolutePath();
    }

    /** The jars of this set, sorted by name; fails if the set has not been prepared. */
    public List<Path> jars() {
        if (setName == null) {
            return Collections.emptyList();
        }
        Path dir = dir();
        List<Path> jars;
        try (Stream<Path> files = Files.list(dir)) {
            jars = files.filter(p -> p.getFileName().toString().endsWith(".jar")).sorted().collect(Collectors.toList());
        } catch (IOException e) {
            throw new IllegalStateException("client library set " + setName + " not found at " + dir
                    + " (maven-dependency-plugin copies it in pre-integration-test: run mvn verify)", e);
        }
        if (jars.isEmpty()) {
            throw new IllegalStateException("client library set " + setName + " at " + dir + " has no jars");
        }
        return jars;
    }

    @Override
    public String toString() {
        return setName == null ? "jdk" : setName;
    }
}
