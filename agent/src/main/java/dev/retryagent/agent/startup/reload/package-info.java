/**
 * The policy file: {@link dev.retryagent.agent.startup.reload.PolicyWatcher} loads it at start-up and again whenever its
 * content changes (docs/reference.md#hot-reload), {@link dev.retryagent.agent.startup.reload.ContentHash} names each content.
 * Loaded only when there is a policy file: a start on the built-in policy loads none of its classes.
 */
package dev.retryagent.agent.startup.reload;
