package dev.retryagent.agent.bootloader.httpurlconnection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.ClassFileMembers;
import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.agent.clients.httpurlconnection.JdkClassFiles;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.Policy;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/**
 * The private state a re-issue resets, against the JDK's class files ({@link JdkClassFiles}: the running JDK's, and
 * Java 8's, 11's, 17's and 25's). And failing open where that state
 * cannot be reached (this test JVM: nothing opened {@code java.base} to it, as premain does for the agent's bootstrap
 * classes).
 */
class ConnectionStateTest {
    /** The JDKs with {@code synchronized} methods instead of {@code connectionLock} and no delegating socket. */
    private static final List<String> OLD_JDKS = List.of("java8", "java11");

    private static Map<String, byte[]> onEveryJdk(String binaryName) {
        return JdkClassFiles.of(binaryName);
    }

    /** Fields as {@code name descriptor}, then methods as {@code name+descriptor}. */
    private static List<String> members(byte[] classFile) {
        List<String> members = new ArrayList<>(ClassFileMembers.fields(classFile));
        members.addAll(ClassFileMembers.methods(classFile));
        return members;
    }

    @Test
    void everyFieldAndMethodTheResetUsesExistsOnEveryJdk() throws IOException {
        String messageHeader = "Lsun/net/www/MessageHeader;";
        Map<String, String> implFields = new LinkedHashMap<>();
        implFields.put("inputStream", "Ljava/io/InputStream;");
        implFields.put("rememberedException", "Ljava/lang/Exception;");
        implFields.put("responses", messageHeader);
        implFields.put("requests", messageHeader);
        implFields.put("setRequests", "Z");
        implFields.put("failedOnce", "Z");
        implFields.put("errorStream", "Ljava/io/InputStream;");
        implFields.put("cachedInputStream", "Ljava/io/InputStream;");
        implFields.put("filteredHeaders", "Ljava/util/Map;");
        implFields.put("connectionLock", "Ljava/util/concurrent/locks/ReentrantLock;");
        implFields.put("userHeaders", messageHeader);
        implFields.put("cachedHeaders", messageHeader);
        implFields.put("poster", "Lsun/net/www/http/PosterOutputStream;");
        implFields.put("rememberedExceptionOut", "Ljava/lang/Exception;");
        assertEquals(implFields.keySet().size(), HttpUrlConnectionFields.REQUIRED_FIELDS.size() + HttpUrlConnectionFields.OPTIONAL_FIELDS.size());
        assertTrue(implFields.keySet().containsAll(HttpUrlConnectionFields.REQUIRED_FIELDS));
        assertTrue(implFields.keySet().containsAll(HttpUrlConnectionFields.OPTIONAL_FIELDS));

        Map<String, byte[]> impl = onEveryJdk(HttpUrlConnectionFields.IMPL);
        impl.forEach((jdk, bytes) -> {
            List<String> members = members(bytes);
            // Java 8 and 11 lock the connection with synchronized methods: the optional lock is not there
            boolean lockExpected = !OLD_JDKS.contains(jdk);
            // Java 25 remembers a failure of getOutputStream(); earlier JDKs only disconnect
            boolean rememberedOutExpected = jdk.equals("java25")
                    || jdk.equals("running") && Runtime.version().feature() >= 25;
            implFields.forEach((name, type) -> assertEquals(
                    name.equals("connectionLock") ? lockExpected
                            : !name.equals("rememberedExceptionOut") || rememberedOutExpected,
                    members.contains(name + " " + type), name + " on " + jdk));
            assertTrue(members.contains("streaming()Z"), jdk);
            assertTrue(members.contains("disconnect()V"), jdk);
        });
        onEveryJdk("java.net.URLConnection").forEach((jdk, bytes) ->
                assertTrue(members(bytes).contains("connected Z"), jdk));
        onEveryJdk("java.net.HttpURLConnection").forEach((jdk, bytes) ->
                assertTrue(members(bytes).containsAll(List.of("responseMessage Ljava/lang/String;", "responseCode I")),
                        jdk));
        onEveryJdk("sun.net.www.MessageHeader").forEach((jdk, bytes) -> {
            List<String> members = members(bytes);
            for (String method : List.of("reset()V", "set(Ljava/lang/String;Ljava/lang/String;)V",
                    "getKey(I)Ljava/lang/String;", "getValue(I)Ljava/lang/String;", "remove(Ljava/lang/String;)V",
                    "findValue(Ljava/lang/String;)Ljava/lang/String;")) {
                assertTrue(members.contains(method), method + " on " + jdk);
            }
        });
        assertTrue(impl.size() >= 1);
    }

    /**
     * The kept-alive connection check without a wait reaches the socket's descriptor and polls it the same way on
     * every JDK: the client's socket, the socket's implementation (behind the JDK's delegating one where it has one),
     * its descriptor, and {@code Net.poll} with {@code POLLIN}; and the JDK's 1 ms check it falls back to.
     */
    @Test
    void theIdleConnectionCheckFindsItsMembersOnEveryJdk() throws IOException {
        onEveryJdk("sun.net.NetworkClient").forEach((jdk, bytes) ->
                assertTrue(members(bytes).contains("serverSocket Ljava/net/Socket;"), jdk));
        onEveryJdk("java.net.Socket").forEach((jdk, bytes) ->
                assertTrue(members(bytes).stream().anyMatch(m -> m.startsWith("impl Ljava/net/SocketImpl;")), jdk));
        onEveryJdk("java.net.SocketImpl").forEach((jdk, bytes) ->
                assertTrue(members(bytes).contains("fd Ljava/io/FileDescriptor;"), jdk));
        // Java 13 and later put the socket's implementation behind a delegating one; 8 and 11 have none
        Map<String, byte[]> delegating = JdkClassFiles.present("java.net.DelegatingSocketImpl");
        assertEquals(List.of("running", "java17", "java25"), List.copyOf(delegating.keySet()));
        delegating.forEach((jdk, bytes) -> assertTrue(members(bytes).contains("delegate Ljava/net/SocketImpl;"), jdk));
        onEveryJdk("sun.nio.ch.Net").forEach((jdk, bytes) -> {
            List<String> members = members(bytes);
            assertTrue(members.contains("poll(Ljava/io/FileDescriptor;IJ)I"), jdk);
            assertTrue(members.contains("POLLIN S"), jdk);
        });
        onEveryJdk("sun.net.www.http.HttpClient").forEach((jdk, bytes) ->
                assertTrue(members(bytes).contains("available()Z"), jdk));
    }

    /** A status line gives the code {@code getResponseCode()} gives for it, read without that getter. */
    @Test
    void aStatusLineIsReadAsGetResponseCodeReadsIt() throws IOException {
        for (String line : List.of("HTTP/1.1 503 Service Unavailable", "HTTP/1.1 417", "HTTP/1.0 200 OK",
                "HTTP/1.1 200  two spaces", "HTTP/1.1  200 OK", "HTTP/1.1 2x0 OK", "HTTP/1.1", "HTTP/2 200", "ICY 200 OK",
                "")) {
            assertEquals(jdkResponseCode(line), HttpUrlConnectionFields.statusOf(line), line);
        }
    }

    /** What the JDK's own {@code getResponseCode()} makes of a connection whose status line is {@code line}. */
    private static int jdkResponseCode(String line) throws IOException {
        return new HttpURLConnection(new URL("http://127.0.0.1:9/")) {
            @Override
            public InputStream getInputStream() {
                return null;
            }

            @Override
            public String getHeaderField(int n) {
                return n == 0 ? line : null;
            }

            @Override
            public void connect() {
            }

            @Override
            public void disconnect() {
            }

            @Override
            public boolean usingProxy() {
                return false;
            }
        }.getResponseCode();
    }

    /**
     * Without access to java.base's internals (no agent opened them here), the state is unavailable: logged once,
     * and every read runs as the JDK runs it alone (the hook answers PROCEED). Streaming marks are skipped too.
     */
    @Test
    void withoutAccessTheJdkIsLeftToItselfAndThatIsLoggedOnce() throws IOException {
        List<LogRecord> records = new ArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                records.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        RetryLog.logger().addHandler(capture);
        try {
            RetryRuntime.install(Policy.builtIn());
            HttpURLConnection conn = (HttpURLConnection) new URL("http://127.0.0.1:9/x").openConnection();
            HttpUrlConnectionHooks hooks = new HttpUrlConnectionHooks();
            assertSame(Hooks.PROCEED, hooks.onEnterMayReplace(HttpUrlConnectionHooks.GET_INPUT_STREAM, conn, new Object[0]));
            assertSame(Hooks.PROCEED, hooks.onEnterMayReplace(HttpUrlConnectionHooks.GET_INPUT_STREAM, conn, new Object[0]));
            assertFalse(hooks.onEnter(HttpUrlConnectionHooks.GET_OUTPUT_STREAM, conn, new Object[0]));
            assertNull(HttpUrlConnectionFields.get());
            long logged = records.stream().filter(r -> r.getMessage().contains("where=httpurlconnection.state")).count();
            assertEquals(1, logged, "logged once");
        } finally {
            RetryLog.logger().removeHandler(capture);
        }
    }

    @Test
    void otherHooksAndOtherObjectsAreLeftAlone() {
        HttpUrlConnectionHooks hooks = new HttpUrlConnectionHooks();
        assertSame(Hooks.PROCEED, hooks.onEnterMayReplace("okhttp.execute", new Object(), new Object[0]));
        assertSame(Hooks.PROCEED, hooks.onEnterMayReplace(HttpUrlConnectionHooks.GET_INPUT_STREAM, "not a connection",
                new Object[0]));
        assertFalse(hooks.onEnter("something", null, new Object[0]));
    }
}
