package dev.retryagent.agent.okhttp;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.instrument.HookPoint;
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
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.FieldVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;

class OkHttpInstrumentationTest {
    private final OkHttpInstrumentation instrumentation = new OkHttpInstrumentation();

    /**
     * Every hook point names a real method of OkHttp 4.12 or 5.x, and every hook has its method in both (the
     * follow-up hook has one descriptor per major version).
     */
    @Test
    void everyHookPointNamesARealMethodOfOkHttp4And5() throws IOException {
        List<HookPoint> points = instrumentation.hookPoints();
        Path okhttp5 = okHttp5Jar();
        Map<String, Set<String>> hooksFound4 = new HashMap<>();
        Map<String, Set<String>> hooksFound5 = new HashMap<>();
        for (HookPoint point : points) {
            String method = point.methodName() + point.descriptor();
            boolean in4 = methodsOf(point.internalName(), null).contains(method);
            boolean in5 = methodsOf(point.internalName(), okhttp5).contains(method);
            assertTrue(in4 || in5, point + " is in neither OkHttp 4.12 nor 5.x");
            hooksFound4.computeIfAbsent(point.hook(), h -> new HashSet<>()).add(in4 ? method : "");
            hooksFound5.computeIfAbsent(point.hook(), h -> new HashSet<>()).add(in5 ? method : "");
        }
        for (String hook : hooksFound4.keySet()) {
            assertTrue(hooksFound4.get(hook).stream().anyMatch(m -> !m.isEmpty()), hook + " has no method in 4.12");
            assertTrue(hooksFound5.get(hook).stream().anyMatch(m -> !m.isEmpty()), hook + " has no method in 5.x");
        }
    }

    /**
     * What {@code OkHttpRequests.reusedConnection} reads, by name, is there in 4.12 and 5.x: the call's public
     * {@code getConnection()} and the connection's {@code routeFailureCount} (an int).
     */
    @Test
    void theConnectionReuseAccessorsExistInOkHttp4And5() throws IOException {
        Path okhttp5 = okHttp5Jar();
        for (Path jar : java.util.Arrays.asList(null, okhttp5)) {
            String version = jar == null ? "4.12" : "5.x";
            assertTrue(methodsOf("okhttp3/internal/connection/RealCall", jar)
                    .contains("getConnection()Lokhttp3/internal/connection/RealConnection;"), version);
            assertTrue(fieldsOf("okhttp3/internal/connection/RealConnection", jar).contains("routeFailureCount:I"),
                    version);
        }
    }

    private static Path okHttp5Jar() throws IOException {
        try (Stream<Path> jars = Files.list(Paths.get("target", "client-jars"))) {
            return jars.filter(p -> p.getFileName().toString().startsWith("okhttp-jvm-5")).findFirst()
                    .orElseThrow(() -> new AssertionError("okhttp-jvm 5.x not copied to target/client-jars"));
        }
    }

    /** Field names and descriptors ({@code name:desc}) of a class, from the class path (jar null) or a jar file. */
    private static Set<String> fieldsOf(String internalName, Path jar) throws IOException {
        Set<String> fields = new HashSet<>();
        byte[] bytes = classBytes(internalName, jar);
        if (bytes != null) {
            new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
                @Override
                public FieldVisitor visitField(int access, String name, String descriptor,
                                                                 String signature, Object value) {
                    fields.add(name + ":" + descriptor);
                    return null;
                }
            }, ClassReader.SKIP_CODE);
        }
        return fields;
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
        Set<String> methods = new HashSet<>();
        byte[] bytes;
        if (jar == null) {
            try (InputStream in = OkHttpClient.class.getClassLoader().getResourceAsStream(internalName + ".class")) {
                bytes = in.readAllBytes();
            }
        } else {
            try (ZipFile zip = new ZipFile(jar.toFile())) {
                ZipEntry entry = zip.getEntry(internalName + ".class");
                if (entry == null) {
                    return methods;
                }
                try (InputStream in = zip.getInputStream(entry)) {
                    bytes = in.readAllBytes();
                }
            }
        }
        new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                methods.add(name + descriptor);
                return null;
            }
        }, ClassReader.SKIP_CODE);
        return methods;
    }
}
