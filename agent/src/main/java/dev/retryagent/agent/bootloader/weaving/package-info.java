/**
 * The instrumentation itself, the same for every client: a client describes what it hooks
 * ({@link dev.retryagent.agent.bootloader.weaving.ClientInstrumentation}: {@link dev.retryagent.agent.bootloader.weaving.HookPoint}s,
 * its handler and adapter classes, by name), and its handler, a {@link dev.retryagent.agent.bootloader.weaving.HookHandler},
 * binds each hook to the code that serves it; {@link dev.retryagent.agent.bootloader.weaving.HookTransformer} looks every class
 * name up in a map and hands the few hooked ones to {@link dev.retryagent.agent.bootloader.weaving.HookWeaver}, which inserts
 * calls to {@code Hooks} with Byte Buddy's bundled ASM only (no {@code AgentBuilder}, no {@code Advice}: they cost
 * start-up). {@link dev.retryagent.agent.bootloader.weaving.ClientAdapters} finds the handler of a hooked class in the class
 * loader that loaded the client, defining the adapter classes there when the agent's own copy cannot see that client
 * ({@code ClassInjector}). On the bootstrap path, with ASM: one copy of each in the JVM.
 */
package dev.retryagent.agent.bootloader.weaving;
