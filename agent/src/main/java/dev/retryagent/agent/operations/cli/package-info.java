/**
 * {@code java -jar retry-agent.jar COMMAND} ({@link dev.retryagent.agent.operations.cli.RetryAgentMain}, the jar's
 * {@code Main-Class}): {@code check}, which prints policy-core's {@code dev.retryagent.analysis} of a policy file
 * as text or JSON, and {@code attach}, which loads the agent into a running JVM. Its own process only: no class of
 * the agent's start-up links here.
 */
package dev.retryagent.agent.operations.cli;
