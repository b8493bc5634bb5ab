package dev.retryagent.bench;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Three services in a chain, each a forked JVM with the built agent: a client (HttpURLConnection) calls a gateway
 * (forwards over OkHttp), which calls a service (forwards over HttpClient 5), which calls a backend of this JVM that
 * answers every request with 503. The gateway and the service are integration-tests' {@code ForwardingService}: they
 * forward every incoming header, which carries the marker. Once with the built-in default policy (the marker on,
 * {@code maxAttempts: 3}), once with the marker disabled. Prints one {@code CHAIN} line per run and writes a markdown
 * table to OUT_MD.
 *
 * <pre>Chain JAVA AGENT_JAR APP_CLASSPATH WORK_DIR OUT_MD</pre>
 */
public final class Chain {
    /** Where each forwarder writes its output. */
    private static final Map<Process, Path> OUTPUTS = new ConcurrentHashMap<>();

    public static void main(String[] args) throws Exception {
        // the JDK server writes a response's head and body separately: without TCP_NODELAY each response waits for
        // the client's delayed ACK (about 40 ms)
        System.setProperty("sun.net.httpserver.nodelay", "true");
        String java = args[0];
        String agentJar = args[1];
        String classpath = args[2];
        Path work = Path.of(args[3]);
        Path outMd = Path.of(args[4]);
        Files.createDirectories(work);
        Path markerOff = work.resolve("chain-marker-off.yaml");
        Files.writeString(markerOff, "version: 1\nmarker: { enabled: false }\n", StandardCharsets.UTF_8);
        int[] with = run(java, agentJar, classpath, work, null, "on");
        int[] without = run(java, agentJar, classpath, work, markerOff, "off");
        StringBuilder md = new StringBuilder();
        md.append("| marker | client -> gateway | gateway -> service | service -> backend (backend hits per user call) |\n");
        md.append("|---|---|---|---|\n");
        md.append(String.format(Locale.ROOT, "| on (built-in default policy) | %d | %d | **%d** |%n", with[0], with[1], with[2]));
        md.append(String.format(Locale.ROOT, "| disabled (`marker: { enabled: false }`) | %d | %d | **%d** |%n",
                without[0], without[1], without[2]));
        Files.writeString(outMd, md.toString(), StandardCharsets.UTF_8);
    }

    /** Answers the requests each hop received: gateway, service, backend. */
    static int[] run(String java, String agentJar, String classpath, Path work, Path policy, String label)
            throws Exception {
        AtomicInteger backendHits = new AtomicInteger();
        HttpServer backend = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        byte[] busy = "busy".getBytes(StandardCharsets.ISO_8859_1);
        backend.createContext("/", exchange -> {
            backendHits.incrementAndGet();
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(503, busy.length);
            exchange.getResponseBody().write(busy);
            exchange.close();
        });
        ExecutorService backendPool = Executors.newFixedThreadPool(4);
        backend.setExecutor(backendPool);
        backend.start();
        String agent = "-javaagent:" + agentJar + "=log=warn" + (policy == null ? "" : ",policy=" + policy);
        Process service = null;
        Process gateway = null;
        try {
            service = forwarder(java, agent, classpath, "httpclient5",
                    "http://127.0.0.1:" + backend.getAddress().getPort(), work.resolve("chain-" + label + "-service.out"));
            int servicePort = listeningPort(service);
            gateway = forwarder(java, agent, classpath, "okhttp", "http://127.0.0.1:" + servicePort,
                    work.resolve("chain-" + label + "-gateway.out"));
            int gatewayPort = listeningPort(gateway);
            Path clientOut = work.resolve("chain-" + label + "-client.out");
            Process client = new ProcessBuilder(java, agent, "-cp", classpath,
                    "dev.retryagent.it.apps.HttpUrlConnectionScenario", "--url",
                    "http://127.0.0.1:" + gatewayPort + "/orders?id=7")
                    .redirectErrorStream(true).redirectOutput(clientOut.toFile()).start();
            if (!client.waitFor(2, TimeUnit.MINUTES)) {
                client.destroyForcibly();
                throw new IllegalStateException("the chain's client did not finish; see " + clientOut);
            }
            String result = Files.readAllLines(clientOut).stream().filter(l -> l.startsWith("RESULT "))
                    .findFirst().orElseThrow(() -> new IllegalStateException("no RESULT line in " + clientOut));
            if (!result.contains("status=503")) {
                throw new IllegalStateException("the chain's client expected the backend's 503: " + result);
            }
            int atGateway = forwarded(gateway, work.resolve("chain-" + label + "-gateway.out"));
            gateway = null;
            int atService = forwarded(service, work.resolve("chain-" + label + "-service.out"));
            service = null;
            int[] counts = {atGateway, atService, backendHits.get()};
            System.out.println("CHAIN marker=" + label + " client->gateway=" + counts[0] + " gateway->service="
                    + counts[1] + " service->backend=" + counts[2]);
            return counts;
        } finally {
            for (Process p : new Process[] {gateway, service}) {
                if (p != null) {
                    p.destroyForcibly();
                }
            }
            backend.stop(0);
            backendPool.shutdownNow();
        }
    }

    static Process forwarder(String java, String agent, String classpath, String client, String upstream, Path out)
            throws Exception {
        Process process = new ProcessBuilder(java, agent, "-cp", classpath, "dev.retryagent.it.apps.ForwardingService",
                "--client", client, "--upstream", upstream).redirectErrorStream(true)
                .redirectOutput(out.toFile()).start();
        OUTPUTS.put(process, out);
        return process;
    }

    /** Waits (at most a minute) for the forwarder's LISTENING line in its output file. */
    static int listeningPort(Process process) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("a forwarder exited early");
            }
            String line = firstMatching(process, "LISTENING ");
            if (line != null) {
                return Integer.parseInt(Herd.fields(line).get("port"));
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("a forwarder did not listen within a minute");
    }

    /** Closes the forwarder's stdin (it exits), waits, and counts its FORWARDED lines. */
    static int forwarded(Process process, Path out) throws Exception {
        process.getOutputStream().close();
        if (!process.waitFor(1, TimeUnit.MINUTES)) {
            process.destroyForcibly();
        }
        return (int) Files.readAllLines(out).stream().filter(l -> l.startsWith("FORWARDED ")).count();
    }

    private static String firstMatching(Process process, String prefix) throws Exception {
        Path out = OUTPUTS.get(process);
        return !Files.exists(out) ? null : Files.readAllLines(out).stream().filter(l -> l.startsWith(prefix))
                .findFirst().orElse(null);
    }
}
