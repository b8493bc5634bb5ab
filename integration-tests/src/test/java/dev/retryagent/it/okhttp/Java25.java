package dev.retryagent.it.okhttp;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Assumptions;

/**
 * The Java 25 runtime for forked applications (SPEC 1: the suites run on Java 17 and on Java 25): system property
 * {@code retry.agent.it.java25}, else the usual Temurin install. A test that needs it is skipped without it.
 */
final class Java25 {
    private Java25() {
    }

    static Path java() {
        Path java = Paths.get(System.getProperty("retry.agent.it.java25", "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"));
        Assumptions.assumeTrue(Files.isExecutable(java), "no Java 25 at " + java + " (-Dretry.agent.it.java25=...)");
        return java;
    }
}
