package dev.retryagent.it.springboot;

import dev.retryagent.it.apps.HttpClient5Scenario;
import dev.retryagent.it.apps.Report;
import dev.retryagent.it.httpurlconnection.HttpUrlConnectionBatchApp;
import dev.retryagent.it.okhttp.OkHttpBatchApp;
import java.net.URL;
import java.security.CodeSource;
import java.util.Arrays;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A plain Spring Boot application (no agent code), run as a repackaged executable jar: a command-line runner that
 * hands its arguments to one of the client contract's batch applications, packed in the same jar.
 *
 * <pre>java -jar spring-boot-app.jar okhttp|httpclient5|httpurlconnection BATCH-APP-ARGS...</pre>
 * Prints {@code BOOT app=.. loader=.. source=..} for the batch application's class and for the client's, then
 * whatever the batch application prints; the batch application ends the JVM.
 */
@SpringBootApplication
public class BootBatchApp implements CommandLineRunner {

    public static void main(String[] args) {
        SpringApplication.run(BootBatchApp.class, args);
    }

    @Override
    public void run(String... args) throws Exception {
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        switch (args[0]) {
            case "okhttp" -> {
                where("app", OkHttpBatchApp.class);
                where("client", okhttp3.OkHttpClient.class);
                OkHttpBatchApp.main(rest);
            }
            case "httpclient5" -> {
                where("app", HttpClient5Scenario.class);
                where("client", org.apache.hc.client5.http.impl.classic.HttpClients.class);
                HttpClient5Scenario.main(rest);
            }
            case "httpurlconnection" -> {
                where("app", HttpUrlConnectionBatchApp.class);
                where("client", java.net.HttpURLConnection.class);
                HttpUrlConnectionBatchApp.main(rest);
            }
            default -> throw new IllegalArgumentException("unknown client " + args[0]);
        }
    }

    /** Which class loader defined {@code type}, and from where (null for the JDK's own classes). */
    private static void where(String what, Class<?> type) {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        URL location = source == null ? null : source.getLocation();
        ClassLoader loader = type.getClassLoader();
        Report.line("BOOT", "what", what, "class", type.getName(),
                "loader", loader == null ? "bootstrap" : loader.getClass().getName(), "source", location);
    }
}
