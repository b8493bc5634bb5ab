package dev.retryagent.it.okhttp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.apps.BatchApp;
import dev.retryagent.it.contract.ClientContract;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.Runs;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Class loading: OkHttp in a child class loader (not visible to the agent's own classes), and an application
 * that brings its own Byte Buddy (another version than the one the agent shades).
 */
@Timeout(120)
class OkHttpClassLoadingIT {
    private static final Duration WAIT = Duration.ofSeconds(10);

    /** OkHttp 5 in a child class loader runs the whole client contract: a target of {@link OkHttpAgentIT}. */
    @ParameterizedTest
    @EnumSource(names = {"OKHTTP_4"})
    void okHttpInAChildClassLoaderIsRetried(ClientLibs libs) {
        childLoader(libs, ForkedApp.defaultJava(), "");
    }

    /** Java 25: opening java.lang to the agent and defining classes in another loader still work. */
    @ParameterizedTest
    @EnumSource(names = {"OKHTTP_5"})
    void okHttpInAChildClassLoaderIsRetriedOnJava25(ClientLibs libs) {
        childLoader(libs, Jdks.version(25).java(), "-java25");
    }

    private static void childLoader(ClientLibs libs, Path java, String suffix) {
        try (ScriptedServer sync = ScriptedServer.start(Step.status(503), Step.ok().body("sync"));
             ScriptedServer async = ScriptedServer.start(Step.status(502), Step.ok().body("async"))) {
            ForkedApp.Result run = ChildLoaderLauncher.app(BatchApp.class, libs).args("okhttp")
                    .name("okhttp-child-loader-" + libs + suffix).java(java)
                    .policy(ClientContract.POLICY).agentArg("log", "debug")
                    .args("--call", OkHttpAgentIT.call("sync", sync.url("/s"), "sync"),
                            "--call", OkHttpAgentIT.call("async", async.url("/a"), "async"))
                    .run().assertExitCode(0);
            assertEquals("application", run.single("LAUNCHER").get("loader"));
            assertEquals(libs.version(), run.single("APP").get("version"));
            assertEquals("sync", Runs.result(run, "sync").get("body"), run.describe());
            assertEquals("async", Runs.result(run, "async").get("body"), run.describe());
            for (ScriptedServer server : List.of(sync, async)) {
                List<RecordedRequest> seen = server.awaitRequests(2, WAIT);
                assertEquals(List.of("1", "2"), Runs.markers(seen));
            }
            assertTrue(Runs.logged(run, "adapter client=okhttp defined-in=java.net.URLClassLoader"),
                    run.describe());
            assertEquals(1, run.single("INTERCEPTORS").getInt("agent"));
        }
    }

    /** The application's own Byte Buddy (unrelocated, another version) keeps working next to the agent. */
    @ParameterizedTest
    @EnumSource(names = {"OKHTTP_4", "OKHTTP_5"})
    void anApplicationWithItsOwnByteBuddyKeepsWorking(ClientLibs libs) throws IOException {
        Path byteBuddy = applicationByteBuddy();
        Path dir = Files.createTempDirectory(Files.createDirectories(ForkedApp.workRoot()), "own-byte-buddy-app-");
        Path source = dir.resolve("OwnByteBuddyApp.java");
        Files.writeString(source, """
                import static net.bytebuddy.matcher.ElementMatchers.named;

                import net.bytebuddy.ByteBuddy;
                import net.bytebuddy.implementation.FixedValue;
                import okhttp3.OkHttpClient;
                import okhttp3.Request;
                import okhttp3.Response;

                public class OwnByteBuddyApp {
                    public static void main(String[] args) throws Exception {
                        Class<?> made = new ByteBuddy().subclass(Object.class).name("app.Generated")
                                .method(named("toString")).intercept(FixedValue.value("made-by-the-app"))
                                .make().load(OwnByteBuddyApp.class.getClassLoader()).getLoaded();
                        System.out.println("BYTEBUDDY made=" + made.getDeclaredConstructor().newInstance()
                                + " from=" + ByteBuddy.class.getProtectionDomain().getCodeSource().getLocation());
                        try (Response r = new OkHttpClient().newCall(new Request.Builder().url(args[0]).build()).execute()) {
                            System.out.println("RESULT status=" + r.code() + " body=" + r.body().string());
                        }
                        System.exit(0);
                    }
                }
                """);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        String compileClassPath = Stream.concat(Stream.of(byteBuddy), ClientLibs.OKHTTP_4.jars().stream())
                .map(Path::toString).collect(Collectors.joining(File.pathSeparator));
        assertEquals(0, javac.run(null, null, null, "-d", dir.toString(), "-cp", compileClassPath, source.toString()));

        try (ScriptedServer server = ScriptedServer.start(Step.status(503), Step.ok().body("done"))) {
            ForkedApp.Result run = ForkedApp.of("OwnByteBuddyApp").name("okhttp-own-byte-buddy-" + libs)
                    .clientLibs(libs).classpath(dir).classpath(byteBuddy).policy(ClientContract.POLICY)
                    .args(server.url("/x")).run().assertExitCode(0);
            assertEquals("made-by-the-app", run.single("BYTEBUDDY").get("made"), run.describe());
            assertTrue(run.single("BYTEBUDDY").get("from").contains(byteBuddy.getFileName().toString()), run.describe());
            assertEquals("done", run.result().get("body"), run.describe());
            assertEquals(List.of("1", "2"), Runs.markers(server.awaitRequests(2, WAIT)));
        }
    }

    /**
     * The application's Byte Buddy ({@code app.byte-buddy.version} in the pom, not the agent's), which
     * maven-dependency-plugin copies in pre-integration-test to {@code target/client-libs/own-byte-buddy/}, passed in
     * as system property {@code retry.agent.it.libs.own-byte-buddy}. Fails if it is not there.
     */
    private static Path applicationByteBuddy() {
        String configured = System.getProperty("retry.agent.it.libs.own-byte-buddy");
        Path dir = configured != null && !configured.isBlank()
                ? Paths.get(configured)
                : Paths.get("target", "client-libs", "own-byte-buddy").toAbsolutePath();
        String version = System.getProperty("retry.agent.it.version.own-byte-buddy");
        String name = version != null && !version.isBlank() ? "byte-buddy-" + version + ".jar" : null;
        List<Path> jars;
        try (Stream<Path> files = Files.list(dir)) {
            jars = files.filter(p -> p.getFileName().toString().startsWith("byte-buddy-")
                            && p.getFileName().toString().endsWith(".jar"))
                    .filter(p -> name == null || p.getFileName().toString().equals(name))
                    .sorted().collect(Collectors.toList());
        } catch (IOException e) {
            throw new IllegalStateException("the application's Byte Buddy not found at " + dir
                    + " (maven-dependency-plugin copies it in pre-integration-test: run mvn verify)", e);
        }
        if (jars.size() != 1) {
            throw new IllegalStateException("expected one " + (name != null ? name : "byte-buddy-*.jar") + " in " + dir
                    + ", found " + jars);
        }
        return jars.get(0);
    }
}
