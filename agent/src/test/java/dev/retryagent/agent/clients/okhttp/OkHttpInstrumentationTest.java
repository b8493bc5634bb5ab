package dev.retryagent.agent.clients.okhttp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.ClassFileMembers;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;

class OkHttpInstrumentationTest {
    private final OkHttpInstrumentation instrumentation = new OkHttpInstrumentation();

    /**
     * Every hook point names a real method of OkHttp 4.12 or a 5.x (5.3 and 5.5, whose private methods differ), and
     * every hook has its method in each of them (the follow-up and recover hooks have one descriptor per version).
     */
    @Test
    void everyHookPointNamesARealMethodOfOkHttp4And5() throws IOException {
        List<HookPoint> points = instrumentation.hookPoints();
        List<Path> jars = new java.util.ArrayList<>();
        jars.add(null); // 4.12, on the test class path
        jars.addAll(okHttp5Jars());
        Map<String, Set<Path>> versionsByHook = new HashMap<>();
        for (HookPoint point : points) {
            String method = point.methodName() + point.descriptor();
            boolean found = false;
            for (Path jar : jars) {
                if (methodsOf(point.internalName(), jar).contains(method)) {
                    found = true;
                    versionsByHook.computeIfAbsent(point.hook(), h -> new HashSet<>()).add(jar == null ? Paths.get("4.12") : jar);
                }
            }
            assertTrue(found, point + " is in none of OkHttp 4.12 and " + jars);
        }
        for (Map.Entry<String, Set<Path>> hook : versionsByHook.entrySet()) {
            assertEquals(jars.size(), hook.getValue().size(), hook.getKey() + " has a method only in " + hook.getValue());
        }
    }

    /**
     * What {@code OkHttpRequests.reusedConnection} reads, by name, is there in 4.12 and 5.x: the call's public
     * {@code getConnection()} and the connection's {@code routeFailureCount} (an int).
     */
    @Test
    void theConnectionReuseAccessorsExistInOkHttp4And5() throws IOException {
        List<Path> jars = new java.util.ArrayList<>();
        jars.add(null);
        jars.addAll(okHttp5Jars());
        for (Path jar : jars) {
            String version = jar == null ? "4.12" : jar.getFileName().toString();
            assertTrue(methodsOf("okhttp3/internal/connection/RealCall", jar)
                    .contains("getConnection()Lokhttp3/internal/connection/RealConnection;"), version);
            assertTrue(fieldsOf("okhttp3/internal/connection/RealConnection", jar).contains("routeFailureCount I"),
                    version);
        }
    }

    /** The okhttp-jvm 5.x jars copied to target/client-jars, the newest first. */
    private static List<Path> okHttp5Jars() throws IOException {
        try (Stream<Path> jars = Files.list(Paths.get("target", "client-jars"))) {
            List<Path> found = jars.filter(p -> p.getFileName().toString().startsWith("okhttp-jvm-5"))
                    .sorted(java.util.Comparator.comparing((Path p) -> p.getFileName().toString()).reversed())
                    .collect(java.util.stream.Collectors.toList());
            if (found.size() < 2) {
                throw new AssertionError("okhttp-jvm 5.3 and 5.5 not copied to target/client-jars: " + found);
            }
            return found;
        }
    }

    /** Fields ({@code name descriptor}) of a class, from the class path (jar null) or from a jar file. */
    private static Set<String> fieldsOf(String internalName, Path jar) throws IOException {
        byte[] bytes = classBytes(internalName, jar);
        return bytes == null ? Set.of() : new HashSet<>(ClassFileMembers.fields(bytes));
    }

    private static byte[] classBytes(String internalName, Path jar) throws IOException {
        if (jar == null) {
            try (InputStream in = OkHttpClient.class.getClassLoader().getResourceAsStream(internalName + ".class")) {
                return in == null ? null : in.readAllBytes();
            }
        }
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            ZipEntry entry = zip.getEntry(internalName + ".class");
            if (entry == null) {
                return null;
            }
            try (InputStream in = zip.getInputStream(entry)) {
                return in.readAllBytes();
            }
        }
    }

    /** Method names and descriptors of a class, from the class path (jar null) or from a jar file. */
    private static Set<String> methodsOf(String internalName, Path jar) throws IOException {
        byte[] bytes = classBytes(internalName, jar);
        return bytes == null ? Set.of() : new HashSet<>(ClassFileMembers.methods(bytes));
    }
}
