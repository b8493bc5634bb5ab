package dev.retryagent.it.deploy;

import static dev.retryagent.it.harness.Runs.logged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.ForkedApp;

/** Which class loader loads a client and the batch application of a contract target. */
public enum AppLoader {
    /** The JVM's class path. */
    CLASS_PATH,
    /** A child {@code URLClassLoader} whose parent is the platform loader ({@code okhttp.ChildLoaderLauncher}). */
    CHILD,
    /** An embedded Tomcat's web application class loader ({@link Webapps}). */
    WEBAPP,
    /** Spring Boot 3's {@code LaunchedClassLoader}, from the nested jars of an executable jar ({@link SpringBootJar}). */
    SPRING_BOOT,
    /** Spring Boot 2.7's {@code LaunchedURLClassLoader}, likewise (on Java 8). */
    SPRING_BOOT_2;

    /** The loader of the main class, as its launcher reports it ({@code LAUNCHER loader=..}). */
    public String launcherLoader() {
        return switch (this) {
            case CHILD -> "application";
            case WEBAPP -> "org.apache.catalina.loader.ParallelWebappClassLoader";
            default -> throw new IllegalStateException("no launcher line for " + this);
        };
    }

    /** The class of the loader the agent defines its adapter in (its {@code adapter ... defined-in=} line). */
    public String adapterLoader() {
        return switch (this) {
            case CHILD -> "java.net.URLClassLoader";
            case WEBAPP -> "org.apache.catalina.loader.ParallelWebappClassLoader";
            case SPRING_BOOT -> SpringBootJar.BOOT_3.launchedClassLoader;
            case SPRING_BOOT_2 -> SpringBootJar.BOOT_2.launchedClassLoader;
            case CLASS_PATH -> throw new IllegalStateException("the class path: no adapter of its own");
        };
    }

    /** The executable jar whose class loader this is. */
    public SpringBootJar springBootJar() {
        return switch (this) {
            case SPRING_BOOT -> SpringBootJar.BOOT_3;
            case SPRING_BOOT_2 -> SpringBootJar.BOOT_2;
            default -> throw new IllegalStateException(this + ": no Spring Boot jar");
        };
    }

    /**
     * The checks that the run's client and application came from this loader: the launcher's line and the agent's
     * adapter line (the run logs at {@code debug}), or {@link SpringBootJar#assertLoadedFromTheJar}.
     */
    public void assertLoaded(ForkedApp.Result run, String clientName, String clientClass) {
        switch (this) {
            case CLASS_PATH -> {
            }
            case SPRING_BOOT -> SpringBootJar.BOOT_3.assertLoadedFromTheJar(run, clientName, clientClass, true);
            case SPRING_BOOT_2 -> SpringBootJar.BOOT_2.assertLoadedFromTheJar(run, clientName, clientClass, true);
            default -> {
                assertEquals(launcherLoader(), run.single("LAUNCHER").get("loader"), run.describe());
                assertTrue(logged(run, "adapter client=" + clientName + " defined-in=" + adapterLoader()), run.describe());
            }
        }
    }
}
