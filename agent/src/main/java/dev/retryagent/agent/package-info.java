/**
 * The agent's entry points and start-up: {@link dev.retryagent.agent.RetryAgent} (premain and agentmain, JDK types
 * only until the bootstrap jar is appended), {@code AgentStartup} (configuration, policy, runtime, the clients'
 * instrumentation), {@link dev.retryagent.agent.RetryAgentMain} ({@code java -jar retry-agent.jar}: {@code check},
 * {@code attach}), and the policy file watcher. The layering goes one way: this package, then one package per
 * client ({@code okhttp}, {@code httpclient5}, {@code httpurlconnection}), then {@code instrument}, then
 * {@code bootstrap}; nothing points back up.
 */
package dev.retryagent.agent;
