/**
 * Reactor Netty's {@code HttpClient} 1.0 to 1.3, and Spring's {@code WebClient} on its default connector: every call
 * retried by the shared engine's async loop. An adapter, not a retry loop: this package only says how to make an
 * attempt (a subscription to the request {@code HttpClientConnect.connect()} assembled), read its outcome, classify a
 * failure and release a response. Start with
 * {@link dev.retryagent.agent.clients.reactornetty.ReactorNettyInstrumentation} (what is hooked, and why there), then
 * {@link dev.retryagent.agent.clients.reactornetty.ReactorNettyExchange} (one call, its attempts and the application's
 * subscription).
 */
package dev.retryagent.agent.clients.reactornetty;
