package dev.retryagent.it.deploy;

import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;

/**
 * Runs an application's main class in a servlet container's web application class loader: an embedded Tomcat
 * starts a web application from the directory {@code argv[0]}, and the class {@code argv[1]} is loaded by that web
 * application's class loader (from {@code WEB-INF/classes}, its client from {@code WEB-INF/lib}; neither is on the
 * JVM's class path) and run with the remaining arguments. Prints {@code LAUNCHER loader=CLASS}, the loader of the
 * main class. The application ends the JVM.
 *
 * <pre>java -cp TOMCAT:LAUNCHER WebappLauncher WEBAPP-DIR MAIN-CLASS ARGS...</pre>
 */
public final class WebappLauncher {
    public static void main(String[] argv) throws Exception {
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(Files.createTempDirectory("tomcat-").toString());
        tomcat.setPort(0);
        tomcat.setHostname("127.0.0.1");
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        Context context = tomcat.addContext("", argv[0]);
        tomcat.start();
        ClassLoader webapp = context.getLoader().getClassLoader();
        Thread.currentThread().setContextClassLoader(webapp);
        Class<?> main = Class.forName(argv[1], true, webapp);
        System.out.println("LAUNCHER loader=" + main.getClassLoader().getClass().getName());
        Method entry = main.getMethod("main", String[].class);
        entry.invoke(null, (Object) Arrays.copyOfRange(argv, 2, argv.length));
    }

    /**
     * A forked JVM with Tomcat and this launcher on its class path, running {@code main} in a web application whose
     * {@code WEB-INF/lib} holds {@code libs} and whose {@code WEB-INF/classes} holds the classes named by
     * {@code classes} (class file paths in the test classes or the scenario applications, a trailing {@code *} for a
     * class and its nested classes); arguments added to the returned app go to {@code main}.
     */
    public static ForkedApp app(Class<?> main, ClientLibs libs, List<String> classes) {
        try {
            Path testClasses =
                    Paths.get(WebappLauncher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
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
            ForkedApp app = ForkedApp.of(WebappLauncher.class).classpath(testClasses);
            try (Stream<Path> jars = Files.list(Paths.get(System.getProperty("retry.agent.it.libs.tomcat")))) {
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
