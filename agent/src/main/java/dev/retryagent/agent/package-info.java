/**
 * The agent's entry points and start-up: {@link dev.retryagent.agent.RetryAgent} (premain and agentmain, JDK types
 * only until the engine's classes are in the boot loader: defined there on Java 9 and later, the bootstrap jar
 * appended on Java 8), {@code AgentStartup} (configuration, policy, runtime, the clients' instrumentation),
 * {@link dev.retryagent.agent.RetryAgentMain} ({@code java -jar retry-agent.jar}: {@code check}, {@code attach}), and
 * the policy file watcher. The layering goes one way: this package, then one package per client ({@code okhttp},
 * {@code httpclient5}, {@code httpclient4}, {@code httpurlconnection}, {@code jdkhttp}) and per retry layer above the
 * clients, then {@code instrument}, then {@code bootstrap}; nothing points back up.
 */
package dev.retryagent.agent;
