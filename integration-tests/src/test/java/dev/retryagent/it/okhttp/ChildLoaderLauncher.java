package dev.retryagent.it.okhttp;

import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import java.io.File;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;

/**
 * Runs an application in a class loader of its own, the way a servlet container or a Spring Boot jar does:
 * the HTTP client is not on the system class path, so the agent must define its adapter in that loader.
 *
 * <pre>java -cp LAUNCHER ChildLoaderLauncher CLASSPATH MAIN-CLASS ARGS...</pre>
 * CLASSPATH ({@code File.pathSeparator}-separated) is the child's; its parent is the platform class loader.
 */
public final class ChildLoaderLauncher {
    /**
     * A forked JVM whose class path holds only this launcher (and the test classes beside it), running {@code main}
     * in a child loader with {@code libs}, the test classes and the scenario applications; arguments added to the
     * returned app go to {@code main}.
     */
    public static ForkedApp app(Class<?> main, ClientLibs libs) {
        Path testClasses;
        try {
            testClasses = Paths.get(
                    ChildLoaderLauncher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        List<String> child = new ArrayList<>();
        libs.jars().forEach(j -> child.add(j.toString()));
        child.add(testClasses.toString());
        child.add(ForkedApp.appClasses().toString());
        return ForkedApp.of(ChildLoaderLauncher.class).classpath(testClasses)
                .args(String.join(File.pathSeparator, child), main.getName());
    }

    public static void main(String[] args) throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String entry : args[0].split(File.pathSeparator)) {
            urls.add(new File(entry).toURI().toURL());
        }
        URLClassLoader child = new URLClassLoader("application", urls.toArray(new URL[0]),
                ClassLoader.getPlatformClassLoader());
        Thread.currentThread().setContextClassLoader(child);
        Class<?> main = Class.forName(args[1], true, child);
        System.out.println("LAUNCHER loader=" + main.getClassLoader().getName());
        Method entry = main.getMethod("main", String[].class);
        entry.invoke(null, (Object) Arrays.copyOfRange(args, 2, args.length));
    }
}
