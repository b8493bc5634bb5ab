/**
 * What woven client code calls, and the one retry runtime of the JVM. These classes are loaded from the agent's
 * bootstrap jar by the bootstrap loader, so that a hooked class in any loader ({@code java.base}, the system loader,
 * a web application's) links to the same copy: they name JDK and policy-core types only, never a client's.
 *
 * <ul>
 *   <li>{@link dev.retryagent.agent.bootloader.runtime.Hooks}: the calls the weaver inserts, routed to each client's
 *       {@code Hooks.Handler}; fails open (an error of the agent's own lets the hooked method run untouched).</li>
 *   <li>{@link dev.retryagent.agent.bootloader.runtime.RetryRuntime}: the one {@code RetryEngine}, its loops and the
 *       scheduler thread async retries wait on, shared by every client and class loader (budgets and counters are
 *       per destination, not per client).</li>
 *   <li>{@link dev.retryagent.agent.bootloader.runtime.Housekeeping}: the one thread for periodic work that is not a retry.</li>
 *   <li>{@link dev.retryagent.agent.bootloader.runtime.Failures}, {@link dev.retryagent.agent.bootloader.runtime.NotIoFailure}: the
 *       part of failure classification every client shares.</li>
 *   <li>{@link dev.retryagent.agent.bootloader.runtime.RequestPaths}, {@link
 *       dev.retryagent.agent.bootloader.runtime.Closeables}: a request's path without its query, and a quiet
 *       {@code close()}, as more than one client's adapter needs them.</li>
 *   <li>{@link dev.retryagent.agent.bootloader.runtime.OpenTelemetryTracer}: the loops' tracer, which traces each attempt
 *       through the OpenTelemetry Java agent when that agent runs in the JVM ({@code runtime.opentelemetry}, the
 *       only classes that link to OpenTelemetry's API).</li>
 * </ul>
 */
package dev.retryagent.agent.bootloader.runtime;
