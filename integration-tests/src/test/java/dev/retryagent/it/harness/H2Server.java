package dev.retryagent.it.harness;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.coyote.http2.Http2Protocol;
import org.apache.tomcat.util.net.SSLHostConfig;
import org.apache.tomcat.util.net.SSLHostConfigCertificate;

/**
 * An HTTP/2 server over TLS on loopback (embedded Tomcat with its HTTP/2 upgrade protocol, negotiated by ALPN; the
 * harness's scripted server speaks HTTP/1.1 only) that records what it receives. Each path answers {@code 503 busy}
 * to its first {@code failFirst} requests and {@code 200 fine} afterwards.
 */
public final class H2Server implements AutoCloseable {
    /** What the server saw: the path, the protocol it came over and the marker header. */
    public record Seen(String path, String protocol, String marker, String body) {
    }

    private final Tomcat tomcat = new Tomcat();
    private final Connector connector;
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final Map<String, Integer> counts = new ConcurrentHashMap<>();

    public H2Server(int failFirst) throws IOException, LifecycleException {
        Path base = Files.createTempDirectory("h2-tomcat");
        tomcat.setBaseDir(base.toString());
        connector = new Connector("org.apache.coyote.http11.Http11NioProtocol");
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        connector.setSecure(true);
        connector.setScheme("https");
        connector.setProperty("SSLEnabled", "true");
        SSLHostConfig ssl = new SSLHostConfig();
        SSLHostConfigCertificate certificate = new SSLHostConfigCertificate(ssl, SSLHostConfigCertificate.Type.UNDEFINED);
        certificate.setCertificateKeystoreFile(TlsMaterial.shared().keyStore().toString());
        certificate.setCertificateKeystorePassword(TlsMaterial.PASSWORD);
        certificate.setCertificateKeystoreType("PKCS12");
        ssl.addCertificate(certificate);
        connector.addSslHostConfig(ssl);
        connector.addUpgradeProtocol(new Http2Protocol());
        tomcat.getService().addConnector(connector);
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", base.toString());
        Tomcat.addServlet(context, "scripted", new HttpServlet() {
            @Override
            protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
                String body = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                String path = request.getRequestURI();
                seen.add(new Seen(path, request.getProtocol(), request.getHeader("Retry-Attempt"), body));
                int n = counts.merge(path, 1, Integer::sum);
                response.setStatus(n <= failFirst ? 503 : 200);
                response.setContentType("text/plain");
                response.getOutputStream().write((n <= failFirst ? "busy" : "fine").getBytes(StandardCharsets.UTF_8));
            }
        });
        context.addServletMappingDecoded("/*", "scripted");
        tomcat.start();
    }

    public String url(String path) {
        return "https://127.0.0.1:" + connector.getLocalPort() + path;
    }

    public List<Seen> seen(String path) {
        return seen.stream().filter(s -> s.path().equals(path)).toList();
    }

    @Override
    public void close() throws Exception {
        tomcat.stop();
        tomcat.destroy();
    }
}
