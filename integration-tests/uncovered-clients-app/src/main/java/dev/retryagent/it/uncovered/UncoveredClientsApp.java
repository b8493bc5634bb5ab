package dev.retryagent.it.uncovered;

import dev.retryagent.it.apps.Report;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;

/**
 * Builds, one after another, the HTTP clients named by its arguments, in one JVM: plain application code, no agent
 * code. Each argument is a step:
 * <ul>
 *   <li>{@code CLIENT}: builds (and closes) that client, then prints {@code RESULT step=CLIENT built=...
 *       uncovered=A,B} with what the JVM's {@code retry-agent:type=agent} MBean lists as {@code uncovered_clients}
 *       (sorted; {@code none} when empty, {@code no-mbean} when there is no such MBean). Before reading, it waits (at
 *       most 30 s) for the MBean to list that client, or, for a covered client, for the agent's {@code type=total}
 *       MBean, which is registered after the agent's: {@code okhttp} (one call to {@code --url}) and
 *       {@code apache-httpclient5-h2} (HttpClient 5's HTTP/2 default client, see {@link HttpClient5H2Default}),
 *       {@code ktor-okhttp} and {@code ktor-java} (Ktor's engines over OkHttp and {@code java.net.http}: one call to
 *       {@code --url} each);</li>
 *   <li>{@code build:CLIENT}: builds it and prints {@code BUILT step=CLIENT built=...}, nothing else
 *       ({@code grpc-netty-shaded}, whose kind is {@code grpc-netty}, is built this way);</li>
 *   <li>{@code await:CLIENT}: the {@code RESULT} line of a client built before;</li>
 *   <li>{@code @stdin}: prints {@code READY pid=N} and waits for a line on stdin.</li>
 * </ul>
 *
 * <pre>java [-javaagent:retry-agent.jar] -cp app.jar:lib/* dev.retryagent.it.uncovered.UncoveredClientsApp
 *     [--url URL] jetty-client ... okhttp reactor-netty</pre>
 */
public final class UncoveredClientsApp {
    private static final long WAIT_MILLIS = 30_000;
    /** Clients the agent instruments, which the application can build too. */
    private static final List<String> COVERED = List.of("okhttp", "apache-httpclient5-h2", "ktor-okhttp", "ktor-java",
            "reactor-netty");

    private UncoveredClientsApp() {
    }

    public static void main(String[] args) throws Exception {
        String url = null;
        List<String> steps = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if ("--url".equals(args[i])) {
                url = args[++i];
            } else {
                steps.add(args[i]);
            }
        }
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String step : steps) {
            if ("@stdin".equals(step)) {
                // Held here (an agent may be attached meanwhile) until a line arrives.
                Report.line("READY", "pid", ProcessHandle.current().pid());
                stdin.readLine();
            } else if (step.startsWith("build:")) {
                String kind = step.substring("build:".length());
                Report.line("BUILT", "step", kind, "built", build(kind, url));
            } else if (step.startsWith("await:")) {
                String kind = step.substring("await:".length());
                Report.line("RESULT", "step", kind, "built", "before", "uncovered", await(server, kind));
            } else {
                String built = build(step, url);
                String awaited = COVERED.contains(step) ? null : step;
                Report.line("RESULT", "step", step, "built", built, "uncovered", await(server, awaited));
            }
        }
    }

    /**
     * Builds (and closes) a client of {@code kind}; what became of it. Each client's code is in a class of its own,
     * so that no client class loads before its step (verifying one method that names several would load them all).
     */
    static String build(String kind, String url) throws Exception {
        switch (kind) {
            case "reactor-netty":
                return ReactorNetty.call(url);
            case "jetty-client":
                return Jetty.build();
            case "async-http-client":
                return AsyncHttp.build();
            case "vertx-web-client":
                return VertxWeb.build();
            case "armeria":
                return Armeria.build();
            case "aws-sdk-netty":
                return AwsNetty.build();
            case "aws-sdk-crt":
                return AwsCrt.build();
            case "apache-httpclient5-async-minimal":
                return HttpClient5AsyncMinimal.build();
            case "apache-httpclient5-h2-minimal":
                return HttpClient5H2Minimal.build();
            case "micronaut-http-client":
                return Micronaut.build();
            case "helidon-webclient":
                return Helidon.build();
            case "vertx-http-client":
                return VertxHttp.build();
            case "ktor-cio":
                return KtorCio.build();
            case "grpc-netty":
                return GrpcNetty.build();
            case "grpc-netty-shaded":
                return GrpcNettyShaded.build();
            case "grpc-okhttp":
                return GrpcOkHttp.build();
            case "okhttp":
                return OkHttp.call(url);
            case "ktor-okhttp":
                return KtorOkHttp.call(url);
            case "ktor-java":
                return KtorJava.call(url);
            case "apache-httpclient5-h2":
                return HttpClient5H2Default.call();
            default:
                throw new IllegalArgumentException("unknown client " + kind);
        }
    }

    static final class ReactorNetty {
        static String call(String url) {
            return "status:" + reactor.netty.http.client.HttpClient.create().get().uri(url).response()
                    .map(response -> response.status().code()).block();
        }
    }

    static final class Jetty {
        static String build() throws Exception {
            org.eclipse.jetty.client.HttpClient client = new org.eclipse.jetty.client.HttpClient();
            client.start();
            client.stop();
            return "started";
        }
    }

    static final class AsyncHttp {
        static String build() throws Exception {
            try (org.asynchttpclient.AsyncHttpClient client = org.asynchttpclient.Dsl.asyncHttpClient()) {
                return client.getClass().getSimpleName();
            }
        }
    }

    static final class VertxWeb {
        static String build() throws Exception {
            io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
            try {
                io.vertx.ext.web.client.WebClient client = io.vertx.ext.web.client.WebClient.create(vertx);
                client.close();
                return "WebClient.create";
            } finally {
                vertx.close().toCompletionStage().toCompletableFuture().get();
            }
        }
    }

    static final class Armeria {
        static String build() {
            return com.linecorp.armeria.client.WebClient.of().getClass().getSimpleName();
        }
    }

    static final class AwsNetty {
        static String build() {
            try (software.amazon.awssdk.http.async.SdkAsyncHttpClient client =
                         software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient.builder().build()) {
                return client.clientName();
            }
        }
    }

    static final class AwsCrt {
        /** The builder loads the client's classes; building needs the CRT's native library, the detection not. */
        static String build() {
            software.amazon.awssdk.http.async.SdkAsyncHttpClient.Builder<?> builder =
                    software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient.builder();
            try (software.amazon.awssdk.http.async.SdkAsyncHttpClient client = builder.build()) {
                return client.clientName();
            } catch (Throwable t) {
                return "builder-only:" + t.getClass().getSimpleName();
            }
        }
    }

    static final class HttpClient5AsyncMinimal {
        static String build() throws Exception {
            return HttpClient5.started(org.apache.hc.client5.http.impl.async.HttpAsyncClients.createMinimal());
        }
    }

    static final class HttpClient5H2Minimal {
        static String build() throws Exception {
            return HttpClient5.started(org.apache.hc.client5.http.impl.async.HttpAsyncClients.createHttp2Minimal());
        }
    }

    static final class HttpClient5 {
        static String started(org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient client) throws Exception {
            try (org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient c = client) {
                c.start();
                return c.getClass().getSimpleName();
            }
        }
    }

    /**
     * {@code HttpAsyncClients.createHttp2Default()} (an {@code InternalH2AsyncClient}, whose exec chain the agent
     * hooks) calls a loopback HTTP/2 server of its own (cleartext, prior knowledge) that answers 503 to its first
     * request and 200 to the others: {@code STATUS:MARKERS}, the markers being the {@code Retry-Attempt} headers the
     * server saw.
     */
    static final class HttpClient5H2Default {
        static String call() throws Exception {
            List<String> markers = java.util.Collections.synchronizedList(new ArrayList<>());
            org.apache.hc.core5.http.impl.bootstrap.HttpAsyncServer server =
                    org.apache.hc.core5.http2.impl.nio.bootstrap.H2ServerBootstrap.bootstrap()
                            .setCanonicalHostName("127.0.0.1")
                            .setVersionPolicy(org.apache.hc.core5.http2.HttpVersionPolicy.FORCE_HTTP_2)
                            .register("*", new Handler(markers)).create();
            server.start();
            try (org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient client =
                         org.apache.hc.client5.http.impl.async.HttpAsyncClients.createHttp2Default()) {
                java.net.InetSocketAddress address = (java.net.InetSocketAddress) server.listen(
                        new java.net.InetSocketAddress("127.0.0.1", 0), org.apache.hc.core5.http.URIScheme.HTTP)
                        .get().getAddress();
                client.start();
                org.apache.hc.client5.http.async.methods.SimpleHttpResponse response = client.execute(
                        org.apache.hc.client5.http.async.methods.SimpleRequestBuilder
                                .get("http://127.0.0.1:" + address.getPort() + "/items").build(), null).get();
                return response.getCode() + ":" + String.join(",", markers);
            } finally {
                server.close(org.apache.hc.core5.io.CloseMode.IMMEDIATE);
            }
        }

        static final class Handler implements org.apache.hc.core5.http.nio.AsyncServerRequestHandler<
                org.apache.hc.core5.http.Message<org.apache.hc.core5.http.HttpRequest, Void>> {
            private final List<String> markers;

            Handler(List<String> markers) {
                this.markers = markers;
            }

            @Override
            public org.apache.hc.core5.http.nio.AsyncRequestConsumer<
                    org.apache.hc.core5.http.Message<org.apache.hc.core5.http.HttpRequest, Void>> prepare(
                    org.apache.hc.core5.http.HttpRequest request, org.apache.hc.core5.http.EntityDetails entity,
                    org.apache.hc.core5.http.protocol.HttpContext context) {
                return new org.apache.hc.core5.http.nio.support.BasicRequestConsumer<>(
                        new org.apache.hc.core5.http.nio.entity.DiscardingEntityConsumer<>());
            }

            @Override
            public void handle(org.apache.hc.core5.http.Message<org.apache.hc.core5.http.HttpRequest, Void> message,
                               org.apache.hc.core5.http.nio.AsyncServerRequestHandler.ResponseTrigger trigger, org.apache.hc.core5.http.protocol.HttpContext context)
                    throws org.apache.hc.core5.http.HttpException, java.io.IOException {
                org.apache.hc.core5.http.Header marker = message.getHead().getFirstHeader("Retry-Attempt");
                markers.add(marker == null ? "none" : marker.getValue());
                trigger.submitResponse(new org.apache.hc.core5.http.nio.support.BasicResponseProducer(
                        markers.size() == 1 ? 503 : 200, "x"), context);
            }
        }
    }

    static final class Micronaut {
        static String build() throws Exception {
            try (io.micronaut.http.client.HttpClient client =
                         io.micronaut.http.client.HttpClient.create(new java.net.URL("http://127.0.0.1:1"))) {
                return client.getClass().getSimpleName();
            }
        }
    }

    static final class Helidon {
        /** By name: Helidon 4 is built for Java 21, this application for 17. {@code WebClient.create()}. */
        static String build() throws Exception {
            Object client = Class.forName("io.helidon.webclient.api.WebClient").getMethod("create").invoke(null);
            return client.getClass().getSimpleName();
        }
    }

    static final class VertxHttp {
        static String build() throws Exception {
            io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
            try {
                io.vertx.core.http.HttpClient client = vertx.createHttpClient();
                client.close().toCompletionStage().toCompletableFuture().get();
                return "createHttpClient";
            } finally {
                vertx.close().toCompletionStage().toCompletableFuture().get();
            }
        }
    }

    static final class KtorCio {
        /** {@code HttpClient(CIO)}. */
        static String build() {
            io.ktor.client.HttpClient client = io.ktor.client.HttpClientKt.HttpClient(
                    io.ktor.client.engine.cio.CIO.INSTANCE, config -> kotlin.Unit.INSTANCE);
            client.close();
            return client.getEngine().getClass().getSimpleName();
        }
    }

    static final class GrpcNetty {
        static String build() {
            return Grpc.built(io.grpc.netty.NettyChannelBuilder.forAddress("127.0.0.1", 1));
        }
    }

    static final class GrpcNettyShaded {
        static String build() {
            return Grpc.built(io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder.forAddress("127.0.0.1", 1));
        }
    }

    static final class GrpcOkHttp {
        static String build() {
            return Grpc.built(io.grpc.okhttp.OkHttpChannelBuilder.forAddress("127.0.0.1", 1));
        }
    }

    static final class Grpc {
        /** Builds the channel (which connects only at its first call) and shuts it down. */
        static String built(io.grpc.ManagedChannelBuilder<?> builder) {
            io.grpc.ManagedChannel channel = builder.usePlaintext().build();
            channel.shutdownNow();
            return channel.getClass().getSimpleName();
        }
    }

    static final class KtorOkHttp {
        /** {@code HttpClient(OkHttp)}: the engine sends through OkHttp's {@code Call.enqueue}. */
        static String call(String url) throws InterruptedException {
            return Ktor.get(io.ktor.client.HttpClientKt.HttpClient(
                    io.ktor.client.engine.okhttp.OkHttp.INSTANCE, config -> kotlin.Unit.INSTANCE), url);
        }
    }

    static final class KtorJava {
        /** {@code HttpClient(Java)}: the engine sends through {@code java.net.http}'s {@code sendAsync}. */
        static String call(String url) throws InterruptedException {
            return Ktor.get(io.ktor.client.HttpClientKt.HttpClient(
                    io.ktor.client.engine.java.Java.INSTANCE, config -> kotlin.Unit.INSTANCE), url);
        }
    }

    static final class Ktor {
        /** {@code runBlocking { client.get(url) }}, then the client closed. */
        static String get(io.ktor.client.HttpClient client, String url) throws InterruptedException {
            try {
                io.ktor.client.statement.HttpResponse response = kotlinx.coroutines.BuildersKt
                        .<io.ktor.client.statement.HttpResponse>runBlocking(
                                kotlin.coroutines.EmptyCoroutineContext.INSTANCE,
                                (scope, continuation) -> io.ktor.client.request.BuildersKt.get(client, url,
                                        request -> kotlin.Unit.INSTANCE, continuation));
                return "status:" + response.getStatus().getValue();
            } finally {
                client.close();
            }
        }
    }

    static final class OkHttp {
        static String call(String url) throws Exception {
            okhttp3.OkHttpClient client = new okhttp3.OkHttpClient();
            try (okhttp3.Response response = client.newCall(new okhttp3.Request.Builder().url(url).build())
                    .execute()) {
                return "status:" + response.code();
            } finally {
                client.dispatcher().executorService().shutdown();
                client.connectionPool().evictAll();
            }
        }
    }

    /**
     * What the agent's MBean lists once it lists {@code kind} (null: once the agent's total MBean is there), or at
     * the deadline.
     */
    static String await(MBeanServer server, String kind) throws Exception {
        ObjectName agent = new ObjectName("retry-agent:type=agent");
        ObjectName total = new ObjectName("retry-agent:type=total");
        long deadline = System.nanoTime() + WAIT_MILLIS * 1_000_000L;
        while (true) {
            TreeSet<String> names = listed(server, agent);
            boolean done = kind == null ? server.isRegistered(total) : names != null && names.contains(kind);
            if (done || System.nanoTime() - deadline > 0) {
                return names == null ? "no-mbean" : names.isEmpty() ? "none" : String.join(",", names);
            }
            Thread.sleep(10);
        }
    }

    private static TreeSet<String> listed(MBeanServer server, ObjectName agent) throws Exception {
        if (!server.isRegistered(agent)) {
            return null;
        }
        TreeSet<String> names = new TreeSet<>();
        for (Object row : ((TabularData) server.getAttribute(agent, "uncovered_clients")).values()) {
            names.add((String) ((CompositeData) row).get("name"));
        }
        return names;
    }
}
