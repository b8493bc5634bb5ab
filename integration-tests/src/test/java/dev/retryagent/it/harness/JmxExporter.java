package dev.retryagent.it.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;

/**
 * The Prometheus JMX exporter's Java agent (copied by maven-dependency-plugin, system property
 * {@code retry.agent.it.jmx-exporter.jar}) on a free loopback port, with its default rules, beside ours in a forked
 * JVM: {@link #jvmArg()} for the application, {@link #scrape()} for the test.
 */
public final class JmxExporter {
    private final int port;

    private JmxExporter(int port) {
        this.port = port;
    }

    public static JmxExporter onFreePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return new JmxExporter(s.getLocalPort());
        }
    }

    /** {@code -javaagent:EXPORTER=127.0.0.1:PORT:CONFIG}, the config without rules (the exporter's default naming). */
    public String jvmArg() throws IOException {
        Path exporter = Paths.get(System.getProperty("retry.agent.it.jmx-exporter.jar",
                "target/client-libs/jmx-exporter/jmx_prometheus_javaagent-1.0.1.jar"));
        assertTrue(Files.isRegularFile(exporter), "the exporter jar (copied by maven-dependency-plugin): " + exporter);
        Path config = Files.createDirectories(ForkedApp.workRoot()).resolve("jmx-exporter-default-rules.yaml");
        // No rules: the exporter's default naming, as a team that adds the exporter without configuring it gets.
        // (An empty map: 1.0.1 refuses an empty file.)
        Files.writeString(config, "{}\n");
        return "-javaagent:" + exporter + "=127.0.0.1:" + port + ":" + config;
    }

    /** The lines of one scrape of {@code /metrics}. */
    public List<String> scrape() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        return response.body().lines().toList();
    }
}
