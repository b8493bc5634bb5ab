package dev.retryagent.it.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.Runs;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A servlet container's web application class loader: an embedded Tomcat (11, fetched by the build) serves a web
 * application whose handler ({@link ProxyServlet}, in {@code WEB-INF/classes}) calls a backend through OkHttp from
 * {@code WEB-INF/lib}; neither is on the JVM's class path. The backend answers 503 then 200: the call made from the
 * web application is retried (markers 1, 2) and the page shows the 200.
 */
@Timeout(120)
class TomcatWebappIT {
    static final String POLICY = """
            version: 1
            defaults:
              backoff: { base: 10ms, cap: 20ms }
            """;

    @Test
    void aCallFromAWebApplicationsClassLoaderIsRetried() throws Exception {
        try (ScriptedServer backend = ScriptedServer.start(Step.status(503).body("busy"), Step.ok().body("fine"))) {
            Path webapp = Files.createTempDirectory(ForkedApp.workRoot(), "webapp-");
            Path classes = webapp.resolve("WEB-INF/classes/dev/retryagent/it/deploy");
            Files.createDirectories(classes);
            Files.copy(ForkedApp.testClasses().resolve("dev/retryagent/it/deploy/ProxyServlet.class"),
                    classes.resolve("ProxyServlet.class"));
            Path lib = Files.createDirectories(webapp.resolve("WEB-INF/lib"));
            for (Path jar : ClientLibs.OKHTTP_5.jars()) {
                Files.copy(jar, lib.resolve(jar.getFileName()));
            }
            ForkedApp app = ForkedApp.of(TomcatApp.class).name("tomcat-webapp").classpath(ForkedApp.testClasses())
                    .policy(POLICY).agentArg("log", "debug").sysProp("backend.url", backend.url("/from-webapp"))
                    .timeout(Duration.ofMinutes(1)).args(webapp.toString());
            try (Stream<Path> jars = Files.list(Paths.get(System.getProperty("retry.agent.it.libs.tomcat")))) {
                jars.forEach(app::classpath);
            }
            ForkedApp.Result run;
            String page;
            try (ForkedApp.Running tomcat = app.start()) {
                String listening = tomcat.awaitStdoutLine(l -> l.startsWith("LISTENING "), Duration.ofSeconds(40));
                int port = ReportLine.parse(listening).getInt("port");
                HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/proxy")).timeout(Duration.ofSeconds(30)).build(),
                        HttpResponse.BodyHandlers.ofString());
                page = response.body();
                assertEquals(200, response.statusCode(), page);
                run = tomcat.await();
            }
            System.out.println("WEBAPP " + page);
            ReportLine result = ReportLine.parse("PAGE " + page);
            assertEquals(200, result.getInt("status"), page);
            assertEquals("fine", result.get("body"), page);
            assertTrue(result.get("servletLoader").contains("WebappClassLoader"), page);
            assertTrue(result.get("okhttpLoader").contains("WebappClassLoader"), page);
            assertEquals(List.of("1", "2"), Runs.markers(backend.requests()));
            assertTrue(Runs.logged(run, "retry client=okhttp method=GET", "path=/from-webapp"), run.describe());
            assertFalse(run.stderr().contains("internal-error"), run.describe());
        }
    }
}
