package dev.retryagent.agent.clients.reactornetty;

import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.engine.AsyncRetryLoop;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.http.client.HttpClient;

/**
 * The request {@code HttpClientConnect.connect()} assembles, as the application receives it: each subscription is one
 * call, run by the async retry loop ({@link ReactorNettyExchange}); each of its attempts a subscription to
 * {@link #request}, which sends the request anew.
 */
final class RetryingConnect extends Mono<Connection> {
    private final HttpClient client;
    private final Mono<? extends Connection> request;

    RetryingConnect(HttpClient client, Mono<? extends Connection> request) {
        this.client = client;
        this.request = request;
    }

    @Override
    public void subscribe(CoreSubscriber<? super Connection> actual) {
        AsyncRetryLoop loop = RetryRuntime.asyncLoop();
        if (loop == null) {
            request.subscribe(actual);
            return;
        }
        new ReactorNettyExchange(loop, client, request, actual).start();
    }
}
