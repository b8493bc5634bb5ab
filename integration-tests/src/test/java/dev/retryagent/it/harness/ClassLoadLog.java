package dev.retryagent.it.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The JVM's log of the classes it loads, on every JDK: {@code -Xlog:class+load} into a file from Java 9 on
 * ({@code NAME source: SOURCE}), {@code -verbose:class} on Java 8, which prints {@code [Loaded NAME from SOURCE]}
 * to standard output.
 */
public final class ClassLoadLog {
    private final Jdks.Jdk jdk;
    private final Path file;

    private ClassLoadLog(Jdks.Jdk jdk, Path file) {
        this.jdk = jdk;
        this.file = file;
    }

    /** A log for a run named {@code name} on {@code jdk}; {@link #enable} adds it to the app. */
    public static ClassLoadLog of(Jdks.Jdk jdk, String name) {
        try {
            return new ClassLoadLog(jdk, Files.createDirectories(ForkedApp.workRoot())
                    .resolve(name + "-" + jdk + "-" + System.nanoTime() + ".classes.log"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public ForkedApp enable(ForkedApp app) {
        return app.jvmArg(jdk.version() < 9 ? "-verbose:class" : "-Xlog:class+load=info:file=" + file);
    }

    /** One class the JVM loaded, and where from ({@code shared objects file}, {@code jrt:/java.base}, a jar...). */
    public record Loaded(String name, String source) {
    }

    /** Every class {@code run} loaded, in order. */
    public List<Loaded> read(ForkedApp.Result run) {
        List<Loaded> loaded = new ArrayList<>();
        if (jdk.version() < 9) {
            for (String line : run.stdout().split("\n")) {
                if (line.startsWith("[Loaded ") && line.contains(" from ")) {
                    int from = line.indexOf(" from ");
                    loaded.add(new Loaded(line.substring("[Loaded ".length(), from),
                            line.substring(from + " from ".length(), line.lastIndexOf(']'))));
                }
            }
            return loaded;
        }
        try {
            for (String line : Files.readAllLines(file)) {
                int source = line.indexOf(" source: ");
                if (source < 0) {
                    continue;
                }
                int name = line.lastIndexOf(' ', source - 1);
                loaded.add(new Loaded(line.substring(name + 1, source), line.substring(source + " source: ".length())));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return loaded;
    }
}
