package dev.retryagent.agent.clients.jdkhttp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.ClassFileMembers;
import dev.retryagent.agent.clients.httpurlconnection.JdkClassFiles;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.agent.bootloader.weaving.HookWeaver;
import dev.retryagent.policy.FailureKind;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;

/**
 * The java.net.http hook points and the internal state the adapter touches, against the class files of the running
 * JDK and of Java 11, 17 and 25 ({@link JdkClassFiles}); the adapter's reflective request copy, publisher and failure
 * rules. The forked-JVM integration tests (JdkHttpClientAgentIT) run the real thing on those JDKs.
 */
class JdkHttpInstrumentationTest {
    /** The JDKs {@code java.net.http} is in: all that {@link JdkClassFiles} reads but Java 8. */
    private static final List<String> JDKS = List.of("running", "java11", "java17", "java25");

    private final JdkHttpInstrumentation instrumentation = new JdkHttpInstrumentation();

    @Test
    void describesTheClient() {
        assertEquals("jdk-httpclient", instrumentation.name());
        assertEquals(JdkHttpHooks.class.getName(), instrumentation.handlerClass());
        assertEquals(6, instrumentation.hookPoints().size());
    }

    @Test
    void everyHookPointNamesAConcreteMethodOnEveryJdk() {
        Map<String, byte[]> impl = classFiles(JdkHttpInstrumentation.CLIENT_IMPL);
        Map<String, byte[]> mex = classFiles(JdkHttpInstrumentation.MULTI_EXCHANGE);
        List<HookPoint> points = instrumentation.hookPoints();
        for (HookPoint point : List.of(points.get(0), points.get(1), points.get(5))) {
            impl.forEach((jdk, bytes) -> {
                assertTrue(members(bytes, false).contains(point.methodName() + point.descriptor()), point + " on " + jdk);
                assertNotNull(HookWeaver.weave(bytes, List.of(point)), point + " weaves on " + jdk);
            });
        }
        // the resend decision: one of its two descriptors on each JDK (Java 17 updates differ)
        mex.forEach((jdk, bytes) -> assertNotNull(HookWeaver.weave(bytes, points.subList(2, 4)), "resend hook on " + jdk));
        HookPoint exchange = points.get(4);
        mex.forEach((jdk, bytes) -> {
            assertTrue(members(bytes, false).contains(exchange.methodName() + exchange.descriptor()), exchange + " on " + jdk);
            assertNotNull(HookWeaver.weave(bytes, List.of(exchange)), exchange + " weaves on " + jdk);
            List<String> fields = members(bytes, true);
            assertTrue(fields.contains("responseHandler Ljava/net/http/HttpResponse$BodyHandler;"), jdk + " " + fields);
            assertTrue(fields.contains("retriedOnce Z") || fields.contains("expiredOnce Z"), jdk + " " + fields);
            assertTrue(fields.contains("currentreq Ljdk/internal/net/http/HttpRequestImpl;"), jdk + " " + fields);
        });
    }

    /** The publishers taken as replayable exist under these names on every JDK. */
    @Test
    void theReplayablePublishersAreTheJdksOwn() throws Exception {
        for (String name : List.of("ByteArrayPublisher", "StringPublisher", "EmptyPublisher", "FilePublisher")) {
            Map<String, byte[]> files = classFiles("jdk.internal.net.http.RequestPublishers$" + name);
            assertEquals(JDKS, List.copyOf(files.keySet()), name);
        }
        Path file = Files.createTempFile("publisher", ".txt");
        try {
            assertTrue(JdkHttpRequests.replayable(HttpRequest.BodyPublishers.ofString("a")));
            assertTrue(JdkHttpRequests.replayable(HttpRequest.BodyPublishers.ofByteArray(new byte[1])));
            assertTrue(JdkHttpRequests.replayable(HttpRequest.BodyPublishers.noBody()));
            assertTrue(JdkHttpRequests.replayable(HttpRequest.BodyPublishers.ofFile(file)));
            assertTrue(JdkHttpRequests.replayable(null));
            assertFalse(JdkHttpRequests.replayable(HttpRequest.BodyPublishers.ofInputStream(() -> null)));
            assertFalse(JdkHttpRequests.replayable(HttpRequest.BodyPublishers.fromPublisher(
                    (Flow.Subscriber<? super ByteBuffer> s) -> { })));
            assertFalse(JdkHttpRequests.replayable(HttpRequest.BodyPublishers.ofByteArrays(List.of())));
        } finally {
            Files.delete(file);
        }
    }

    /** The marked copy is the request with one header more: method, body, timeout, version and headers kept. */
    @Test
    void theMarkedCopyKeepsEverythingElse() {
        JdkHttpApi api = JdkHttpApi.of(HttpRequest.class);
        HttpRequest.BodyPublisher body = HttpRequest.BodyPublishers.ofString("payload");
        HttpRequest original = HttpRequest.newBuilder(URI.create("http://127.0.0.1:1/a?q=1"))
                .header("X-Multi", "1").header("X-Multi", "2").timeout(Duration.ofSeconds(7)).expectContinue(true)
                .version(java.net.http.HttpClient.Version.HTTP_1_1).method("PATCH", body).build();
        HttpRequest copy = (HttpRequest) api.withHeader(original, "Retry-Attempt", "2");
        assertEquals(original.uri(), copy.uri());
        assertEquals("PATCH", copy.method());
        assertTrue(copy.bodyPublisher().orElseThrow() == body);
        assertEquals(original.timeout(), copy.timeout());
        assertEquals(original.version(), copy.version());
        assertTrue(copy.expectContinue());
        assertEquals(List.of("1", "2"), copy.headers().allValues("x-multi"));
        assertEquals(List.of("2"), copy.headers().allValues("Retry-Attempt"));
        HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:1/")).GET().build();
        HttpRequest getCopy = (HttpRequest) api.withHeader(get, "Retry-Attempt", "1");
        assertEquals("GET", getCopy.method());
        assertTrue(getCopy.bodyPublisher().isEmpty(), "a GET without body stays without");
    }

    /** Both ways to copy (newBuilder(request, filter) on Java 16+, the accessors before) make the same request. */
    @Test
    void bothCopiesAreTheSame() {
        JdkHttpApi api = JdkHttpApi.of(HttpRequest.class);
        URI uri = URI.create("http://127.0.0.1:1/b");
        List<HttpRequest> requests = List.of(
                HttpRequest.newBuilder(uri).GET().build(),
                HttpRequest.newBuilder(uri).DELETE().header("X-A", "1").build(),
                HttpRequest.newBuilder(uri).method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
                HttpRequest.newBuilder(uri).method("OPTIONS", HttpRequest.BodyPublishers.noBody()).build(),
                HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.ofString("x"))
                        .timeout(Duration.ofSeconds(3)).version(java.net.http.HttpClient.Version.HTTP_2).build());
        for (HttpRequest request : requests) {
            HttpRequest a = (HttpRequest) api.withHeader(request, "Retry-Attempt", "3");
            HttpRequest b = (HttpRequest) api.copyWithHeader(request, "Retry-Attempt", "3");
            String what = request.method();
            assertEquals(b.method(), a.method(), what);
            assertEquals(b.uri(), a.uri(), what);
            assertEquals(b.headers().map(), a.headers().map(), what);
            assertEquals(List.of("3"), a.headers().allValues("retry-attempt"), what);
            assertEquals(b.bodyPublisher().isPresent(), a.bodyPublisher().isPresent(), what);
            assertEquals(request.bodyPublisher().isPresent(), a.bodyPublisher().isPresent(), what);
            assertEquals(b.timeout(), a.timeout(), what);
            assertEquals(b.version(), a.version(), what);
            assertEquals(b.expectContinue(), a.expectContinue(), what);
        }
    }

    @Test
    void failuresAreClassifiedByTheirJdkTypes() {
        assertEquals(FailureKind.CONNECT, JdkHttpRequests.classifyFailure(new ConnectException("refused")));
        assertEquals(FailureKind.CONNECT, JdkHttpRequests.classifyFailure(new HttpConnectTimeoutException("connect")));
        assertEquals(FailureKind.TIMEOUT, JdkHttpRequests.classifyFailure(new HttpTimeoutException("request timed out")));
        assertEquals(FailureKind.RESET, JdkHttpRequests.classifyFailure(new EOFException("EOF reached while reading")));
        assertEquals(FailureKind.RESET, JdkHttpRequests.classifyFailure(
                new IOException("EOF reached while reading", new EOFException())));
        assertEquals(FailureKind.RESET, JdkHttpRequests.classifyFailure(new IOException("HTTP/1.1 header parser received no bytes",
                new IOException("connection closed locally"))));
        assertEquals(FailureKind.OTHER, JdkHttpRequests.classifyFailure(new IOException("Invalid Http response")));
        assertEquals(FailureKind.OTHER, JdkHttpRequests.classifyFailure(new java.net.UnknownHostException("nowhere")));
    }

    /** Class file bytes of {@code binaryName} (in java.net.http) per JDK: the running one, then Java 11, 17, 25. */
    static Map<String, byte[]> classFiles(String binaryName) {
        Map<String, byte[]> files = JdkClassFiles.present(binaryName);
        assertEquals(JDKS, List.copyOf(files.keySet()), binaryName);
        return files;
    }

    /** Concrete methods as {@code name+descriptor}, or fields as {@code name descriptor}. */
    static List<String> members(byte[] classFile, boolean fields) {
        return fields ? ClassFileMembers.fields(classFile) : ClassFileMembers.concreteMethods(classFile);
    }
}
