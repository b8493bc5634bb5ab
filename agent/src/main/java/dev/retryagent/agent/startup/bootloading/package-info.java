/**
 * The bootstrap classes into the boot loader, before any of them may load: {@link
 * dev.retryagent.agent.startup.bootloading.BootClasses} defines the build-time packs there through {@link
 * dev.retryagent.agent.startup.bootloading.BootDefiner} (Java 9 and later), or appends the nested bootstrap jar to the boot loader's
 * search path (Java 8, or when defining fails). JDK types only, and linked to no other package of the agent: it runs
 * while the engine's classes exist nowhere yet. The packs' writer, {@code BootClassPack}, is a build-time tool
 * ({@code agent/src/build/java}) in no jar.
 */
package dev.retryagent.agent.startup.bootloading;
