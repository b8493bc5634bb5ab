package dev.retryagent.bench.startup;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;

/**
 * The floor of agent/bench/startup-floor.sh: a premain that returns at once, so that a run with it costs only what
 * the JVM spends on any -javaagent. With the argument {@code transformer} it adds a transformer that changes nothing,
 * for what the JVM spends handing every class loaded afterwards to a transformer. An anonymous class, not a lambda:
 * the first lambda would cost its own bootstrap.
 */
public final class NoopAgent {
    private NoopAgent() {
    }

    public static void premain(String args, Instrumentation inst) {
        if ("transformer".equals(args)) {
            inst.addTransformer(new ClassFileTransformer() {
                @Override
                public byte[] transform(ClassLoader loader, String className, Class<?> classBeingRedefined,
                                        ProtectionDomain protectionDomain, byte[] classfileBuffer) {
                    return null;
                }
            }, true);
        }
    }

    public static void agentmain(String args, Instrumentation inst) {
        premain(args, inst);
    }
}
