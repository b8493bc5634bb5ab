package dev.retryagent.it.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The JDKs forked applications run on: Java 8, 11, 17 and 25, whichever JDK runs the tests, so that one
 * {@code mvn verify} covers each. A test names the versions it runs on ({@link #of}); each comes from
 * {@code retry.agent.it.java8} / {@code .java11} / {@code .java17} / {@code .java25} (the build sets them: Java 8 and
 * 11 where {@code .ci/old-jdks.sh} puts them, 17 and 25 where Debian and Temurin install them), the test JDK for its
 * own version. {@code retry.agent.it.jdks} (a comma-separated list of versions, default all four) says which of them
 * this run forks on: CI's Java 25 pass sets {@code 25}, so that it does not repeat the first pass's older JDKs. A JDK
 * a test needs that cannot be found fails the test, never skips it.
 */
public final class Jdks {
    /** Every version the suites know, oldest first. */
    public static final int[] ALL = {8, 11, 17, 25};
    /** The versions {@code java.net.http} exists on. */
    public static final int[] JAVA_11_UP = {11, 17, 25};
    /**
     * The tag of a test that forks on Java 25 itself whenever the run's JDKs include it, through {@link #of} or
     * {@link #besides}: CI's Java 25 pass leaves it out ({@code -Dretry.agent.it.excludedGroups=jdk-matrix}), as the
     * first pass ran its Java 25 forks already.
     */
    public static final String MATRIX = "jdk-matrix";

    private Jdks() {
    }

    /**
     * The JDKs of {@code versions} that this run forks on, the test JDK first; each feature version once.
     *
     * @throws AssertionError when one of them is not installed where its system property says
     */
    public static List<Jdk> of(int... versions) {
        Set<Integer> enabled = enabled();
        Jdk own = testJdk();
        Map<Integer, Jdk> byVersion = new LinkedHashMap<>();
        if (contains(versions, own.version()) && enabled.contains(own.version())) {
            byVersion.put(own.version(), own);
        }
        for (int version : versions) {
            if (enabled.contains(version) && !byVersion.containsKey(version)) {
                byVersion.put(version, configured(version));
            }
        }
        return new ArrayList<>(byVersion.values());
    }

    /**
     * The JDKs of {@code versions} that this run forks on other than the test JDK: the extra targets of a test that
     * runs everything on the test JDK and some of it on others.
     */
    public static List<Jdk> besides(int... versions) {
        int own = testJdk().version();
        List<Jdk> others = new ArrayList<>(of(versions));
        others.removeIf(jdk -> jdk.version() == own);
        return others;
    }

    /** The JDK of {@code version}: the test JDK when it is that version, else the configured one. */
    public static Jdk version(int version) {
        Jdk own = testJdk();
        return own.version() == version ? own : configured(version);
    }

    /** The JDK forked applications run on when a test names none: {@link ForkedApp#defaultJava()}. */
    public static Jdk testJdk() {
        Path java = ForkedApp.defaultJava();
        return new Jdk(featureVersion(java), java);
    }

    private static Jdk configured(int version) {
        String property = "retry.agent.it.java" + version;
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            throw new AssertionError("no Java " + version + " configured (set -D" + property + "=.../bin/java)");
        }
        Path java = Paths.get(value);
        if (!Files.isExecutable(java)) {
            throw new AssertionError("no Java " + version + " at " + java + " (" + (version < 17
                    ? "run .ci/old-jdks.sh, or " : "") + "set -D" + property + "=.../bin/java)");
        }
        int found = featureVersion(java);
        if (found != version) {
            throw new AssertionError(property + "=" + java + " is Java " + found + ", not " + version);
        }
        return new Jdk(version, java);
    }

    private static Set<Integer> enabled() {
        String value = System.getProperty("retry.agent.it.jdks", "");
        if (value.isBlank() || value.startsWith("${")) {
            return Arrays.stream(ALL).boxed().collect(Collectors.toCollection(TreeSet::new));
        }
        Set<Integer> versions = new TreeSet<>();
        for (String part : value.split(",")) {
            int version = Integer.parseInt(part.trim());
            if (!contains(ALL, version)) {
                throw new IllegalArgumentException("retry.agent.it.jdks: " + version + " is none of "
                        + Arrays.toString(ALL));
            }
            versions.add(version);
        }
        return versions;
    }

    private static boolean contains(int[] versions, int version) {
        return Arrays.stream(versions).anyMatch(v -> v == version);
    }

    private static final Map<Path, Integer> VERSIONS = new ConcurrentHashMap<>();

    /**
     * The feature version of the JDK whose {@code bin/java} is {@code java}: from its {@code release} file, or, where
     * it has none (Debian's Java 8), from what {@code java -version} prints.
     */
    static int featureVersion(Path java) {
        return VERSIONS.computeIfAbsent(java, Jdks::readFeatureVersion);
    }

    private static int readFeatureVersion(Path java) {
        Path home;
        try {
            home = java.toRealPath().getParent().getParent();
        } catch (IOException e) {
            throw new UncheckedIOException("no JDK at " + java, e);
        }
        try {
            Path release = home.resolve("release");
            String version = null;
            if (Files.exists(release)) {
                for (String line : Files.readAllLines(release)) {
                    if (line.startsWith("JAVA_VERSION=")) {
                        version = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    }
                }
            } else {
                Process process = new ProcessBuilder(java.toString(), "-version").redirectErrorStream(true).start();
                String printed = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                process.waitFor();
                int quote = printed.indexOf('"');
                version = quote < 0 ? null : printed.substring(quote + 1, printed.indexOf('"', quote + 1));
            }
            if (version == null) {
                throw new IllegalStateException("no Java version found for " + java);
            }
            String[] parts = version.split("[._+-]");
            int first = Integer.parseInt(parts[0]);
            return first == 1 ? Integer.parseInt(parts[1]) : first; // "1.8.0_504" is Java 8
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the version of " + java, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading the version of " + java, e);
        }
    }

    /** One JDK: its feature version and its {@code java}. */
    public record Jdk(int version, Path java) {
        /** How its {@code java.version} begins: {@code 1.8.} on Java 8, {@code 11.} on 11. */
        public String javaVersionPrefix() {
            return version == 8 ? "1.8." : version + ".";
        }

        /** Whether {@code java.net.http} exists there. */
        public boolean hasJavaNetHttp() {
            return version >= 11;
        }

        @Override
        public String toString() {
            return "java" + version;
        }
    }
}
