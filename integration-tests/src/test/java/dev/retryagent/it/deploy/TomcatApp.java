package dev.retryagent.it.deploy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;

/**
 * An embedded Tomcat serving one web application from the directory {@code argv[0]} (its {@code WEB-INF}), with
 * {@link ProxyServlet} at {@code /proxy}. Prints {@code LISTENING port=N} and stops when its standard input closes.
 */
public final class TomcatApp {
    public static void main(String[] argv) throws Exception {
        Tomcat tomcat = WebappLauncher.onLoopback();
        Context context = tomcat.addContext("", argv[0]);
        Tomcat.addServlet(context, "proxy", "dev.retryagent.it.deploy.ProxyServlet");
        context.addServletMappingDecoded("/proxy", "proxy");
        tomcat.start();
        System.out.println("LISTENING port=" + tomcat.getConnector().getLocalPort());
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        tomcat.stop();
        System.exit(0);
    }
}
