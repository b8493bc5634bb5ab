package dev.retryagent.it.harness;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A self-signed certificate for {@code 127.0.0.1} and {@code localhost}, made at test time with the running
 * JDK's {@code keytool}: a PKCS12 key store for the server and a PKCS12 trust store for clients. Forked
 * applications trust it through {@link #clientSystemProperties()} ({@code javax.net.ssl.trustStore}), as an
 * operator would configure a private CA.
 */
public final class TlsMaterial {

    public static final String PASSWORD = "changeit";

    private static TlsMaterial shared;

    private final Path keyStore;
    private final Path trustStore;

    private TlsMaterial(Path keyStore, Path trustStore) {
        this.keyStore = keyStore;
        this.trustStore = trustStore;
    }

    /** One certificate per test JVM, made on first use under the harness work directory. */
    public static synchronized TlsMaterial shared() {
        if (shared == null) {
            try {
                Files.createDirectories(ForkedApp.workRoot());
                shared = generate(Files.createTempDirectory(ForkedApp.workRoot(), "tls-"));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
        return shared;
    }

    /** Makes a new key pair and certificate in {@code dir}. */
    public static TlsMaterial generate(Path dir) {
        Path keyStore = dir.resolve("server.p12");
        Path cert = dir.resolve("server.pem");
        Path trustStore = dir.resolve("client-truststore.p12");
        keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1",
                "-sigalg", "SHA256withECDSA", "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost",
                "-validity", "7", "-storetype", "PKCS12", "-keystore", keyStore.toString(),
                "-storepass", PASSWORD, "-keypass", PASSWORD);
        keytool("-exportcert", "-rfc", "-alias", "server", "-keystore", keyStore.toString(),
                "-storepass", PASSWORD, "-file", cert.toString());
        keytool("-importcert", "-noprompt", "-alias", "server", "-file", cert.toString(),
                "-storetype", "PKCS12", "-keystore", trustStore.toString(), "-storepass", PASSWORD);
        return new TlsMaterial(keyStore, trustStore);
    }

    public Path keyStore() {
        return keyStore;
    }

    public Path trustStore() {
        return trustStore;
    }

    /** {@code -D} properties that make a forked JVM's default SSL context trust this certificate. */
    public Map<String, String> clientSystemProperties() {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("javax.net.ssl.trustStore", trustStore.toString());
        props.put("javax.net.ssl.trustStorePassword", PASSWORD);
        props.put("javax.net.ssl.trustStoreType", "PKCS12");
        return props;
    }

    SSLContext serverContext() {
        try {
            KeyStore ks = load(keyStore);
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, PASSWORD.toCharArray());
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), null, null);
            return ctx;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An SSL context that trusts only this certificate, for in-process clients. */
    public SSLContext clientContext() {
        try {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(load(trustStore));
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static KeyStore load(Path file) throws GeneralSecurityException, IOException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        return ks;
    }

    private static void keytool(String... args) {
        Path keytool = Paths.get(System.getProperty("java.home"), "bin", "keytool");
        List<String> command = new ArrayList<>();
        command.add(keytool.toString());
        command.addAll(Arrays.asList(args));
        try {
            Path log = Files.createTempFile("keytool", ".log");
            try {
                Process p = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(log.toFile()).start();
                p.getOutputStream().close();
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IllegalStateException("keytool timed out: " + command);
                }
                if (p.exitValue() != 0) {
                    throw new IllegalStateException("keytool failed (" + p.exitValue() + "): " + command + "\n"
                            + Files.readString(log, StandardCharsets.UTF_8));
                }
            } finally {
                Files.deleteIfExists(log);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + keytool, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
