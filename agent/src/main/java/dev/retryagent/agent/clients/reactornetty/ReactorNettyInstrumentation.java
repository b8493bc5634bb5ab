package dev.retryagent.agent.clients.reactornetty;

import dev.retryagent.agent.bootloader.weaving.ClientInstrumentation;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.policy.ClientNames;

/**
 * What the agent hooks in Reactor Netty's {@code HttpClient} 1.0 to 1.3 (the same names and descriptors in each; checked
 * against the released jars by ReactorNettyInstrumentationTest), and so in Spring's {@code WebClient} on its default
 * connector, which sends through it:
 *
 * <ul>
 *   <li>entry of {@code reactor.netty.http.client.HttpClientConnect.connect()}: every way of receiving a response
 *       ({@code response()}, {@code response(..)}, {@code responseSingle}, {@code responseContent},
 *       {@code responseConnection}) assembles its request here, as a cold {@code Mono} each subscription of which
 *       acquires a connection and sends the request again, body and all. The hook returns that {@code Mono} wrapped
 *       ({@link RetryingConnect}): an attempt is a subscription to it, a retry a resubscription, scheduled on the agent's
 *       thread when the wait is over, never waited for on an event loop. Web sockets are left alone;</li>
 *   <li>entry of {@code reactor.netty.http.HttpOperations.markSentHeaders(Object...)} and of
 *       {@code markSentHeaderAndBody(Object...)} (a request without a body, or with one sent whole), for a client's
 *       request: the moment its head is final and not yet written. The request's headers are set by then wherever the application
 *       set them (on the client, in the send function, or through {@code WebClient}, which writes them when its body
 *       is committed), so the call's facts are read here, the call is handed to the async retry loop, and the marker
 *       and the attempt's {@code responseTimeout} go on the request ({@link ReactorNettyExchange#headersOut});</li>
 *   <li>entry of {@code HttpClientOperations.send(Publisher)} and of {@code ChannelOperations.sendObject(Publisher,
 *       Predicate)}, for a client's request: the body's publisher, which says whether a resubscription sends the same
 *       bytes again ({@link ReactorNettyRequests#replayable}). The hook sends the body through a wrapper that readies
 *       the request as it is subscribed ({@link ReadiedBody}), as at its head: its headers are set by then (a
 *       {@code WebClient} sets them only as it commits, after it called {@code send}), and a {@code Mono} body is
 *       subscribed (and a call it makes, nested) before the head is written, which goes out with it.</li>
 * </ul>
 *
 * The attempt a hook runs for is found in the Reactor {@code Context} of the request's connection, which carries the
 * attempt's subscriber: the same way a call made inside an attempt's pipeline is found to be nested, whichever thread
 * it runs on.
 *
 * <p>Reactor Netty's own resend (its {@code retryWhen} inside {@code connect()}) is left as it is: it follows redirects,
 * and it resends a request only when its connection was reset before the request's headers were sent, a request that
 * never left, which every rule allows to go again (docs/reference.md#the-clients-own-retries).
 *
 * <p>This class names no Reactor Netty type: it is loaded by the agent whether or not the application uses it.
 */
public final class ReactorNettyInstrumentation extends ClientInstrumentation {
    static final String CONNECT_CLASS = "reactor.netty.http.client.HttpClientConnect";
    static final String HTTP_OPERATIONS = "reactor.netty.http.HttpOperations";
    static final String CLIENT_OPERATIONS = "reactor.netty.http.client.HttpClientOperations";
    static final String CHANNEL_OPERATIONS = "reactor.netty.channel.ChannelOperations";

    public ReactorNettyInstrumentation() {
        super(ClientNames.REACTOR_NETTY, "dev.retryagent.agent.clients.reactornetty.ReactorNettyHooks",
                HookPoint.entryMayReplace(ReactorNettyHooks.CONNECT, CONNECT_CLASS, "connect",
                        "()Lreactor/core/publisher/Mono;"),
                HookPoint.entry(ReactorNettyHooks.HEADERS, HTTP_OPERATIONS, "markSentHeaders", "([Ljava/lang/Object;)Z"),
                HookPoint.entry(ReactorNettyHooks.HEADERS, HTTP_OPERATIONS, "markSentHeaderAndBody",
                        "([Ljava/lang/Object;)Z"),
                HookPoint.entryMayReplace(ReactorNettyHooks.BODY, CLIENT_OPERATIONS, "send",
                        "(Lorg/reactivestreams/Publisher;)Lreactor/netty/NettyOutbound;"),
                HookPoint.entryMayReplace(ReactorNettyHooks.BODY, CHANNEL_OPERATIONS, "sendObject",
                        "(Lorg/reactivestreams/Publisher;Ljava/util/function/Predicate;)Lreactor/netty/NettyOutbound;"));
    }
}
