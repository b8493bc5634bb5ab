package dev.retryagent.agent.bootloader.weaving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.CapturedLog;
import dev.retryagent.engine.RetryLog;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class UncoveredClientsTest {
    private static final String HOOKED = WeaveFixture.class.getName().replace('.', '/');

    private final CapturedLog captured = new CapturedLog();
    private final List<String> log = captured.lines;

    @BeforeEach
    void captureLog() {
        captured.start(Level.INFO);
    }

    @AfterEach
    void releaseLog() {
        captured.stop();
    }

    private static HookTransformer transformer(UncoveredClients uncovered) {
        return new HookTransformer(Collections.singletonList(
                HookPoint.entry("test.send", WeaveFixture.class.getName(), "send", "(Ljava/lang/String;J[I)V")),
                uncovered);
    }

    private static byte[] load(HookTransformer t, String internalName, ClassLoader loader) {
        return t.transform(loader, internalName, null, null, new byte[] {(byte) 0xCA, (byte) 0xFE});
    }

    @Test
    void eachKnownClientIsReportedOnceByItsKindWhenTheTransformerSeesItsClass() {
        Map<String, String> known = UncoveredClients.knownClients();
        UncoveredClients uncovered = new UncoveredClients(known);
        HookTransformer t = transformer(uncovered);
        ClassLoader loader = getClass().getClassLoader();

        List<String> kindsInOrder = new ArrayList<>();
        for (Map.Entry<String, String> e : known.entrySet()) {
            assertNull(load(t, e.getKey(), loader), "left unchanged: " + e.getKey());
            assertNull(load(t, e.getKey(), loader), "a second load of it (another class loader, a retransform)");
            if (!kindsInOrder.contains(e.getValue())) {
                kindsInOrder.add(e.getValue());
            }
        }
        assertEquals(String.join(",", kindsInOrder), uncovered.names());
        List<String> lines = new ArrayList<>();
        for (UncoveredClients.Seen s : uncovered.seen()) {
            assertTrue(known.containsKey(s.className.replace('.', '/')), s.className);
            assertEquals(loader.getClass().getName(), s.loader);
            lines.add("WARNING retry-agent uncovered-client name=" + s.kind + " class=" + s.className + " loader="
                    + s.loader + "; its calls are not retried by the agent");
        }
        assertEquals(lines, log, "one line per kind, in the order first seen");
    }

    @Test
    void theKindsTheAgentIsAskedToReportAreAllThere() {
        Map<String, String> known = UncoveredClients.knownClients();
        List<String> kinds = new ArrayList<>(new java.util.LinkedHashSet<>(known.values()));
        Collections.sort(kinds);
        assertEquals(List.of("apache-httpclient5-async-minimal", "apache-httpclient5-h2-minimal", "armeria",
                "async-http-client", "aws-sdk-crt", "aws-sdk-netty", "grpc-netty", "grpc-okhttp", "helidon-webclient",
                "jetty-client", "ktor-cio", "micronaut-http-client", "vertx-http-client",
                "vertx-web-client"), kinds);
    }

    @Test
    void theHttpClient5ClassesNamedAreTheOnesItsFactoriesBuildAndNoneTheAgentHooks() throws Exception {
        // httpclient5 (the oldest version supported) is on the test class path: the names are real.
        Map<String, String> known = UncoveredClients.knownClients();
        String minimal = "org.apache.hc.client5.http.impl.async.MinimalHttpAsyncClient";
        String h2Minimal = "org.apache.hc.client5.http.impl.async.MinimalH2AsyncClient";
        Class<?> factories = Class.forName("org.apache.hc.client5.http.impl.async.HttpAsyncClients");
        assertEquals(minimal, factories.getMethod("createMinimal").getReturnType().getName());
        assertEquals(h2Minimal, factories.getMethod("createHttp2Minimal").getReturnType().getName());
        assertEquals("apache-httpclient5-async-minimal", known.get(minimal.replace('.', '/')));
        assertEquals("apache-httpclient5-h2-minimal", known.get(h2Minimal.replace('.', '/')));
        HookTransformer covered = new HookTransformer(
                new dev.retryagent.agent.clients.httpclient5.HttpClient5Instrumentation().hookPoints());
        for (String internalName : known.keySet()) {
            assertTrue(!covered.isHooked(internalName.replace('/', '.')), internalName + " is hooked");
        }
    }

    @Test
    void noClassNamedIsOneTheClientInstrumentationsHook() {
        // grpc-okhttp among them: it carries its own copy of OkHttp's internals, none of them okhttp3's classes.
        List<HookPoint> points = new ArrayList<>();
        points.addAll(new dev.retryagent.agent.clients.okhttp.OkHttpInstrumentation().hookPoints());
        points.addAll(new dev.retryagent.agent.clients.httpclient5.HttpClient5Instrumentation().hookPoints());
        points.addAll(new dev.retryagent.agent.clients.httpclient4.HttpClient4Instrumentation().hookPoints());
        points.addAll(new dev.retryagent.agent.clients.httpurlconnection.HttpUrlConnectionInstrumentation()
                .hookPoints());
        points.addAll(new dev.retryagent.agent.clients.jdkhttp.JdkHttpInstrumentation().hookPoints());
        points.addAll(new dev.retryagent.agent.clients.reactornetty.ReactorNettyInstrumentation().hookPoints());
        HookTransformer covered = new HookTransformer(points);
        for (String internalName : UncoveredClients.knownClients().keySet()) {
            assertTrue(!covered.isHooked(internalName.replace('/', '.')), internalName + " is hooked");
        }
    }

    @Test
    void otherClassesAndHookedClassesAreNotReported() {
        UncoveredClients uncovered = new UncoveredClients(UncoveredClients.knownClients());
        HookTransformer t = transformer(uncovered);
        assertNull(load(t, "org/eclipse/jetty/client/HttpClientTransport", null), "a neighbour of a listed class");
        assertNull(load(t, "org/eclipse/jetty/server/Server", null));
        assertNull(load(t, "java/lang/String", null));
        assertNull(load(t, null, null));
        // The hooked class is woven (here: not a class file, so it loads unchanged), never reported.
        assertNull(load(t, HOOKED, null));
        assertEquals("", uncovered.names());
        assertEquals(List.of(), new ArrayList<>(log).stream().filter(l -> l.contains("uncovered-client"))
                .collect(Collectors.toList()));
    }

    @Test
    void aClassOfTheBootLoaderIsReportedWithLoaderBootstrapAndAClassLoadedEarlierByItsBinaryName() {
        Map<String, String> kinds = new LinkedHashMap<>();
        kinds.put("java/util/concurrent/ConcurrentSkipListMap", "boot-kind");
        kinds.put(UncoveredClientsTest.class.getName().replace('.', '/'), "test-kind");
        UncoveredClients uncovered = new UncoveredClients(kinds);
        uncovered.classLoaded("java/util/concurrent/ConcurrentSkipListMap", null);
        uncovered.loadedEarlier(UncoveredClientsTest.class);
        uncovered.loadedEarlier(String.class);
        assertEquals("boot-kind,test-kind", uncovered.names());
        UncoveredClients.Seen boot = uncovered.seen().get(0);
        assertEquals("java.util.concurrent.ConcurrentSkipListMap", boot.className);
        assertEquals("bootstrap", boot.loader);
        UncoveredClients.Seen test = uncovered.seen().get(1);
        assertEquals(UncoveredClientsTest.class.getName(), test.className);
        assertEquals(getClass().getClassLoader().getClass().getName(), test.loader);
    }

    @Test
    void concurrentLoadsOfOneKindLogItOnce() throws Exception {
        UncoveredClients uncovered = new UncoveredClients(UncoveredClients.knownClients());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Thread th = new Thread(() -> {
                for (int n = 0; n < 1000; n++) {
                    uncovered.classLoaded("org/asynchttpclient/DefaultAsyncHttpClient", null);
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join();
        }
        assertEquals("async-http-client", uncovered.names());
        assertEquals(1, log.size(), String.valueOf(log));
    }

    @Test
    void aFailureWhileReportingNeverReachesTheClassBeingLoadedAndIsLoggedOnce() {
        java.util.logging.Handler failing = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                if (record.getMessage().contains("uncovered-client name=")) {
                    throw new IllegalStateException("a broken log handler");
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        RetryLog.logger().addHandler(failing);
        try {
            UncoveredClients uncovered = new UncoveredClients(UncoveredClients.knownClients());
            HookTransformer t = transformer(uncovered);
            assertNull(load(t, "org/eclipse/jetty/client/HttpClient", null));
            assertNull(load(t, "org/asynchttpclient/DefaultAsyncHttpClient", null));
            assertEquals("jetty-client,async-http-client", uncovered.names(), "recorded all the same");
        } finally {
            RetryLog.logger().removeHandler(failing);
        }
        List<String> errors = new ArrayList<>(log).stream().filter(l -> l.contains("internal-error"))
                .collect(Collectors.toList());
        assertEquals(List.of("WARNING retry-agent internal-error where=uncovered-client "
                + "error=java.lang.IllegalStateException; this client is not reported; retries go on"), errors);
    }
}
