package dev.retryagent.it.apps;

import dev.retryagent.it.clients.KitReply;
import dev.retryagent.it.clients.KitRequest;
import dev.retryagent.it.clients.Kits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A service's steady stream of orders to a dependency: POSTs without an idempotency key, each with an id of its own
 * ({@code X-Request-Id: STREAM-N}, N from 1), one caller making one call after the other, {@code --pause-ms} apart
 * (default 10). A {@code --stream} (repeatable, run in turn) is {@code name=...;client=...;url=...}, {@code client} a
 * kit name of {@link Kits}. A stream ends when an answer carries {@code X-Stream-End: yes}, or after
 * {@code --max-calls} calls (default 500). Prints per stream {@code RESULT stream=NAME calls=N errors=N ended=BOOL
 * failed=N,N,... failures=Class:count,...} (a failure is the client's exception, or {@code status-N} for an answer
 * other than 200).
 */
public final class RollingRestartApp {
    private RollingRestartApp() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = Args.parse(argv, new HashSet<>(Arrays.asList("stream", "pause-ms", "max-calls")),
                Collections.<String>emptySet());
        long pauseMillis = args.getLong("pause-ms", 10);
        int maxCalls = args.getInt("max-calls", 500);
        try (Kits kits = new Kits()) {
            for (String spec : args.all("stream")) {
                stream(kits, CallSpec.parse(spec), pauseMillis, maxCalls);
            }
        }
        // the async clients' I/O threads are not daemons
        System.exit(0);
    }

    private static void stream(Kits kits, Map<String, List<String>> spec, long pauseMillis, int maxCalls)
            throws InterruptedException {
        String name = CallSpec.one(spec, "name", null);
        String client = CallSpec.one(spec, "client", null);
        String url = CallSpec.one(spec, "url", null);
        List<Integer> failed = new ArrayList<>();
        Map<String, Integer> failures = new TreeMap<>();
        boolean ended = false;
        int calls = 0;
        while (!ended && calls < maxCalls) {
            calls++;
            String id = name + "-" + calls;
            KitRequest order = KitRequest.of("POST", url).header("X-Request-Id", id)
                    .body(("{\"order\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8), "application/json");
            String failure = null;
            try {
                KitReply reply = kits.call(client, order, 60, TimeUnit.SECONDS);
                ended = "yes".equals(reply.header("X-Stream-End"));
                if (reply.status() != 200) {
                    failure = "status-" + reply.status();
                }
            } catch (ExecutionException e) {
                failure = e.getCause().getClass().getName();
            } catch (IOException | TimeoutException | RuntimeException e) {
                failure = e.getClass().getName();
            }
            if (failure != null) {
                failed.add(calls);
                Integer seen = failures.get(failure);
                failures.put(failure, seen == null ? 1 : seen + 1);
            }
            Thread.sleep(pauseMillis);
        }
        StringBuilder counted = new StringBuilder();
        for (Map.Entry<String, Integer> f : failures.entrySet()) {
            counted.append(counted.length() == 0 ? "" : ",").append(f.getKey()).append(':').append(f.getValue());
        }
        Report.line("RESULT", "stream", name, "calls", calls, "errors", failed.size(), "ended", ended,
                "failed", join(failed), "failures", counted);
    }

    private static String join(List<Integer> numbers) {
        StringBuilder joined = new StringBuilder();
        for (Integer n : numbers) {
            joined.append(joined.length() == 0 ? "" : ",").append(n);
        }
        return joined.toString();
    }
}
