package dev.retryagent.it.deploy;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.util.Arrays;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;

/**
 * Runs an application's main class in a servlet container's web application class loader: an embedded Tomcat
 * (9 on Java 8 and 11, 11 on 17 and up: the same embedding API) starts a web application from the directory
 * {@code argv[0]}, and the class {@code argv[1]} is loaded by that web application's class loader (from
 * {@code WEB-INF/classes}, its client from {@code WEB-INF/lib}; neither is on the JVM's class path) and run with the
 * remaining arguments. Prints {@code LAUNCHER loader=CLASS}, the loader of the main class. The application ends the
 * JVM.
 *
 * <pre>java -cp TOMCAT:LAUNCHER WebappLauncher WEBAPP-DIR MAIN-CLASS ARGS...</pre>
 */
public final class WebappLauncher {
    private WebappLauncher() {
    }

    /** An embedded Tomcat, not started, on a free port of 127.0.0.1, its base directory a new temporary one. */
    public static Tomcat onLoopback() throws IOException {
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(Files.createTempDirectory("tomcat-").toString());
        tomcat.setPort(0);
        tomcat.setHostname("127.0.0.1");
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        return tomcat;
    }

    public static void main(String[] argv) throws Exception {
        Tomcat tomcat = onLoopback();
        Context context = tomcat.addContext("", argv[0]);
        tomcat.start();
        ClassLoader webapp = context.getLoader().getClassLoader();
        Thread.currentThread().setContextClassLoader(webapp);
        Class<?> main = Class.forName(argv[1], true, webapp);
        System.out.println("LAUNCHER loader=" + main.getClassLoader().getClass().getName());
        Method entry = main.getMethod("main", String[].class);
        entry.invoke(null, (Object) Arrays.copyOfRange(argv, 2, argv.length));
    }
}
