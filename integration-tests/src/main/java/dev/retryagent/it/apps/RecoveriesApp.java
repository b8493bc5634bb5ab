package dev.retryagent.it.apps;

import dev.retryagent.it.clients.KitReply;
import dev.retryagent.it.clients.KitRequest;
import dev.retryagent.it.clients.Kits;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The calls of the differential test of the clients' own recoveries (alone against the agent), one after the other,
 * each through the kit its {@code client} names. A {@code --call} is {@code id=...;client=...;url=...;method=...}
 * plus, optionally, how the call reaches its server:
 * <ul>
 *   <li>{@code route=dead-proxy-first}: the default {@link ProxySelector} answers {@code [dead proxy, DIRECT]} for
 *       the call's address, the dead proxy being {@code --dead-proxy PORT} on loopback (a PAC file's fallback);</li>
 *   <li>{@code route=tls-fallback}: an OkHttp client whose first connection spec offers TLS 1.3 only and whose second
 *       one is OkHttp's modern TLS, so that a TLS 1.2 server is reached only through OkHttp's own fallback (the other
 *       clients negotiate TLS 1.2 on their own);</li>
 *   <li>{@code route=jvm-resolver}: Reactor Netty's clients resolve the call's host with the JVM's resolver, which
 *       reads {@code -Djdk.net.hosts.file} (Netty's DNS resolver, their default, does not); the other clients resolve
 *       with the JVM's own anyway.</li>
 * </ul>
 * A POST carries a small body and no key. Each call prints {@code RESULT id=... status=N} or
 * {@code RESULT id=... failure=ExceptionClass}.
 */
public final class RecoveriesApp {
    private RecoveriesApp() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = Args.parse(argv, new HashSet<>(Arrays.asList("dead-proxy", "call")), Collections.<String>emptySet());
        List<String> calls = args.all("call");
        if (args.has("dead-proxy")) {
            ProxySelector.setDefault(new DeadProxyFirst(ProxySelector.getDefault(), args.getInt("dead-proxy", 0),
                    portsRoutedThroughTheDeadProxy(calls)));
        }
        try (Kits kits = new Kits(); Kits tlsFallback = new Kits().use("okhttp", OkHttpTlsFallback::kit);
             // lambdas, not method references: linking a reference would load (and verify) the class with Netty's types
             Kits jvmResolver = new Kits().use("reactor-netty", () -> ReactorNettyJvmResolver.kit())
                     .use("reactor-netty-webclient", () -> ReactorNettyJvmResolver.webClientKit())) {
            for (String spec : calls) {
                Map<String, List<String>> call = CallSpec.parse(spec);
                String route = CallSpec.one(call, "route", "");
                run(route.equals("tls-fallback") ? tlsFallback : route.equals("jvm-resolver") ? jvmResolver : kits,
                        call);
            }
        }
        System.exit(0);
    }

    private static void run(Kits kits, Map<String, List<String>> call) throws InterruptedException {
        String id = CallSpec.one(call, "id", "?");
        String method = CallSpec.one(call, "method", "GET");
        KitRequest request = KitRequest.of(method, CallSpec.one(call, "url", null));
        if (!"GET".equals(method)) {
            request = request.body(("body of " + id).getBytes(StandardCharsets.UTF_8), "text/plain");
        }
        try {
            KitReply reply = kits.call(CallSpec.one(call, "client", null), request, 60, TimeUnit.SECONDS);
            Report.line("RESULT", "id", id, "status", reply.status());
        } catch (ExecutionException e) {
            Report.line("RESULT", "id", id, "failure", e.getClass().getName() + ">" + e.getCause().getClass().getName());
        } catch (IOException | java.util.concurrent.TimeoutException | RuntimeException e) {
            Report.line("RESULT", "id", id, "failure", e.getClass().getName());
        }
    }

    private static Set<Integer> portsRoutedThroughTheDeadProxy(List<String> calls) {
        Set<Integer> ports = new HashSet<>();
        for (String spec : calls) {
            Map<String, List<String>> call = CallSpec.parse(spec);
            if ("dead-proxy-first".equals(CallSpec.one(call, "route", ""))) {
                ports.add(URI.create(CallSpec.one(call, "url", null)).getPort());
            }
        }
        return ports;
    }

    /** {@code [dead proxy, DIRECT]} for the chosen ports, the JDK's default selector for every other address. */
    private static final class DeadProxyFirst extends ProxySelector {
        private final ProxySelector fallback;
        private final Proxy dead;
        private final Set<Integer> ports;

        DeadProxyFirst(ProxySelector fallback, int deadPort, Set<Integer> ports) {
            this.fallback = fallback;
            this.dead = new Proxy(Proxy.Type.HTTP, new InetSocketAddress("127.0.0.1", deadPort));
            this.ports = ports;
        }

        @Override
        public List<Proxy> select(URI uri) {
            if (ports.contains(uri.getPort())) {
                return Arrays.asList(dead, Proxy.NO_PROXY);
            }
            return fallback.select(uri);
        }

        @Override
        public void connectFailed(URI uri, SocketAddress address, IOException failure) {
            // the next proxy of the list is the caller's to try
        }
    }
}
