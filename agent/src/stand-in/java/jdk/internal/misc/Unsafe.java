package jdk.internal.misc;

import java.security.ProtectionDomain;

/**
 * Compile-time stand-in for the JDK's {@code jdk.internal.misc.Unsafe} (Java 9+), which the Java 8 API that the agent
 * compiles against does not have: only the two methods {@code dev.retryagent.agent.startup.bootloading.BootDefiner} calls, so that it
 * calls them directly rather than by reflection. Never shipped (the agent's pom puts this directory on the main
 * compile's source path only, and {@code -implicit:none} writes no class file for it) and never loaded: at run time
 * the name resolves to {@code java.base}'s class, whose package no other loader may define.
 */
public final class Unsafe {
    private Unsafe() {
    }

    public static Unsafe getUnsafe() {
        throw new UnsupportedOperationException("compile-time stand-in");
    }

    public Class<?> defineClass(String name, byte[] b, int off, int len, ClassLoader loader,
                                ProtectionDomain protectionDomain) {
        throw new UnsupportedOperationException("compile-time stand-in");
    }
}
