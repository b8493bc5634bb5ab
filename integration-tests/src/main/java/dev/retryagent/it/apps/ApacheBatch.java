package dev.retryagent.it.apps;

import static dev.retryagent.it.apps.CallSpec.one;

import dev.retryagent.it.apps.BatchCalls.Seen;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What the batch clients of Apache HttpClient 4 and 5 share ({@link BatchApp}{@code  httpclient4|httpclient5}): one
 * client per API and kind, made before the calls start (as a service makes them at start-up), the async one started;
 * a call of a spec by its {@code api}, with its start delay, {@code repeat} and {@code RESULT} line
 * ({@link BatchCalls#run}); after the calls the {@code CALLBACKS} lines and the {@code POOL} lines of the pools. The
 * clients, pools and calls themselves are each library's.
 *
 * @param <C> the classic client
 * @param <A> the async client
 */
public abstract class ApacheBatch<C, A> implements BatchApp.Client {
    private final Map<String, C> classic = new ConcurrentHashMap<>();
    private final Map<String, A> async = new ConcurrentHashMap<>();
    private final Map<String, Runnable> classicPools = new ConcurrentHashMap<>();
    private final Map<String, Runnable> asyncPools = new ConcurrentHashMap<>();
    private final Consumer<A> start;

    /** {@code start} starts an async client. */
    protected ApacheBatch(Consumer<A> start) {
        this.start = start;
    }

    /** No options of its own: everything a call needs is in its spec. */
    @Override
    public final int take(String[] argv, int i) {
        return -1;
    }

    @Override
    public final void prepare(List<Map<String, List<String>>> calls) {
        for (Map<String, List<String>> call : calls) {
            String api = one(call, "api", "classic");
            if (api.equals("classic")) {
                classic(call);
            } else if (api.equals("async")) {
                async(call);
            }
        }
    }

    @Override
    public final void call(Map<String, List<String>> spec, String id) {
        BatchCalls.run(spec, id, this::once);
    }

    @Override
    public final void afterCalls() throws InterruptedException {
        BatchCalls.Callbacks.report();
        classicPools.values().forEach(Runnable::run);
        asyncPools.values().forEach(Runnable::run);
    }

    /** The classic client of the spec's {@code client} kind (default {@code default}). */
    protected final C classic(Map<String, List<String>> spec) {
        return classic.computeIfAbsent(one(spec, "client", "default"), this::newClassic);
    }

    /** The async client of the spec's {@code client} kind (default {@code default}), started. */
    protected final A async(Map<String, List<String>> spec) {
        return async.computeIfAbsent(one(spec, "client", "default"), kind -> {
            A client = newAsync(kind);
            start.accept(client);
            return client;
        });
    }

    /** Reports the pool of the classic client {@code kind} at the end: {@code report} prints its line. */
    protected final void classicPool(String kind, Runnable report) {
        classicPools.put(kind, report);
    }

    /** Reports the pool of the async client {@code kind} at the end: {@code report} prints its line. */
    protected final void asyncPool(String kind, Runnable report) {
        asyncPools.put(kind, report);
    }

    private Seen once(Map<String, List<String>> spec, String id) throws Exception {
        String api = one(spec, "api", "classic");
        switch (api) {
            case "classic":
                return classicCall(spec);
            case "async":
                return asyncCall(spec, id);
            default:
                return otherCall(api, spec);
        }
    }

    /**
     * The client of a kind every Apache API has, null for another kind: {@code default} ({@code createDefault}),
     * {@code system} ({@code createSystem}), {@code custom} ({@code custom().build()}) and, where the API has it (not
     * null), {@code minimal} ({@code createMinimal}).
     */
    protected static <T> T ofEveryApi(String kind, Supplier<T> createDefault, Supplier<T> createSystem,
            Supplier<T> custom, Supplier<T> createMinimal) {
        switch (kind) {
            case "default":
                return createDefault.get();
            case "system":
                return createSystem.get();
            case "custom":
                return custom.get();
            case "minimal":
                return createMinimal == null ? null : createMinimal.get();
            default:
                return null;
        }
    }

    protected abstract C newClassic(String kind);

    protected abstract A newAsync(String kind);

    protected abstract Seen classicCall(Map<String, List<String>> spec) throws Exception;

    protected abstract Seen asyncCall(Map<String, List<String>> spec, String id) throws Exception;

    /** A call of an API besides classic and async; none by default. */
    protected Seen otherCall(String api, Map<String, List<String>> spec) throws Exception {
        throw new IllegalArgumentException("api " + api);
    }
}
