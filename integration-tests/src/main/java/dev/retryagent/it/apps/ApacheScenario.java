package dev.retryagent.it.apps;

import static dev.retryagent.it.apps.CallSpec.one;

import dev.retryagent.it.apps.BatchCalls.Seen;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What the scenario applications of Apache HttpClient 4 and 5 share: one client per API and kind, made before the
 * calls start (as a service makes them at start-up), the async one started; the pools whose {@code POOL} lines end
 * the run; a call of a spec by its {@code api}. The clients, pools and calls themselves are each library's.
 *
 * @param <C> the classic client
 * @param <A> the async client
 */
abstract class ApacheScenario<C, A> {
    private final Map<String, C> classic = new ConcurrentHashMap<>();
    private final Map<String, A> async = new ConcurrentHashMap<>();
    private final Map<String, Runnable> classicPools = new ConcurrentHashMap<>();
    private final Map<String, Runnable> asyncPools = new ConcurrentHashMap<>();
    private final Consumer<A> start;

    /** {@code start} starts an async client. */
    ApacheScenario(Consumer<A> start) {
        this.start = start;
    }

    /** Prints {@code appLine} as the {@code APP} line, makes the calls' clients, then runs the calls and exits. */
    final void run(String[] argv, Object... appLine) throws Exception {
        BatchCalls.Options options = BatchCalls.Options.parse(argv);
        Report.line("APP", appLine);
        for (Map<String, List<String>> call : options.calls()) {
            String api = one(call, "api", "classic");
            if (api.equals("classic")) {
                classic(call);
            } else if (api.equals("async")) {
                async(call);
            }
        }
        BatchCalls.runAllAndExit(options, this::once, () -> {
            classicPools.values().forEach(Runnable::run);
            asyncPools.values().forEach(Runnable::run);
        });
    }

    /** The classic client of the spec's {@code client} kind (default {@code default}). */
    final C classic(Map<String, List<String>> spec) {
        return classic.computeIfAbsent(one(spec, "client", "default"), this::newClassic);
    }

    /** The async client of the spec's {@code client} kind (default {@code default}), started. */
    final A async(Map<String, List<String>> spec) {
        return async.computeIfAbsent(one(spec, "client", "default"), kind -> {
            A client = newAsync(kind);
            start.accept(client);
            return client;
        });
    }

    /** Reports the pool of the classic client {@code kind} at the end: {@code report} prints its line. */
    final void classicPool(String kind, Runnable report) {
        classicPools.put(kind, report);
    }

    /** Reports the pool of the async client {@code kind} at the end: {@code report} prints its line. */
    final void asyncPool(String kind, Runnable report) {
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
    static <T> T ofEveryApi(String kind, Supplier<T> createDefault, Supplier<T> createSystem, Supplier<T> custom,
            Supplier<T> createMinimal) {
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

    abstract C newClassic(String kind);

    abstract A newAsync(String kind);

    abstract Seen classicCall(Map<String, List<String>> spec) throws Exception;

    abstract Seen asyncCall(Map<String, List<String>> spec, String id) throws Exception;

    /** A call of an API besides classic and async; none by default. */
    Seen otherCall(String api, Map<String, List<String>> spec) throws Exception {
        throw new IllegalArgumentException("api " + api);
    }
}
