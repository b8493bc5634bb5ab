/**
 * The HttpURLConnection adapter: its handler, the call's facts, the connection's private state a retry resets,
 * and the JDK's hidden resend. Here, on the bootstrap path, because the hooked class is in {@code java.base}: only JDK
 * and policy-core types. How and why it works is in the {@code dev.retryagent.agent.clients.httpurlconnection} package
 * description; start with {@link dev.retryagent.agent.bootloader.httpurlconnection.HttpUrlConnectionHooks}.
 */
package dev.retryagent.agent.bootloader.httpurlconnection;
