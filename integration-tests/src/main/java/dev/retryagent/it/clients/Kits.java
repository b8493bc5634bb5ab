package dev.retryagent.it.clients;

import java.io.Closeable;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The kits by the client names the applications take on their command lines: {@code okhttp},
 * {@code httpclient5} ({@code hc5}), {@code httpclient4} ({@code hc4}), {@code httpurlconnection} ({@code jdk},
 * {@code huc}), {@code jdk-httpclient} ({@code java.net.http}, Java 11 and up), {@code reactor-netty} (Reactor
 * Netty's {@code HttpClient}) and {@code reactor-netty-webclient} (Spring's {@code WebClient} over it), each with an
 * optional mode: {@code -async} for the client's asynchronous API, {@code -sync} or {@code -classic} for the blocking
 * one. A kit is made at its first use, by class name, so that only the clients an application calls are ever loaded:
 * each forked application has only some of them on its class path.
 */
public final class Kits implements Closeable {
    private static final Pattern MODE = Pattern.compile("-(async|sync|classic)$");
    private static final Map<String, String> CLASSES = new HashMap<>();

    static {
        String p = "dev.retryagent.it.clients.";
        CLASSES.put("okhttp", p + "OkHttpKit");
        CLASSES.put("httpclient5", p + "HttpClient5Kit");
        CLASSES.put("httpclient4", p + "HttpClient4Kit");
        CLASSES.put("httpurlconnection", p + "HttpUrlConnectionKit");
        CLASSES.put("jdk-httpclient", p + "JdkHttpClientKit");
        CLASSES.put("reactor-netty", p + "ReactorNettyKit");
        CLASSES.put("reactor-netty-webclient", p + "ReactorNettyWebClientKit");
    }

    private final Map<String, Supplier<? extends HttpKit>> custom = new ConcurrentHashMap<>();
    private final Map<String, HttpKit> made = new ConcurrentHashMap<>();

    /** The client of {@code name}: its mode dropped, an alias spelled out. */
    public static String client(String name) {
        String client = MODE.matcher(name).replaceFirst("");
        switch (client) {
            case "hc5":
                return "httpclient5";
            case "hc4":
                return "httpclient4";
            case "jdk":
            case "huc":
                return "httpurlconnection";
            default:
                return client;
        }
    }

    /** Whether {@code name} asks for the client's asynchronous API. */
    public static boolean async(String name) {
        return name.endsWith("-async");
    }

    /** A new kit of {@code name}'s client with the client's defaults. */
    public static HttpKit create(String name) {
        String className = CLASSES.get(client(name));
        if (className == null) {
            throw new IllegalArgumentException("client " + name);
        }
        // A method handle to the one constructor: reflection would load the types of every constructor's parameters,
        // an async client's among them, which an application of the blocking client alone may not have.
        try {
            return (HttpKit) MethodHandles.publicLookup()
                    .findConstructor(Class.forName(className), MethodType.methodType(void.class)).invoke();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("kit of " + name + ": " + e, e);
        }
    }

    /** From now on {@code client}'s kit is the one {@code kit} makes (at its first use), not the default. */
    public Kits use(String client, Supplier<? extends HttpKit> kit) {
        custom.put(client(client), kit);
        return this;
    }

    /** The one kit of {@code name}'s client in this set, made at its first use. */
    public HttpKit kit(String name) {
        return made.computeIfAbsent(client(name), client -> {
            Supplier<? extends HttpKit> supplier = custom.get(client);
            return supplier != null ? supplier.get() : create(client);
        });
    }

    /** The kit of {@code name}'s client, which must have an asynchronous API. */
    public AsyncHttpKit asyncKit(String name) {
        HttpKit kit = kit(name);
        if (!(kit instanceof AsyncHttpKit)) {
            throw new IllegalArgumentException(client(name) + " has no asynchronous API");
        }
        return (AsyncHttpKit) kit;
    }

    /** {@code request} through {@code name}'s client in {@code name}'s mode; an async call is awaited. */
    public KitReply call(String name, KitRequest request, long timeout, TimeUnit unit)
            throws IOException, InterruptedException, ExecutionException, TimeoutException {
        if (async(name)) {
            return await(asyncKit(name).callAsync(request), timeout, unit);
        }
        return kit(name).call(request);
    }

    /** The reply of an async call; the client's {@link IOException} is thrown as itself. */
    public static KitReply await(CompletableFuture<KitReply> reply, long timeout, TimeUnit unit)
            throws IOException, InterruptedException, ExecutionException, TimeoutException {
        try {
            return reply.get(timeout, unit);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException) {
                throw (IOException) e.getCause();
            }
            throw e;
        }
    }

    /** Completes {@code reply} as a client callback reports; a cancelled {@code reply} runs {@code cancel}. */
    static CompletableFuture<KitReply> cancelling(CompletableFuture<KitReply> reply, Runnable cancel) {
        reply.whenComplete((r, failure) -> {
            if (failure instanceof CancellationException) {
                cancel.run();
            }
        });
        return reply;
    }

    @Override
    public void close() throws IOException {
        for (HttpKit kit : made.values()) {
            kit.close();
        }
        made.clear();
    }
}
