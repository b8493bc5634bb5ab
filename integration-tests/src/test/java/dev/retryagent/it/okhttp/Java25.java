package dev.retryagent.it.okhttp;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The Java 25 runtime for forked applications (SPEC 1: the suites run on Java 17 and on Java 25): system property
 * {@code retry.agent.it.java25}, else the usual Temurin install. A test that needs it fails without it (never a
 * silent skip): CI must run both.
 */
final class Java25 {
    private Java25() {
    }

    static Path java() {
        Path java = Paths.get(System.getProperty("retry.agent.it.java25", "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"));
        if (!Files.isExecutable(java)) {
            throw new AssertionError("no Java 25 at " + java + " (set -Dretry.agent.it.java25=...)");
        }
        return java;
    }
}
