package dev.retryagent.it.clients;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import reactor.core.Disposable;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;
import reactor.core.publisher.Sinks;
import reactor.netty.http.client.HttpClient;

/**
 * Spring's {@link WebClient} over Reactor Netty ({@link ReactorClientHttpConnector}; spring-webflux 5.3 to 6.x,
 * compiled against 5.3): {@code retrieve().toEntity(byte[].class)} (an error status arrives as the
 * {@link WebClientResponseException} an application catches, whose status, headers and body are the reply) or
 * {@code exchangeToMono(response -> response.toEntity(byte[].class))}; {@code block()} for {@link #call}, a
 * subscription for {@link #callAsync}. A body is {@code bodyValue(bytes)}, a one-shot one
 * {@code body(publisher, byte[].class)} of a unicast sink. Statuses are read by reflection, as
 * {@code getStatusCode()} returns {@code HttpStatus} in 5.3 and {@code HttpStatusCode} from 6.0 on.
 */
public final class ReactorNettyWebClientKit implements AsyncHttpKit {
    /** How the response is taken. */
    public enum Exchange {
        RETRIEVE,
        EXCHANGE_TO_MONO
    }

    private final WebClient web;
    private final Exchange exchange;
    /** The retries of a {@code retryWhen(Retry.max(n))} around {@code retrieve()}, or 0 for none. */
    private final int retryWhen;

    /** A {@link WebClient} over {@code HttpClient.create()}, {@link Exchange#RETRIEVE}. */
    public ReactorNettyWebClientKit() {
        this(HttpClient.create(), Exchange.RETRIEVE);
    }

    public ReactorNettyWebClientKit(HttpClient client, Exchange exchange) {
        this(client, exchange, 0);
    }

    /**
     * With {@code retryWhen} above 0 a {@link Exchange#RETRIEVE} call is retried by Reactor's own operator, as an
     * application writes it: {@code retrieve().toEntity(..).retryWhen(Retry.max(retryWhen))}, an error status included
     * (retrieve() makes it an error); the last failure is the caller's once the retries are spent.
     */
    public ReactorNettyWebClientKit(HttpClient client, Exchange exchange, int retryWhen) {
        this.web = WebClient.builder().clientConnector(new ReactorClientHttpConnector(client)).build();
        this.exchange = exchange;
        this.retryWhen = retryWhen;
    }

    @Override
    public KitReply call(KitRequest request) throws IOException {
        try {
            return mono(request).block();
        } catch (RuntimeException e) {
            Throwable cause = Exceptions.unwrap(e);
            if (cause instanceof IOException) {
                throw (IOException) cause;
            }
            // WebClient wraps the connector's exception (a refused connection's) in a WebClientRequestException.
            if (cause.getCause() instanceof IOException) {
                throw (IOException) cause.getCause();
            }
            throw e;
        }
    }

    @Override
    public CompletableFuture<KitReply> callAsync(KitRequest request) {
        CompletableFuture<KitReply> reply = new CompletableFuture<>();
        Disposable call = mono(request).subscribe(reply::complete,
                e -> reply.completeExceptionally(e.getCause() instanceof IOException ? e.getCause() : e));
        return Kits.cancelling(reply, call::dispose);
    }

    /** {@code request} through the {@link WebClient}: a cold {@link Mono}. */
    public Mono<KitReply> mono(KitRequest request) {
        WebClient.RequestBodySpec spec = web.method(HttpMethod.valueOf(request.method()))
                .uri(URI.create(request.url()))
                .headers(h -> {
                    for (Map.Entry<String, String> header : request.headers()) {
                        h.add(header.getKey(), header.getValue());
                    }
                });
        String type = request.contentType();
        if (type != null) {
            spec = spec.contentType(MediaType.parseMediaType(type));
        }
        WebClient.RequestHeadersSpec<?> sent = spec;
        if (request.hasBody()) {
            byte[] bytes = request.body();
            if (request.isOneShot()) {
                Sinks.Many<byte[]> once = Sinks.many().unicast().onBackpressureBuffer();
                once.tryEmitNext(bytes);
                once.tryEmitComplete();
                sent = spec.body(once.asFlux(), byte[].class);
            } else {
                sent = spec.bodyValue(bytes);
            }
        }
        if (exchange == Exchange.EXCHANGE_TO_MONO) {
            return sent.exchangeToMono(response -> response.toEntity(byte[].class))
                    .map(ReactorNettyWebClientKit::reply);
        }
        Mono<ResponseEntity<byte[]>> retrieved = sent.retrieve().toEntity(byte[].class);
        if (retryWhen > 0) {
            retrieved = retrieved.retryWhen(Retry.max(retryWhen).onRetryExhaustedThrow((retry, last) -> last.failure()));
        }
        return retrieved.map(ReactorNettyWebClientKit::reply)
                .onErrorResume(WebClientResponseException.class, e -> Mono.just(
                        reply(e.getRawStatusCode(), e.getHeaders(), e.getResponseBodyAsByteArray())));
    }

    private static KitReply reply(ResponseEntity<byte[]> entity) {
        return reply(status(entity), entity.getHeaders(), entity.getBody());
    }

    private static KitReply reply(int status, HttpHeaders headers, byte[] body) {
        KitReply.Builder reply = new KitReply.Builder(status);
        headers.forEach((name, values) -> {
            for (String value : values) {
                reply.header(name, value);
            }
        });
        return reply.body(body);
    }

    /** {@code entity.getStatusCode().value()}, whichever type {@code getStatusCode()} returns in this version. */
    private static int status(ResponseEntity<?> entity) {
        try {
            Method getStatusCode = ResponseEntity.class.getMethod("getStatusCode");
            Object status = getStatusCode.invoke(entity);
            return (Integer) getStatusCode.getReturnType().getMethod("value").invoke(status);
        } catch (NoSuchMethodException | IllegalAccessException e) {
            throw new IllegalStateException("ResponseEntity status: " + e, e);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("ResponseEntity status", e.getCause());
        }
    }

    @Override
    public void close() {
    }
}
