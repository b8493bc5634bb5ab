package dev.retryagent.agent.clients.reactornetty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.ClassFileMembers;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import reactor.netty.http.client.HttpClient;

/**
 * The hook points and the field the adapter reads are there in every Reactor Netty line: 1.0 (on the test class path)
 * and the 1.1, 1.2 and 1.3 jars the build copies to target/client-jars.
 */
class ReactorNettyInstrumentationTest {
    private static final String ONE_ZERO = "1.0";

    @Test
    void everyHookPointNamesARealMethodOfEachReactorNettyLine() throws IOException {
        Map<String, List<Path>> lines = lines();
        assertEquals(4, lines.size(), lines.toString());
        for (HookPoint point : new ReactorNettyInstrumentation().hookPoints()) {
            for (Map.Entry<String, List<Path>> line : lines.entrySet()) {
                byte[] bytes = classBytes(point.internalName(), line.getValue());
                assertTrue(bytes != null, point.internalName() + " is not in Reactor Netty " + line.getKey());
                assertTrue(ClassFileMembers.methods(bytes).contains(point.methodName() + point.descriptor()),
                        point + " is not in Reactor Netty " + line.getKey());
            }
        }
    }

    @Test
    void theRequestsOwnResponseTimeoutIsAFieldOfEachLine() throws IOException {
        for (Map.Entry<String, List<Path>> line : lines().entrySet()) {
            byte[] bytes = classBytes(ReactorNettyInstrumentation.CLIENT_OPERATIONS.replace('.', '/'), line.getValue());
            assertTrue(bytes != null && ClassFileMembers.fields(bytes).contains("responseTimeout Ljava/time/Duration;"),
                    "HttpClientOperations.responseTimeout in " + line.getKey());
        }
    }

    /** Each line's jars (http and core), 1.0's as none: the test class path. */
    private static Map<String, List<Path>> lines() throws IOException {
        Map<String, List<Path>> lines = new TreeMap<>();
        lines.put(ONE_ZERO, List.of());
        try (Stream<Path> jars = Files.list(Paths.get("target", "client-jars"))) {
            for (Path jar : jars.filter(p -> p.getFileName().toString().startsWith("reactor-netty-"))
                    .collect(Collectors.toList())) {
                String name = jar.getFileName().toString();
                String version = name.replaceAll("^reactor-netty-(http|core)-", "").replaceAll("\\.\\d+\\.jar$", "");
                lines.computeIfAbsent(version, v -> new ArrayList<>()).add(jar);
            }
        }
        return lines;
    }

    private static byte[] classBytes(String internalName, List<Path> jars) throws IOException {
        if (jars.isEmpty()) {
            try (InputStream in = HttpClient.class.getClassLoader().getResourceAsStream(internalName + ".class")) {
                return in == null ? null : in.readAllBytes();
            }
        }
        for (Path jar : jars) {
            try (ZipFile zip = new ZipFile(jar.toFile())) {
                ZipEntry entry = zip.getEntry(internalName + ".class");
                if (entry != null) {
                    try (InputStream in = zip.getInputStream(entry)) {
                        return in.readAllBytes();
                    }
                }
            }
        }
        return null;
    }
}
