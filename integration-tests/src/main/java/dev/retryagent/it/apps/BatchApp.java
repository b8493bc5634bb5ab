package dev.retryagent.it.apps;

import dev.retryagent.it.clients.Kits;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The batch application of every client (no agent code): several
 * independent calls at once, one thread each, through the client named first, so that one forked JVM covers many
 * scenarios.
 *
 * <pre>
 * BatchApp CLIENT [--await-go] [--sequential] [the client's own options] --call SPEC...
 *   CLIENT        okhttp, httpurlconnection (jdk, huc), jdk-httpclient (Java 11 and up), httpclient5 (hc5),
 *                 httpclient4 (hc4), reactor-netty or reactor-netty-webclient, as {@link Kits} names them
 *   --await-go    print READY, then wait for a line on stdin before calling
 *   --sequential  one call after the other (default: all at once)
 *   --call SPEC   repeatable; the keys of a spec ({@link CallSpec}) and the client's own options are its
 *                 {@link Client}'s: {@code okhttp.OkHttpBatch}, {@code httpurlconnection.HttpUrlConnectionBatch},
 *                 {@code jdkhttp.JdkHttpClientBatch}, {@code httpclient5.HttpClient5Batch},
 *                 {@code httpclient4.HttpClient4Batch}, {@code reactornetty.ReactorNettyBatch} (both Reactor Netty
 *                 names)
 * </pre>
 * Prints {@code APP client=.. java=..} (and what the client adds), per call a {@code RESULT} line, what the client
 * prints after its calls, and {@code DONE}; then ends the JVM. The client's part is loaded by class name, so that a
 * JVM loads only the client it calls (a Java 8 JVM never loads the Java 11 classes of {@code java.net.http}).
 */
public final class BatchApp {
    private static final Map<String, String> CLIENTS = new HashMap<>();

    static {
        CLIENTS.put("okhttp", "dev.retryagent.it.okhttp.OkHttpBatch");
        CLIENTS.put("httpurlconnection", "dev.retryagent.it.httpurlconnection.HttpUrlConnectionBatch");
        CLIENTS.put("jdk-httpclient", "dev.retryagent.it.jdkhttp.JdkHttpClientBatch");
        CLIENTS.put("httpclient5", "dev.retryagent.it.httpclient5.HttpClient5Batch");
        CLIENTS.put("httpclient4", "dev.retryagent.it.httpclient4.HttpClient4Batch");
        CLIENTS.put("reactor-netty", "dev.retryagent.it.reactornetty.ReactorNettyBatch");
        CLIENTS.put("reactor-netty-webclient", "dev.retryagent.it.reactornetty.ReactorNettyBatch$WebClientFirst");
    }

    /** One client's part of the batch application: its own options, its clients, its calls and its reports. */
    public interface Client extends BatchCalls.OwnOptions {
        /** What the {@code APP} line says of the client besides its name and the JDK's version: key, value, ... */
        default List<Object> about() {
            return new ArrayList<>();
        }

        /** Before {@code --await-go}: what the calls need, made as a service makes it at start-up. */
        default void prepare(List<Map<String, List<String>>> calls) throws Exception {
        }

        /** After {@code --await-go}, just before the calls. */
        default void beforeCalls(List<Map<String, List<String>>> calls) throws Exception {
        }

        /** Makes the call of {@code spec} on this thread and prints its {@code RESULT} line. */
        void call(Map<String, List<String>> spec, String id);

        /** Once every call has returned, before {@code DONE}. */
        default void afterCalls() throws Exception {
        }
    }

    private BatchApp() {
    }

    public static void main(String[] argv) throws Exception {
        if (argv.length == 0) {
            System.err.println("usage error: BatchApp CLIENT [options] --call SPEC...");
            System.exit(2);
        }
        String name = Kits.client(argv[0]);
        Client client = client(name);
        BatchCalls.Options options = BatchCalls.Options.parse(Arrays.copyOfRange(argv, 1, argv.length), client);
        List<Object> app = new ArrayList<>(Arrays.<Object>asList("client", name));
        app.addAll(client.about());
        app.addAll(Arrays.<Object>asList("java", System.getProperty("java.version")));
        Report.line("APP", app.toArray());
        client.prepare(options.calls());
        BatchCalls.awaitGo(options);
        client.beforeCalls(options.calls());
        BatchCalls.runEach(options, client::call, 120_000);
        client.afterCalls();
        Report.line("DONE");
        System.exit(0);
    }

    private static Client client(String name) throws ReflectiveOperationException {
        String className = CLIENTS.get(name);
        if (className == null) {
            System.err.println("usage error: no batch client " + name + " (" + CLIENTS.keySet() + ")");
            System.exit(2);
        }
        return Class.forName(className).asSubclass(Client.class).getDeclaredConstructor().newInstance();
    }
}
