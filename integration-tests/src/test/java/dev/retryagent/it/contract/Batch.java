package dev.retryagent.it.contract;

import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.LateServer;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import dev.retryagent.it.harness.TlsMaterial;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The calls of one forked run, each with the loopback server it talks to: the {@code --call} arguments of the
 * batch application and the servers the assertions read afterwards. A call spec is {@code id=..;url=..} followed
 * by the parts the client's driver spelled ({@code mode=sync}, {@code api=classic}, ...).
 */
public final class Batch implements AutoCloseable {
    private final Map<String, ScriptedServer> servers = new LinkedHashMap<>();
    private final Map<String, Integer> refusingPorts = new LinkedHashMap<>();
    private final Map<String, LateServer> late = new LinkedHashMap<>();
    private final List<String> args = new ArrayList<>();
    private final List<AutoCloseable> closer = new ArrayList<>();
    private final Map<String, Consumer<ForkedApp.Running>> signals = new LinkedHashMap<>();

    /**
     * Signal {@code name} (a call's {@code cancelOn=name}) goes to the application once {@code event} has returned:
     * it waits for what the signal must follow (an attempt the server received, a line the agent logged).
     */
    public void signalAfter(String name, Consumer<ForkedApp.Running> event) {
        signals.put(name, event);
    }

    /**
     * Sends every signal once its event has happened, each waited for on a thread of its own, after {@code go};
     * the returned future fails with the first event that did not happen.
     */
    public CompletableFuture<Void> sendSignals(ForkedApp.Running app) {
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        signals.forEach((name, event) -> sent.add(CompletableFuture.runAsync(() -> {
            event.accept(app);
            app.writeLine("signal " + name);
        })));
        return CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0]));
    }

    /** A call to a server of its own at {@code path}, answering {@code steps}. */
    public ScriptedServer add(String id, String path, List<String> parts, Step... steps) {
        return register(id, ScriptedServer.start(steps), path, parts);
    }

    /**
     * A server no call of the batch is made to, answering {@code steps}: the calls other calls make inside theirs go to
     * it. Found by {@link #server(String)} under {@code id}.
     */
    public ScriptedServer serverOnly(String id, Step... steps) {
        ScriptedServer server = ScriptedServer.start(steps);
        closer.add(server);
        servers.put(id, server);
        return server;
    }

    /** As {@link #add}, over HTTPS with the shared test certificate. */
    public ScriptedServer addTls(String id, String path, List<String> parts, Step... steps) {
        return register(id, ScriptedServer.startTls(TlsMaterial.shared(), steps), path, parts);
    }

    private ScriptedServer register(String id, ScriptedServer server, String path, List<String> parts) {
        closer.add(server);
        servers.put(id, server);
        addUrl(id, server.url(path), parts);
        return server;
    }

    /**
     * A call to a port that refuses connections until {@link #openLate} binds it. Add these last: a server started
     * after the port was chosen could be given the same ephemeral port.
     */
    public void addRefusing(String id, String path, List<String> parts) {
        int port = ScriptedServer.refusingPort();
        refusingPorts.put(id, port);
        addUrl(id, "http://127.0.0.1:" + port + path, parts);
    }

    /** Binds the refusing port of {@code id}; it answers {@code 200 late}. */
    public LateServer openLate(String id) {
        LateServer server = LateServer.bind(refusingPorts.get(id));
        closer.add(server);
        late.put(id, server);
        return server;
    }

    public LateServer late(String id) {
        return late.get(id);
    }

    public void addUrl(String id, String url, List<String> parts) {
        List<String> spec = new ArrayList<>(List.of("id=" + id, "url=" + url));
        spec.addAll(parts);
        args.add("--call");
        args.add(String.join(";", spec));
    }

    public ScriptedServer server(String id) {
        ScriptedServer server = servers.get(id);
        if (server == null) {
            throw new IllegalArgumentException("no call " + id);
        }
        return server;
    }

    public List<String> args() {
        return args;
    }

    /** Closes every server; the first failure to close is thrown after the others were closed. */
    @Override
    public void close() {
        RuntimeException failed = null;
        for (AutoCloseable c : closer) {
            try {
                c.close();
            } catch (Exception e) {
                if (failed == null) {
                    failed = new IllegalStateException("closing a server of the batch", e);
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
    }
}
