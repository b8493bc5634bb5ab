package dev.retryagent.it.deploy;

import static dev.retryagent.it.harness.Runs.logged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.ReportLine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * The Spring Boot executable jar of {@code integration-tests/spring-boot-app} (repackaged by spring-boot-maven-plugin,
 * path in system property {@code retry.agent.it.spring-boot-app.jar}): a plain Boot application whose command-line
 * runner hands its arguments to a client's batch application, packed in {@code BOOT-INF/classes} with the clients
 * in {@code BOOT-INF/lib}. Run as {@code java -javaagent:... -jar spring-boot-app.jar CLIENT ARGS}; a target of the
 * client contract drivers ({@link AppLoader#SPRING_BOOT}).
 */
public final class SpringBootJar {
    public static final String LAUNCHED_CLASS_LOADER = "org.springframework.boot.loader.launch.LaunchedClassLoader";

    private SpringBootJar() {
    }

    static Path path() {
        String configured = System.getProperty("retry.agent.it.spring-boot-app.jar");
        Path jar = configured != null && !configured.isBlank() ? Paths.get(configured)
                : Paths.get("spring-boot-app", "target", "spring-boot-app.jar").toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new AssertionError("Spring Boot application jar not found: " + jar
                    + " (the reactor builds integration-tests/spring-boot-app before integration-tests)");
        }
        return jar;
    }

    /** The jar running {@code client}'s batch application; arguments added to the returned app go to it. */
    public static ForkedApp app(String client) {
        return ForkedApp.ofJar(path()).args(client);
    }

    /**
     * The run was {@code java -jar} with nothing on the class path, the batch application and {@code clientClass}
     * came from the jar through Spring Boot's class loader (nested jar URLs), and the agent put its adapter there
     * (logged at {@code debug}: {@code adapterLogged}).
     */
    public static void assertLoadedFromTheJar(ForkedApp.Result run, String clientName, String clientClass,
            boolean adapterLogged) {
        List<String> command = run.command();
        assertEquals(path().toString(), command.get(command.indexOf("-jar") + 1), String.join(" ", command));
        assertFalse(command.contains("-cp") || command.contains("-classpath"), String.join(" ", command));
        List<ReportLine> boot = run.lines("BOOT");
        assertEquals(2, boot.size(), run.describe());
        ReportLine app = boot.get(0);
        assertEquals(LAUNCHED_CLASS_LOADER, app.get("loader"), app.toString());
        assertTrue(app.get("source").startsWith("jar:nested:") && app.get("source").endsWith("!BOOT-INF/classes/!/"),
                app.toString());
        ReportLine client = boot.get(1);
        assertEquals(clientClass, client.get("class"), client.toString());
        if (clientClass.startsWith("java.")) {
            assertEquals("bootstrap", client.get("loader"), client.toString());
        } else {
            assertEquals(LAUNCHED_CLASS_LOADER, client.get("loader"), client.toString());
            assertTrue(client.get("source").startsWith("jar:nested:")
                    && client.get("source").contains("!BOOT-INF/lib/"), client.toString());
            assertTrue(!adapterLogged
                    || logged(run, "adapter client=" + clientName + " defined-in=" + LAUNCHED_CLASS_LOADER),
                    run.describe());
        }
        assertFalse(run.stderr().contains("internal-error"), run.describe());
    }
}
