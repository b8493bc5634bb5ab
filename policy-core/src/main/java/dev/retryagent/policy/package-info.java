/**
 * The policy model and its file format (docs/reference.md#the-policy-file): {@link dev.retryagent.policy.PolicyLoader}
 * reads a policy file into an immutable {@link dev.retryagent.policy.Policy} or fails with a
 * {@link dev.retryagent.policy.PolicyException} that lists every problem with its file, line and key.
 *
 * <p>Invariants: pure and client-neutral. Every model type is immutable and safe to share between threads;
 * nothing here starts a thread, reads the clock or draws a random number, and only JDK types (and the shaded
 * YAML engine, inside the loader) are used. Loading has no side effect but reading the one file it is given.
 */
package dev.retryagent.policy;
