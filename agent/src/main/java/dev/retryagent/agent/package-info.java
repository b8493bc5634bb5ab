/**
 * The agent's entry point, {@link dev.retryagent.agent.RetryAgent} (premain and agentmain: JDK types only until the
 * {@code bootloader} room's classes are in the boot loader), and its rooms, each a folder:
 * <ul>
 *   <li>{@code startup}: configuration, logging, the policy and the runtime, then the transformer, in that order;
 *       {@code startup.bootloading} puts the boot loader's classes there, {@code startup.reload} watches the policy
 *       file.</li>
 *   <li>{@code bootloader}: every class the JVM's boot loader defines: the runtime woven code calls, the weaver, and
 *       HttpURLConnection's handler (its hooks sit in {@code java.base}).</li>
 *   <li>{@code clients}: one package per client, what is hooked and the adapter that runs in the client's loader.</li>
 *   <li>{@code layers}: the retry layers above the clients, one package per library, and their table.</li>
 *   <li>{@code operations}: the JMX metrics and the command line ({@code check}, {@code attach}), which no start-up
 *       class links to but metrics.</li>
 * </ul>
 * Arrows point down and across: start-up to the clients, layers and operations, those to {@code bootloader}; never
 * back up, but start-up's phase marks on the entry point for the start-up benchmark.
 */
package dev.retryagent.agent;
