package dev.retryagent.it.reactornetty;

import static dev.retryagent.it.apps.CallSpec.one;

import com.sun.net.httpserver.HttpServer;
import dev.retryagent.it.apps.BatchApp;
import dev.retryagent.it.apps.BatchCalls;
import dev.retryagent.it.apps.BatchCalls.Seen;
import dev.retryagent.it.apps.CallSpec;
import dev.retryagent.it.apps.Report;
import dev.retryagent.it.clients.KitReply;
import dev.retryagent.it.clients.KitRequest;
import dev.retryagent.it.clients.ReactorNettyKit;
import dev.retryagent.it.clients.ReactorNettyKit.Options;
import dev.retryagent.it.clients.ReactorNettyKit.Receive;
import dev.retryagent.it.clients.ReactorNettyKit.Send;
import dev.retryagent.it.clients.ReactorNettyWebClientKit;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.netty.http.HttpProtocol;
import reactor.netty.http.client.HttpClient;

/**
 * Reactor Netty's part of the batch application ({@link BatchApp}{@code  reactor-netty}, and
 * {@code reactor-netty-webclient}, whose calls are WebClient's unless they say otherwise): a plain reactive
 * application (no agent code) that calls through {@link ReactorNettyKit} (Reactor Netty's {@code HttpClient}; compiled
 * against 1.0, runs on 1.0 to 1.3) and {@link ReactorNettyWebClientKit} (Spring's {@code WebClient} over it; compiled
 * against 5.3, runs on 5.3 and 6.x), all over one {@code HttpClient.create()} made before the calls.
 *
 * <pre>
 * --call SPEC     SPEC is key=value pairs separated by ';':
 *   id=ID, url=URL (required)
 *   api=client|webclient             HttpClient, or WebClient over it (default: client, or webclient under the name
 *                                    reactor-netty-webclient)
 *   mode=sync|async                  block() on the caller's thread, or subscribe with callbacks (default sync)
 *   send=publisher|outbound          client: send(Publisher), the headers set on the client; or
 *                                    send((request, outbound) -> ..), the headers set on the request there
 *                                    (default publisher)
 *   receive=single|response-flux|response-only|content|connection
 *                                    client: responseSingle, response((response, body) -> ..), response() (the body
 *                                    dropped unread: the reply's is empty), responseContent() (status and headers
 *                                    through doOnResponse), responseConnection (default single)
 *   exchange=retrieve|exchange-to-mono
 *                                    webclient: retrieve().toEntity(..) (an error status arrives as the
 *                                    WebClientResponseException the application catches: its status, headers and
 *                                    body are the reply) or exchangeToMono (default retrieve)
 *   method=GET|POST|..., body=TEXT   a text/plain body in UTF-8 (an empty one for a POST or PUT without body=)
 *   header=Name:value                repeatable
 *   retryWhen=N                      webclient, exchange=retrieve: retrieve().toEntity(..).retryWhen(Retry.max(N)),
 *                                    Reactor's own retry operator above the client
 *   protocol=h2                      client: HTTP/2 over TLS where the server offers it by ALPN, else HTTP/1.1
 *                                    (HttpClient.protocol(H2, HTTP11))
 *   connectThreads=true              prints CONNECTS id=.. threads=T1,T2,.. : the thread each attempt's request was
 *                                    subscribed on (HttpClient's doOnConnect), in order
 *   oneShot=true                     the body a unicast sink's publisher: it refuses a second subscriber
 *   readTimeoutMs=N                  client, send=outbound: the request's own responseTimeout
 *   callTimeoutMs=N                  client: the caller's timeout(..) on its Mono, which cancels the call when it fires
 *   bodyFrom=URL                     client: the body is the content of a GET of URL through the same client, made
 *                                    while the request is sent (a call nested in the request's pipeline)
 *   cancelAfterMs=N, cancelOn=SIGNAL async: cancel(true) the call's future, which disposes the subscription
 *   interruptAfterMs=N               interrupt the calling thread (sync: blocked in block())
 *   startAfterMs=N, repeat=N         wait before calling; N calls one after the other, summed up in one RESULT line
 * </pre>
 * A spec naming an option of the other API, or a value no kit has, ends the application before any call. Before the
 * calls (and before {@code READY} under {@code --await-go}) every way of calling the specs name is warmed up against a
 * loopback server of the application's own ({@code WARMUP ways=.. ms=..}).
 *
 * <p>Prints {@code APP client=.. version=<reactor-netty-http> webflux=<spring-webflux, or null without it> java=..},
 * per call {@code RESULT id=.. status=.. body=.. retryAfter=.. elapsedMs=.. thread=..} or {@code RESULT id=..
 * failure=CLASS message=.. cause=.. cancelled=..} ({@link BatchCalls#run}), per async call {@code CALLBACKS id=..
 * count=.. kinds=..} ({@code completed:STATUS@THREAD}, {@code failed:EXCEPTION}, {@code cancelled}: the subscription
 * was disposed), and {@code DONE}. After the calls it collects the garbage and allocates a few buffers, so that Netty's
 * leak detector (every buffer under {@code -Dio.netty.leakDetection.level=paranoid}) reports on stderr, as
 * {@code LEAK: ...}, a response body nobody released.
 */
public class ReactorNettyBatch implements BatchApp.Client {
    /** Calls at once in a warm-up: more than the event loop has threads (as many as cores, at least 4). */
    private static final int WARM_UP_AT_ONCE = 8;
    private static final String TEXT = "text/plain; charset=utf-8";
    private static final String WEBCLIENT = "webclient";
    private static final List<String> CLIENT_ONLY = Arrays.asList("send", "receive", "readTimeoutMs", "callTimeoutMs",
            "bodyFrom", "protocol");
    private static final List<String> WEBCLIENT_ONLY = Arrays.asList("exchange", "retryWhen");

    private final String defaultApi;
    private HttpClient client;
    private final Map<String, ReactorNettyWebClientKit> webClients = new ConcurrentHashMap<>();

    /** Calls through Reactor Netty's {@code HttpClient} unless a spec says {@code api=webclient}. */
    public ReactorNettyBatch() {
        this("client");
    }

    protected ReactorNettyBatch(String defaultApi) {
        this.defaultApi = defaultApi;
    }

    /** {@link BatchApp}{@code  reactor-netty-webclient}: calls through WebClient unless a spec says otherwise. */
    public static final class WebClientFirst extends ReactorNettyBatch {
        public WebClientFirst() {
            super(WEBCLIENT);
        }
    }

    /** No options of its own: everything a call needs is in its spec. */
    @Override
    public int take(String[] argv, int i) {
        return -1;
    }

    @Override
    public List<Object> about() {
        return new ArrayList<>(Arrays.<Object>asList("version", ReactorNettyKit.version(),
                "webflux", webFluxVersion()));
    }

    /** spring-webflux's version as its jar's manifest says, or null when it is not on the class path. */
    private static String webFluxVersion() {
        try {
            Package p = Class.forName("org.springframework.web.reactive.function.client.WebClient", false,
                    ReactorNettyBatch.class.getClassLoader()).getPackage();
            return p == null ? null : p.getImplementationVersion();
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    /**
     * Reads every spec's way of calling (a wrong one ends the application here), makes the client and a WebClient per
     * exchange the specs use, and warms each way up.
     */
    @Override
    public void prepare(List<Map<String, List<String>>> calls) throws Exception {
        client = HttpClient.create();
        Map<String, Map<String, List<String>>> ways = new LinkedHashMap<>();
        try {
            for (Map<String, List<String>> call : calls) {
                Map<String, List<String>> way = way(call);
                ways.put(way.toString(), way);
            }
        } catch (IllegalArgumentException e) {
            System.err.println("usage error: " + e.getMessage());
            System.exit(2);
        }
        warmUp(ways.values());
    }

    @Override
    public void call(Map<String, List<String>> spec, String id) {
        if (spec.containsKey("protocol")) {
            if (!one(spec, "protocol", "").equals("h2")) {
                throw new IllegalArgumentException("protocol=" + one(spec, "protocol", "") + " is not h2");
            }
            HttpClient h2 = client.protocol(HttpProtocol.H2, HttpProtocol.HTTP11);
            BatchCalls.run(spec, id, (s, i) -> once(h2, s, i));
            return;
        }
        if (!spec.containsKey("connectThreads")) {
            BatchCalls.run(spec, id, this::once);
            return;
        }
        List<String> threads = Collections.synchronizedList(new ArrayList<>());
        HttpClient observed = client.doOnConnect(config -> threads.add(Thread.currentThread().getName()));
        BatchCalls.run(spec, id, (s, i) -> once(observed, s, i));
        Report.line("CONNECTS", "id", id, "threads", String.join(",", threads));
    }

    @Override
    public void afterCalls() throws InterruptedException {
        BatchCalls.Callbacks.report();
        revealLeaks();
    }

    private Seen once(Map<String, List<String>> spec, String id) throws Exception {
        return once(client, spec, id);
    }

    private Seen once(HttpClient client, Map<String, List<String>> spec, String id) throws Exception {
        KitRequest request = CallSpec.request(spec, TEXT, "oneShot");
        if (!one(spec, "mode", "sync").equals("async")) {
            return seen(block(client, spec, request));
        }
        BatchCalls.Callbacks callbacks = BatchCalls.Callbacks.of(id);
        CompletableFuture<KitReply> reply = new CompletableFuture<>();
        Disposable subscription = mono(client, spec, request).doOnCancel(callbacks::cancelled).subscribe(r -> {
            callbacks.completed(r.status());
            reply.complete(r);
        }, e -> {
            callbacks.failed(e instanceof Exception ? (Exception) e : new ExecutionException(e));
            reply.completeExceptionally(e);
        });
        reply.whenComplete((r, e) -> {
            if (e instanceof CancellationException) {
                subscription.dispose();
            }
        });
        BatchCalls.cancelAfter(spec, reply);
        return seen(reply.get(60, TimeUnit.SECONDS));
    }

    private static Seen seen(KitReply reply) {
        return new Seen(reply.status(), reply.bodyUtf8(), reply.header("Retry-After"));
    }

    /** The call of {@code spec} blocked on this thread, through its kit. */
    private KitReply block(HttpClient client, Map<String, List<String>> spec, KitRequest request) throws IOException {
        if (isWebClient(spec)) {
            return webClient(client, spec).call(request);
        }
        return new ReactorNettyKit(client, options(spec)).call(request);
    }

    /** The call of {@code spec}: a cold Mono, through its kit. */
    private Mono<KitReply> mono(HttpClient client, Map<String, List<String>> spec, KitRequest request) {
        if (isWebClient(spec)) {
            return webClient(client, spec).mono(request);
        }
        return ReactorNettyKit.mono(client, request, options(spec));
    }

    private boolean isWebClient(Map<String, List<String>> spec) {
        return one(spec, "api", defaultApi).equals(WEBCLIENT);
    }

    /** The WebClient kit of {@code spec}'s exchange and retry operator: one per pair over the batch's client. */
    private ReactorNettyWebClientKit webClient(HttpClient client, Map<String, List<String>> spec) {
        String exchange = one(spec, "exchange", "retrieve");
        int retryWhen = Integer.parseInt(one(spec, "retryWhen", "0"));
        if (retryWhen > 0 && !exchange.equals("retrieve")) {
            throw new IllegalArgumentException("retryWhen is around retrieve(): exchange=retrieve only");
        }
        if (client != this.client) {
            return new ReactorNettyWebClientKit(client, kind(ReactorNettyWebClientKit.Exchange.class, "exchange",
                    exchange), retryWhen);
        }
        return webClients.computeIfAbsent(exchange + "/" + retryWhen, e -> new ReactorNettyWebClientKit(client,
                kind(ReactorNettyWebClientKit.Exchange.class, "exchange", exchange), retryWhen));
    }

    /** The kit's options of a client call: its send, its receive and its two timeouts. */
    private static Options options(Map<String, List<String>> spec) {
        Send send = kind(Send.class, "send", one(spec, "send", "publisher"));
        Options options = Options.defaults().send(send)
                .receive(kind(Receive.class, "receive", one(spec, "receive", "single")));
        if (spec.containsKey("readTimeoutMs")) {
            if (send != Send.OUTBOUND) {
                throw new IllegalArgumentException("readTimeoutMs is set on the request: send=outbound only");
            }
            options = options.responseTimeout(Duration.ofMillis(Long.parseLong(one(spec, "readTimeoutMs", "0"))));
        }
        if (spec.containsKey("callTimeoutMs")) {
            options = options.callerTimeout(Duration.ofMillis(Long.parseLong(one(spec, "callTimeoutMs", "0"))));
        }
        if (spec.containsKey("bodyFrom")) {
            options = options.bodyFrom(one(spec, "bodyFrom", null));
        }
        return options;
    }

    /** The kit's constant an option's value spells: {@code response-flux} is {@code RESPONSE_FLUX}. */
    private static <E extends Enum<E>> E kind(Class<E> type, String key, String value) {
        for (E constant : type.getEnumConstants()) {
            if (constant.name().equals(value.toUpperCase(Locale.ROOT).replace('-', '_'))) {
                return constant;
            }
        }
        List<String> known = new ArrayList<>();
        for (E constant : type.getEnumConstants()) {
            known.add(constant.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        }
        throw new IllegalArgumentException(key + "=" + value + " is none of " + known);
    }

    /**
     * The parts of {@code spec} that say how it is called (its API and that API's send, receive or exchange), checked:
     * its options are its API's, and the kits know their values; a WebClient's kit is made here.
     */
    private Map<String, List<String>> way(Map<String, List<String>> spec) {
        boolean webClient = isWebClient(spec);
        for (String key : webClient ? CLIENT_ONLY : WEBCLIENT_ONLY) {
            if (spec.containsKey(key)) {
                throw new IllegalArgumentException(key + " is not an option of api=" + one(spec, "api", defaultApi));
            }
        }
        Map<String, List<String>> way = new LinkedHashMap<>();
        way.put("api", Collections.singletonList(webClient ? WEBCLIENT : "client"));
        if (webClient) {
            way.put("exchange", Collections.singletonList(one(spec, "exchange", "retrieve")));
            way.put("retryWhen", Collections.singletonList(one(spec, "retryWhen", "0")));
            webClient(client, way);
        } else {
            way.put("send", Collections.singletonList(one(spec, "send", "publisher")));
            way.put("receive", Collections.singletonList(one(spec, "receive", "single")));
            options(spec);
        }
        return way;
    }

    /**
     * Each way once blocked (a POST with a body) and {@link #WARM_UP_AT_ONCE} times subscribed at once (GETs), against
     * a loopback server of the application's own: the first calls of a JVM load Reactor Netty, Netty and Reactor and
     * start the event loop's threads (hundreds of ms on a loaded machine), which the contract's time bounds are not
     * about. A service that has been up for a while has done that long ago.
     */
    private void warmUp(Iterable<Map<String, List<String>>> ways) throws Exception {
        long start = System.nanoTime();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            Report.drain(exchange.getRequestBody());
            byte[] body = "warm".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", TEXT);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        int count = 0;
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/warm-up";
            for (Map<String, List<String>> way : ways) {
                block(client, way, KitRequest.of("POST", url).body("warm".getBytes(StandardCharsets.UTF_8), TEXT));
                List<CompletableFuture<KitReply>> warming = new ArrayList<>();
                for (int i = 0; i < WARM_UP_AT_ONCE; i++) {
                    warming.add(mono(client, way, KitRequest.get(url)).toFuture());
                }
                for (CompletableFuture<KitReply> reply : warming) {
                    reply.get(30, TimeUnit.SECONDS);
                }
                count++;
            }
        } finally {
            server.stop(0);
        }
        Report.line("WARMUP", "ways", count, "ms", BatchCalls.elapsedMs(start));
    }

    /**
     * Netty's leak detector reports a buffer that was collected unreleased when a later buffer is allocated: collects
     * the garbage and allocates, a few times, so that a response body nobody released is reported before the JVM ends.
     */
    private static void revealLeaks() throws InterruptedException {
        for (int round = 0; round < 3; round++) {
            System.gc();
            Thread.sleep(100);
            for (int i = 0; i < 100; i++) {
                ByteBufAllocator.DEFAULT.buffer(16).release();
            }
        }
    }
}
