/**
 * The agent's entry points and start-up: {@link dev.retryagent.agent.RetryAgent} (premain and agentmain, JDK types
 * only until the engine's classes are in the boot loader, which {@code boot} puts there: defined there on Java 9 and
 * later, the bootstrap jar appended on Java 8), {@code AgentStartup} (configuration, policy, runtime, the clients'
 * instrumentation), {@code AgentConfig}, {@code AgentLogging} and {@link dev.retryagent.agent.RetryLayers}. Its
 * rooms: {@code boot} (the bootstrap classes into the boot loader), {@code reload} (the policy file watcher), and
 * {@code cli} ({@code java -jar retry-agent.jar}: {@code check}, {@code attach}), which no start-up class links to.
 * The layering goes one way: this package, then one package per client ({@code okhttp}, {@code httpclient5},
 * {@code httpclient4}, {@code httpurlconnection}, {@code jdkhttp}) and per retry layer above the clients, then
 * {@code instrument}, then {@code bootstrap}; nothing points back up.
 */
package dev.retryagent.agent;
