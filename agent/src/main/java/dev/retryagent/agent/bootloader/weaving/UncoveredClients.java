package dev.retryagent.agent.bootloader.weaving;

import dev.retryagent.engine.RetryLog;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;

/**
 * The HTTP clients the agent does not instrument, seen by the class file transformer when the JVM loads one: per
 * client kind, the first class that showed it, logged once ({@code retry-agent uncovered-client name=KIND ...}) and
 * kept for the JVM ({@link #jvm()}, which the metrics' {@code retry-agent:type=agent} MBean lists).
 *
 * <p>Detection is by exact internal class name, one {@link HashMap} lookup per loaded class that is not hooked: no
 * class is parsed and no call pays anything. Each name is a class that every use of its client loads: its main
 * implementation class, or a base class every variant of it extends.
 *
 * <p>Lives in the boot loader with the transformer, so there is one record per JVM whatever loader the agent's other
 * classes came from. JDK types only.
 */
public final class UncoveredClients {

    /** One client kind as first seen: its name, the class that showed it and the class loader's class. */
    public static final class Seen {
        public final String kind;
        public final String className;
        public final String loader;

        Seen(String kind, String className, String loader) {
            this.kind = kind;
            this.className = className;
            this.loader = loader;
        }
    }

    private static final UncoveredClients JVM = new UncoveredClients(knownClients());

    /** Internal class name to client kind. Never changed after construction. */
    private final Map<String, String> kinds;
    /** The same by binary name, for the classes loaded before the transformer was added. */
    private final Map<String, String> binaryKinds = new HashMap<String, String>();
    /** In the order first seen; guarded by itself. */
    private final List<Seen> seen = new ArrayList<Seen>();

    /** A record of its own over {@code kinds} (internal class name to kind); the JVM's is {@link #jvm()}. */
    public UncoveredClients(Map<String, String> kinds) {
        this.kinds = kinds;
        for (Map.Entry<String, String> e : kinds.entrySet()) {
            binaryKinds.put(e.getKey().replace('/', '.'), e.getValue());
        }
    }

    /** The JVM's record. */
    public static UncoveredClients jvm() {
        return JVM;
    }

    /**
     * The clients, by a class every use of them loads. Not listed: HttpClient 5's {@code InternalH2AsyncClient}
     * ({@code H2AsyncClientBuilder}, {@code createHttp2Default()}): its exec chain has the {@code AsyncProtocolExec}
     * the agent hooks, where a client without the agent's retry handler has its calls retried.
     */
    static Map<String, String> knownClients() {
        Map<String, String> m = new HashMap<String, String>();
        // Jetty 9 to 12 (and Spring's JettyClientHttpConnector).
        m.put("org/eclipse/jetty/client/HttpClient", "jetty-client");
        // AsyncHttpClient 2.x and 3.x: Dsl.asyncHttpClient() and new DefaultAsyncHttpClient(...).
        m.put("org/asynchttpclient/DefaultAsyncHttpClient", "async-http-client");
        // Vert.x 4 and 5 WebClient.create(...) / wrap(...), WebClientSession extends it.
        m.put("io/vertx/ext/web/client/impl/WebClientBase", "vertx-web-client");
        // Armeria: the base class of its user-facing clients (DefaultWebClient; RestClient and BlockingWebClient
        // wrap a WebClient).
        m.put("com/linecorp/armeria/client/UserClient", "armeria");
        // The AWS SDK for Java 2's asynchronous Netty client.
        m.put("software/amazon/awssdk/http/nio/netty/NettyNioAsyncHttpClient", "aws-sdk-netty");
        // The AWS SDK's CRT clients, sync and async (their common base first: the Java classes load without the
        // native library).
        m.put("software/amazon/awssdk/http/crt/AwsCrtHttpClientBase", "aws-sdk-crt");
        m.put("software/amazon/awssdk/http/crt/AwsCrtAsyncHttpClient", "aws-sdk-crt");
        m.put("software/amazon/awssdk/http/crt/AwsCrtHttpClient", "aws-sdk-crt");
        // HttpClient 5's async clients without an exec chain: HttpAsyncClients.createMinimal() and
        // createHttp2Minimal() (the HTTP/2-only one).
        m.put("org/apache/hc/client5/http/impl/async/MinimalHttpAsyncClient", "apache-httpclient5-async-minimal");
        m.put("org/apache/hc/client5/http/impl/async/MinimalH2AsyncClient", "apache-httpclient5-h2-minimal");
        // Micronaut 3 and 4's Netty client: HttpClient.create(...), the injected and the declarative (@Client)
        // clients are all this class (Micronaut 4's JDK client runs over java.net.http, which is covered).
        m.put("io/micronaut/http/client/netty/DefaultHttpClient", "micronaut-http-client");
        // Helidon 4's WebClient.create()/builder(), and Http1Client and Http2Client, which are built over one.
        m.put("io/helidon/webclient/api/LoomClient", "helidon-webclient");
        // Helidon 2 and 3's WebClient.builder().build().
        m.put("io/helidon/webclient/NettyClient", "helidon-webclient");
        // Vert.x 4 and 5's core HTTP client: vertx.createHttpClient(...), the HttpClientBuilder, and what runs over
        // it (the Vert.x WebClient, Quarkus' REST Client Reactive).
        m.put("io/vertx/core/http/impl/HttpClientImpl", "vertx-http-client");
        // Ktor's CIO engine (Ktor 2 and 3): every HttpClient(CIO) builds one. Ktor's OkHttp and Java engines run
        // over OkHttp's Call.enqueue and java.net.http's sendAsync, which are covered.
        m.put("io/ktor/client/engine/cio/CIOEngine", "ktor-cio");
        // gRPC's channels, which the agent does not retry: every Netty channel is built by NettyChannelBuilder
        // (directly, or through ManagedChannelBuilder and Grpc.newChannelBuilder), plain or shaded.
        m.put("io/grpc/netty/NettyChannelBuilder", "grpc-netty");
        m.put("io/grpc/netty/shaded/io/grpc/netty/NettyChannelBuilder", "grpc-netty");
        // grpc-okhttp's channel: it runs over its own copy of OkHttp's internals (io.grpc.okhttp.internal), not
        // okhttp3, so the OkHttp hooks never see it.
        m.put("io/grpc/okhttp/OkHttpChannelBuilder", "grpc-okhttp");
        return m;
    }

    /**
     * Called by the transformer for a loaded class that is not hooked: one map lookup, and for the first class of
     * an uncovered client kind, a record and a log line. Never throws.
     */
    public void classLoaded(String internalName, ClassLoader loader) {
        String kind = kinds.get(internalName);
        if (kind != null) {
            found(kind, internalName, loader);
        }
    }

    /** The same for a class loaded before the transformer was added (an attach): one lookup by binary name. */
    public void loadedEarlier(Class<?> c) {
        String kind = binaryKinds.get(c.getName());
        if (kind != null) {
            found(kind, c.getName(), c.getClassLoader());
        }
    }

    private void found(String kind, String internalName, ClassLoader loader) {
        try {
            Seen first;
            synchronized (seen) {
                for (Seen s : seen) {
                    if (s.kind.equals(kind)) {
                        return;
                    }
                }
                // The loader's class name only: its toString() is application code.
                first = new Seen(kind, internalName.replace('/', '.'),
                        loader == null ? "bootstrap" : loader.getClass().getName());
                seen.add(first);
            }
            // WARNING: shown at the default log=info and at log=warn, since these calls run without retries.
            RetryLog.agent(Level.WARNING, "uncovered-client name=" + first.kind + " class=" + first.className
                    + " loader=" + first.loader + "; its calls are not retried by the agent");
        } catch (Throwable t) {
            if (t instanceof VirtualMachineError) {
                throw (VirtualMachineError) t;
            }
            RetryLog.internalError("uncovered-client", t, "this client is not reported; retries go on");
        }
    }

    /** The kinds seen so far, in the order first seen. */
    public List<Seen> seen() {
        synchronized (seen) {
            return Collections.unmodifiableList(new ArrayList<Seen>(seen));
        }
    }

    /** The kinds seen so far, comma-separated in the order first seen; empty when none. */
    public String names() {
        StringBuilder b = new StringBuilder();
        for (Seen s : seen()) {
            b.append(b.length() == 0 ? "" : ",").append(s.kind);
        }
        return b.toString();
    }
}
