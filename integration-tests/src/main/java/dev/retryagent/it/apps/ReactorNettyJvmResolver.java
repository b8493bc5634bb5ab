package dev.retryagent.it.apps;

import dev.retryagent.it.clients.HttpKit;
import dev.retryagent.it.clients.ReactorNettyKit;
import dev.retryagent.it.clients.ReactorNettyWebClientKit;
import io.netty.resolver.DefaultAddressResolverGroup;
import reactor.netty.http.client.HttpClient;

/**
 * Reactor Netty's clients resolving host names with the JVM's resolver ({@code InetAddress}, which reads
 * {@code -Djdk.net.hosts.file}) rather than Netty's DNS resolver, their default, which does not: an application's
 * {@code HttpClient.create().resolver(DefaultAddressResolverGroup.INSTANCE)}. Loaded only for Reactor Netty.
 */
final class ReactorNettyJvmResolver {
    private ReactorNettyJvmResolver() {
    }

    static HttpKit kit() {
        return new ReactorNettyKit(client(), ReactorNettyKit.Options.defaults());
    }

    static HttpKit webClientKit() {
        return new ReactorNettyWebClientKit(client(), ReactorNettyWebClientKit.Exchange.RETRIEVE);
    }

    private static HttpClient client() {
        return HttpClient.create().resolver(DefaultAddressResolverGroup.INSTANCE);
    }
}
