package dev.retryagent.it.httpurlconnection;

import java.lang.instrument.Instrumentation;
import java.net.URL;
import java.util.Arrays;

/**
 * A second {@code -javaagent}, placed before retry-agent on the command line, whose premain opens an
 * HttpURLConnection: the JDK's {@code sun.net.www.protocol.http.HttpURLConnection} is then loaded (and linked)
 * before retry-agent starts, as in an application whose other agent or early start-up code touches HTTP, so
 * retry-agent must retransform it. Prints {@code PRELOAD loaded=true|false}. Its jar holds only a manifest
 * (made by the test); the class itself is on the application's class path.
 */
public final class PreloadAgent {
    static final String HTTP_URL_CONNECTION = "sun.net.www.protocol.http.HttpURLConnection";

    private PreloadAgent() {
    }

    public static void premain(String args, Instrumentation inst) throws Exception {
        // Opening (not connecting) creates the connection object: its class is loaded and initialised.
        new URL("http://127.0.0.1:9/preload").openConnection();
        boolean loaded = Arrays.stream(inst.getAllLoadedClasses()).anyMatch(c -> c.getName().equals(HTTP_URL_CONNECTION));
        System.out.println("PRELOAD loaded=" + loaded);
    }
}
