package dev.retryagent.it.deploy;

import static dev.retryagent.it.harness.Runs.logged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.ReportLine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * A Spring Boot executable jar, repackaged by spring-boot-maven-plugin: a plain Boot application whose command-line
 * runner hands its arguments to a client's batch application, packed in {@code BOOT-INF/classes} with the clients
 * in {@code BOOT-INF/lib}. {@link #BOOT_3} is {@code integration-tests/spring-boot-app} (Spring Boot 3.5, Java 17 and
 * up, system property {@code retry.agent.it.spring-boot-app.jar}), {@link #BOOT_2} the same sources built by
 * {@code integration-tests/spring-boot2-app} (Spring Boot 2.7, Java 8, {@code retry.agent.it.spring-boot2-app.jar}).
 * Run as {@code java -javaagent:... -jar JAR CLIENT ARGS}; a target of the client contract drivers
 * ({@link AppLoader#SPRING_BOOT}, {@link AppLoader#SPRING_BOOT_2}).
 */
public enum SpringBootJar {
    /** Boot 3: {@code LaunchedClassLoader}, {@code jar:nested:} URLs. */
    BOOT_3("spring-boot-app", "org.springframework.boot.loader.launch.LaunchedClassLoader", "jar:nested:",
            "!BOOT-INF/classes/!/", "!BOOT-INF/lib/"),
    /** Boot 2.7: {@code LaunchedURLClassLoader}, {@code jar:file:} URLs into the jar. */
    BOOT_2("spring-boot2-app", "org.springframework.boot.loader.LaunchedURLClassLoader", "jar:file:",
            "!/BOOT-INF/classes!/", "!/BOOT-INF/lib/");

    private final String module;
    /** The class of the loader Boot loads the application and its libraries with. */
    public final String launchedClassLoader;
    private final String urlScheme;
    private final String classesSuffix;
    private final String libs;

    SpringBootJar(String module, String launchedClassLoader, String urlScheme, String classesSuffix, String libs) {
        this.module = module;
        this.launchedClassLoader = launchedClassLoader;
        this.urlScheme = urlScheme;
        this.classesSuffix = classesSuffix;
        this.libs = libs;
    }

    Path path() {
        String configured = System.getProperty("retry.agent.it." + module + ".jar");
        Path jar = configured != null && !configured.isBlank() ? Paths.get(configured)
                : Paths.get(module, "target", module + ".jar").toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new AssertionError("Spring Boot application jar not found: " + jar
                    + " (the reactor builds integration-tests/" + module + " before integration-tests)");
        }
        return jar;
    }

    /**
     * The version of {@code artifactId} that the Boot build resolved and packed: the one {@code BOOT-INF/lib} holds
     * ({@code BOOT-INF/lib/reactor-netty-http-1.2.11.jar} for {@code reactor-netty-http}).
     */
    public String libraryVersion(String artifactId) {
        Pattern nested = Pattern.compile(Pattern.quote("BOOT-INF/lib/" + artifactId + "-") + "(\\d[^/]*)\\.jar");
        try (ZipFile jar = new ZipFile(path().toFile())) {
            List<String> versions = jar.stream().map(ZipEntry::getName).map(nested::matcher).filter(Matcher::matches)
                    .map(m -> m.group(1)).toList();
            if (versions.size() != 1) {
                throw new AssertionError("not one " + artifactId + " in BOOT-INF/lib of " + path() + ": " + versions);
            }
            return versions.get(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The jar running {@code client}'s batch application; arguments added to the returned app go to it. */
    public ForkedApp app(String client) {
        return ForkedApp.ofJar(path()).args(client);
    }

    /**
     * The run was {@code java -jar} with nothing on the class path, the batch application and {@code clientClass}
     * came from the jar through Spring Boot's class loader (nested jar URLs), and the agent put its adapter there
     * (logged at {@code debug}: {@code adapterLogged}).
     */
    public void assertLoadedFromTheJar(ForkedApp.Result run, String clientName, String clientClass,
            boolean adapterLogged) {
        List<String> command = run.command();
        assertEquals(path().toString(), command.get(command.indexOf("-jar") + 1), String.join(" ", command));
        assertFalse(command.contains("-cp") || command.contains("-classpath"), String.join(" ", command));
        List<ReportLine> boot = run.lines("BOOT");
        assertEquals(2, boot.size(), run.describe());
        ReportLine app = boot.get(0);
        assertEquals(launchedClassLoader, app.get("loader"), app.toString());
        assertTrue(app.get("source").startsWith(urlScheme) && app.get("source").endsWith(classesSuffix),
                app.toString());
        ReportLine client = boot.get(1);
        assertEquals(clientClass, client.get("class"), client.toString());
        if (clientClass.startsWith("java.")) {
            assertEquals("bootstrap", client.get("loader"), client.toString());
        } else {
            assertEquals(launchedClassLoader, client.get("loader"), client.toString());
            assertTrue(client.get("source").startsWith(urlScheme)
                    && client.get("source").contains(libs),
                    client.toString());
            assertTrue(!adapterLogged
                    || logged(run, "adapter client=" + clientName + " defined-in=" + launchedClassLoader),
                    run.describe());
        }
        assertFalse(run.stderr().contains("internal-error"), run.describe());
    }
}
