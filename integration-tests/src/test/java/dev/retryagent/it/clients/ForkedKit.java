package dev.retryagent.it.clients;

import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.ReportLine;
import java.io.IOException;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A kit run in a forked JVM ({@link KitPipe}) with a client library set and a JDK of the test's choosing, so that
 * {@link KitContract} checks the kit with each version of its client. Replies come back whole; a failure comes back
 * as an {@link IOException} (when the client's was one) or an {@link IllegalStateException}, naming the client's
 * exception and its message. Cancelling an async call's future cancels it there as well.
 */
final class ForkedKit implements AsyncHttpKit {
    private static final Duration CALL_LIMIT = Duration.ofSeconds(60);

    private final ForkedApp.Running app;
    private final ReportLine appLine;
    private final AtomicInteger ids = new AtomicInteger();
    private final ExecutorService waits = Executors.newCachedThreadPool(r -> {
        Thread thread = new Thread(r, "forked-kit-wait");
        thread.setDaemon(true);
        return thread;
    });

    private ForkedKit(ForkedApp.Running app) {
        this.app = app;
        this.appLine = ReportLine.parse(app.awaitStdoutLine(line -> line.startsWith("APP "), CALL_LIMIT));
    }

    /**
     * {@code client}'s kit on {@code jdk} with {@code libs}; {@code versionOf} a class of the client, whose package's
     * implementation version the {@code APP} line reports.
     */
    static ForkedKit start(String client, ClientLibs libs, Jdks.Jdk jdk, String versionOf) {
        return new ForkedKit(ForkedApp.of(KitPipe.class).name("KitPipe-" + client + "-" + libs + "-" + jdk)
                .clientLibs(libs).java(jdk.java()).timeout(Duration.ofMinutes(5))
                .args(client, versionOf).start());
    }

    /** The forked application's {@code APP} line: its client, kit class, client version and Java version. */
    ReportLine appLine() {
        return appLine;
    }

    @Override
    public KitReply call(KitRequest request) throws IOException {
        String id = String.valueOf(ids.incrementAndGet());
        app.writeLine("call " + id + " sync " + KitPipe.encode(request));
        return outcome(id);
    }

    @Override
    public CompletableFuture<KitReply> callAsync(KitRequest request) {
        String id = String.valueOf(ids.incrementAndGet());
        app.writeLine("call " + id + " async " + KitPipe.encode(request));
        CompletableFuture<KitReply> reply = new CompletableFuture<>();
        waits.execute(() -> {
            try {
                reply.complete(outcome(id));
            } catch (IOException | RuntimeException | Error e) {
                reply.completeExceptionally(e);
            }
        });
        return Kits.cancelling(reply, () -> app.writeLine("cancel " + id));
    }

    private KitReply outcome(String id) throws IOException {
        ReportLine line = ReportLine.parse(app.awaitStdoutLine(
                l -> (l.startsWith("REPLY ") || l.startsWith("FAILURE ")) && l.contains(" id=" + id + " "),
                CALL_LIMIT));
        if (line.tag().equals("FAILURE")) {
            String failure = line.get("class") + ": " + line.get("message");
            if (Boolean.parseBoolean(line.get("io"))) {
                throw new IOException(failure);
            }
            throw new IllegalStateException(failure);
        }
        KitReply.Builder reply = new KitReply.Builder(Integer.parseInt(line.get("status")));
        for (Map.Entry<String, String> value : line.values().entrySet()) {
            if (value.getKey().startsWith("h.")) {
                int colon = value.getValue().indexOf(':');
                reply.header(value.getValue().substring(0, colon), value.getValue().substring(colon + 1));
            }
        }
        return reply.body(Base64.getDecoder().decode(line.get("body")));
    }

    @Override
    public void close() {
        waits.shutdownNow();
        app.writeLine("quit");
        app.await().assertExitCode(0);
    }
}
