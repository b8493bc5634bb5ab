package dev.retryagent.it.clients;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.client.HttpClientResponse;

/**
 * Reactor Netty's {@link HttpClient} (1.0 to 1.3; compiled against 1.0): a request is a {@link Mono} that does
 * nothing until it is subscribed, {@code block()}ed for {@link #call} and subscribed with callbacks for
 * {@link #callAsync} (whose cancel disposes the subscription). How the request is sent ({@link Send}), how its
 * response is received ({@link Receive}), a per-request {@code responseTimeout} and the caller's own
 * {@code .timeout(..)} are the kit's {@link Options}; {@link #mono} is the call for an application that subscribes
 * itself. A replayable body is {@link ByteBufFlux#fromString}; a one-shot body is a unicast sink's publisher, which
 * refuses a second subscriber.
 */
public final class ReactorNettyKit implements AsyncHttpKit {
    /** How the request goes out. */
    public enum Send {
        /** {@code send(Publisher<ByteBuf>)}, the headers set on the client ({@code client.headers(..)}). */
        PUBLISHER,
        /** {@code send((request, outbound) -> outbound.send(..))}, the headers set on the request there. */
        OUTBOUND
    }

    /** How the response is received. */
    public enum Receive {
        /** {@code responseSingle((response, body) -> body.asByteArray()..)}. */
        SINGLE,
        /** {@code response((response, body) -> body.aggregate()..)}. */
        RESPONSE_FLUX,
        /** {@code response()}: status and headers; Reactor Netty drops the body unread (the reply's is empty). */
        RESPONSE_ONLY,
        /** {@code responseContent()}: the body alone, status and headers through {@code doOnResponse}. */
        CONTENT,
        /** {@code responseConnection((response, connection) -> connection.inbound().receive()..)}. */
        CONNECTION;

        /** Whether the reply carries the response's body. */
        public boolean readsBody() {
            return this != RESPONSE_ONLY;
        }
    }

    /** How each call is made; {@code responseTimeout} and {@code callerTimeout} null for none. */
    public static final class Options {
        private final Send send;
        private final Receive receive;
        private final Duration responseTimeout;
        private final Duration callerTimeout;
        /** A url whose GET's content, through the same client, is the body; or null. */
        private final String bodyFrom;

        private Options(Send send, Receive receive, Duration responseTimeout, Duration callerTimeout,
                        String bodyFrom) {
            this.send = send;
            this.receive = receive;
            this.responseTimeout = responseTimeout;
            this.callerTimeout = callerTimeout;
            this.bodyFrom = bodyFrom;
        }

        /** {@link Send#PUBLISHER}, {@link Receive#SINGLE}, no timeout. */
        public static Options defaults() {
            return new Options(Send.PUBLISHER, Receive.SINGLE, null, null, null);
        }

        public Options send(Send kind) {
            return new Options(kind, receive, responseTimeout, callerTimeout, bodyFrom);
        }

        public Options receive(Receive kind) {
            return new Options(send, kind, responseTimeout, callerTimeout, bodyFrom);
        }

        /** {@code HttpClientRequest.responseTimeout(..)} on each request (sent the {@link Send#OUTBOUND} way). */
        public Options responseTimeout(Duration timeout) {
            return new Options(Send.OUTBOUND, receive, timeout, callerTimeout, bodyFrom);
        }

        /** {@code .timeout(..)} on the caller's {@link Mono}: it cancels the request when it fires. */
        public Options callerTimeout(Duration timeout) {
            return new Options(send, receive, responseTimeout, timeout, bodyFrom);
        }

        /**
         * The body is the content of a GET of {@code url} through the same client, made when the body is subscribed
         * ({@code Mono.defer}): a call inside the request's own pipeline, as a gateway that streams one service's
         * answer to another makes it.
         */
        public Options bodyFrom(String url) {
            return new Options(send, receive, responseTimeout, callerTimeout, url);
        }

        @Override
        public String toString() {
            return "send=" + send + " receive=" + receive + " responseTimeout=" + responseTimeout
                    + " callerTimeout=" + callerTimeout + (bodyFrom == null ? "" : " bodyFrom");
        }
    }

    private final HttpClient client;
    private final Options options;

    /** {@code HttpClient.create()} (the shared connection pool and event loops), the default options. */
    public ReactorNettyKit() {
        this(HttpClient.create(), Options.defaults());
    }

    public ReactorNettyKit(HttpClient client, Options options) {
        this.client = client;
        this.options = options;
    }

    public HttpClient client() {
        return client;
    }

    /** reactor-netty-http's version as its jar's manifest says, read at run time. */
    public static String version() {
        Package p = HttpClient.class.getPackage();
        String version = p == null ? null : p.getImplementationVersion();
        return version == null ? "unknown" : version;
    }

    @Override
    public KitReply call(KitRequest request) throws IOException {
        try {
            return mono(client, request, options).block();
        } catch (RuntimeException e) {
            // block() wraps a checked exception (a refused connection's, say) in an unchecked one of Reactor's.
            Throwable cause = Exceptions.unwrap(e);
            if (cause instanceof IOException) {
                throw (IOException) cause;
            }
            throw e;
        }
    }

    @Override
    public CompletableFuture<KitReply> callAsync(KitRequest request) {
        CompletableFuture<KitReply> reply = new CompletableFuture<>();
        Disposable call = mono(client, request, options).subscribe(reply::complete, reply::completeExceptionally);
        return Kits.cancelling(reply, call::dispose);
    }

    /**
     * {@code request} through {@code client} as {@code options} say: a cold {@link Mono}, each subscription of which
     * sends the request again (with its body, unless the body is one-shot).
     */
    public static Mono<KitReply> mono(HttpClient client, KitRequest request, Options options) {
        Mono<KitReply> reply = options.receive == Receive.CONTENT ? content(client, request, options)
                : receive(send(client, request, options), options.receive);
        return options.callerTimeout == null ? reply : reply.timeout(options.callerTimeout);
    }

    private static HttpClient.ResponseReceiver<?> send(HttpClient client, KitRequest request, Options options) {
        Publisher<ByteBuf> body = options.bodyFrom != null
                ? Mono.defer(() -> client.get().uri(options.bodyFrom).responseContent().aggregate().retain())
                : request.hasBody() ? body(request) : null;
        if (options.send == Send.PUBLISHER) {
            HttpClient.RequestSender sender = client.headers(h -> headers(request, h))
                    .request(HttpMethod.valueOf(request.method())).uri(request.url());
            return body == null ? sender : sender.send(body);
        }
        return client.request(HttpMethod.valueOf(request.method())).uri(request.url()).send((req, out) -> {
            for (Map.Entry<String, String> h : request.headers()) {
                req.addHeader(h.getKey(), h.getValue());
            }
            String type = request.contentType();
            if (type != null) {
                req.header(HttpHeaderNames.CONTENT_TYPE, type);
            }
            if (options.responseTimeout != null) {
                req.responseTimeout(options.responseTimeout);
            }
            return body == null ? out : out.send(body);
        });
    }

    /** A text body from {@link ByteBufFlux#fromString} (replayable), or a one-shot publisher of its bytes. */
    private static Publisher<ByteBuf> body(KitRequest request) {
        byte[] bytes = request.body();
        if (request.isOneShot()) {
            Sinks.Many<byte[]> once = Sinks.many().unicast().onBackpressureBuffer();
            once.tryEmitNext(bytes);
            once.tryEmitComplete();
            return once.asFlux().map(Unpooled::wrappedBuffer);
        }
        return ByteBufFlux.fromString(Mono.just(new String(bytes, StandardCharsets.UTF_8)), StandardCharsets.UTF_8,
                ByteBufAllocator.DEFAULT);
    }

    private static void headers(KitRequest request, HttpHeaders headers) {
        for (Map.Entry<String, String> h : request.headers()) {
            headers.add(h.getKey(), h.getValue());
        }
        String type = request.contentType();
        if (type != null) {
            headers.set(HttpHeaderNames.CONTENT_TYPE, type);
        }
    }

    private static Mono<KitReply> receive(HttpClient.ResponseReceiver<?> sent, Receive receive) {
        switch (receive) {
            case SINGLE:
                return sent.responseSingle((response, body) -> body.asByteArray().defaultIfEmpty(new byte[0])
                        .map(bytes -> reply(response, bytes)));
            case RESPONSE_FLUX:
                return sent.response((response, body) -> body.aggregate().asByteArray().defaultIfEmpty(new byte[0])
                        .map(bytes -> reply(response, bytes))).single();
            case RESPONSE_ONLY:
                return sent.response().map(response -> reply(response, null));
            case CONNECTION:
                return sent.responseConnection((response, connection) -> connection.inbound().receive().aggregate()
                        .asByteArray().defaultIfEmpty(new byte[0]).map(bytes -> reply(response, bytes))).single();
            default:
                throw new IllegalArgumentException("receive " + receive);
        }
    }

    /**
     * {@code responseContent()}: the response itself reaches the caller only through a {@code doOnResponse} on the
     * client the request goes through: each subscription has its own.
     */
    private static Mono<KitReply> content(HttpClient client, KitRequest request, Options options) {
        return Mono.defer(() -> {
            AtomicReference<HttpClientResponse> seen = new AtomicReference<>();
            HttpClient observed = client.doOnResponse((response, connection) -> seen.set(response));
            return send(observed, request, options).responseContent().aggregate().asByteArray()
                    .defaultIfEmpty(new byte[0]).map(bytes -> reply(seen.get(), bytes));
        });
    }

    private static KitReply reply(HttpClientResponse response, byte[] body) {
        KitReply.Builder reply = new KitReply.Builder(response.status().code());
        for (Map.Entry<String, String> h : response.responseHeaders()) {
            reply.header(h.getKey(), h.getValue());
        }
        return reply.body(body);
    }

    /** Nothing of its own: {@code HttpClient.create()}'s pool and event loops are Reactor Netty's shared ones. */
    @Override
    public void close() {
    }
}
