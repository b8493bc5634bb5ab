package dev.retryagent.it.httpurlconnection;

import dev.retryagent.it.harness.ForkedApp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JDKs the HttpURLConnection suites fork their applications on: Java 17 and Java 25, whichever JDK runs the
 * tests, so that one {@code mvn verify} covers both. The test JDK (or {@code retry.agent.it.java}) comes first;
 * the other is taken from {@code retry.agent.it.java17} / {@code retry.agent.it.java25} or the usual install
 * paths. A JDK that cannot be found fails the suite: CI must run both.
 */
public final class Jdks {
    static final Path JAVA_17 = Paths.get(System.getProperty("retry.agent.it.java17",
            "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"));
    static final Path JAVA_25 = Paths.get(System.getProperty("retry.agent.it.java25",
            "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"));

    private Jdks() {
    }

    /** The {@code java} executables by feature version (17, 25), the test JDK's own first. */
    public static List<Jdk> both() {
        Map<Integer, Path> byVersion = new LinkedHashMap<>();
        Path own = ForkedApp.defaultJava();
        byVersion.put(featureVersion(own), own);
        for (Path candidate : List.of(JAVA_17, JAVA_25)) {
            if (!Files.isExecutable(candidate)) {
                throw new AssertionError("JDK not found: " + candidate
                        + " (set -Dretry.agent.it.java17=... / -Dretry.agent.it.java25=...)");
            }
            byVersion.putIfAbsent(featureVersion(candidate), candidate);
        }
        List<Jdk> jdks = new ArrayList<>();
        byVersion.forEach((version, java) -> {
            if (version == 17 || version == 25) {
                jdks.add(new Jdk(version, java));
            }
        });
        return jdks;
    }

    /** The feature version of the JDK whose {@code bin/java} is {@code java}, from its {@code release} file. */
    static int featureVersion(Path java) {
        Path home;
        try {
            home = java.toRealPath().getParent().getParent();
        } catch (IOException e) {
            throw new UncheckedIOException("no JDK at " + java, e);
        }
        try {
            for (String line : Files.readAllLines(home.resolve("release"))) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    int dot = v.indexOf('.');
                    return Integer.parseInt(dot < 0 ? v : v.substring(0, dot));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the release file of " + home, e);
        }
        throw new IllegalStateException("no JAVA_VERSION in " + home.resolve("release"));
    }

    /** One JDK: its feature version and its {@code java}. */
    public record Jdk(int version, Path java) {
        @Override
        public String toString() {
            return "java" + version;
        }
    }
}
