package dev.retryagent.it.deploy;

/** Which class loader loads a client and the batch application of a contract target. */
public enum AppLoader {
    /** The JVM's class path. */
    CLASS_PATH,
    /** A child {@code URLClassLoader} whose parent is the platform loader ({@code okhttp.ChildLoaderLauncher}). */
    CHILD,
    /** An embedded Tomcat's web application class loader ({@link WebappLauncher}). */
    WEBAPP;

    /** The loader the launcher reports ({@code LAUNCHER loader=..}) and the agent defines its adapter in. */
    public String launcherLoader() {
        return this == CHILD ? "application" : "org.apache.catalina.loader.ParallelWebappClassLoader";
    }

    public String adapterLoader() {
        return this == CHILD ? "java.net.URLClassLoader" : "org.apache.catalina.loader.ParallelWebappClassLoader";
    }
}
