package dev.retryagent.it.deploy;

import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Stream;

/**
 * Forked JVMs that run an application in an embedded Tomcat's web application class loader
 * ({@link WebappLauncher}): Tomcat 11 where the JDK runs it (17 and up), Tomcat 9 on Java 8 and 11.
 */
public final class Webapps {
    private Webapps() {
    }

    /**
     * A forked JVM with Tomcat and this launcher on its class path, running {@code main} in a web application whose
     * {@code WEB-INF/lib} holds {@code libs} and whose {@code WEB-INF/classes} holds the classes named by
     * {@code classes} (class file paths in the test classes or the scenario applications, a trailing {@code *} for a
     * class and its nested classes); arguments added to the returned app go to {@code main}.
     */
    public static ForkedApp app(Jdks.Jdk jdk, Class<?> main, ClientLibs libs, List<String> classes) {
        try {
            Path testClasses =
                    Paths.get(Webapps.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path webapp = Files.createTempDirectory(Files.createDirectories(ForkedApp.workRoot()), "webapp-");
            Path webClasses = Files.createDirectories(webapp.resolve("WEB-INF/classes"));
            for (String name : classes) {
                int copied = 0;
                for (Path root : List.of(testClasses, ForkedApp.appClasses())) {
                    Path dir = root.resolve(name).getParent();
                    if (!Files.isDirectory(dir)) {
                        continue;
                    }
                    try (DirectoryStream<Path> found = Files.newDirectoryStream(dir, dir.relativize(root.resolve(name))
                            .toString())) {
                        for (Path file : found) {
                            Path target = webClasses.resolve(root.relativize(file).toString());
                            Files.createDirectories(target.getParent());
                            Files.copy(file, target);
                            copied++;
                        }
                    }
                }
                if (copied == 0) {
                    throw new IllegalArgumentException("no class file " + name);
                }
            }
            Path lib = Files.createDirectories(webapp.resolve("WEB-INF/lib"));
            for (Path jar : libs.jars()) {
                Files.copy(jar, lib.resolve(jar.getFileName()));
            }
            ForkedApp app = ForkedApp.of(WebappLauncher.class).java(jdk.java());
            String tomcat = jdk.version() >= 17 ? "retry.agent.it.libs.tomcat" : "retry.agent.it.libs.tomcat9";
            try (Stream<Path> jars = Files.list(Paths.get(System.getProperty(tomcat)))) {
                jars.sorted().forEach(app::classpath);
            }
            return app.args(webapp.toString(), main.getName());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
