package dev.retryagent.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.instrument.ClientInstrumentation;
import dev.retryagent.agent.instrument.HookPoint;
import dev.retryagent.policy.ClientNames;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import org.junit.jupiter.api.Test;

/** Every client is described and served the same way. */
class ClientHandlersTest {
    @Test
    void everyClientIsNamedFromTheOneListOfClientNames() {
        Set<String> names = new HashSet<>();
        for (ClientInstrumentation client : AgentStartup.clients()) {
            if (!isRetryLayer(client)) {
                names.add(client.name());
            }
        }
        assertEquals(ClientNames.ALL, names);
    }

    /** A retry layer above the clients (SPEC 4.14) hooks retry loops only, and is named as the layer. */
    private static boolean isRetryLayer(ClientInstrumentation client) {
        for (HookPoint point : client.hookPoints()) {
            if (point.where() != HookPoint.Where.RETRY_LOOP) {
                return false;
            }
        }
        return true;
    }

    /** So that no handler is made by reflection (README, Start-up). */
    @Test
    void everyHandlerRegistersItsInstanceFromItsStaticInitializer() throws IOException {
        for (ClientInstrumentation client : AgentStartup.clients()) {
            String internal = client.handlerClass().replace('.', '/');
            List<String> calls = new ArrayList<>();
            try (InputStream in = getClass().getClassLoader().getResourceAsStream(internal + ".class")) {
                new ClassReader(in).accept(new ClassVisitor(Opcodes.ASM9) {
                    @Override
                    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                                     String[] exceptions) {
                        if (!name.equals("<clinit>")) {
                            return null;
                        }
                        return new MethodVisitor(Opcodes.ASM9) {
                            @Override
                            public void visitMethodInsn(int opcode, String owner, String method, String desc,
                                                        boolean isInterface) {
                                calls.add(owner + "." + method);
                            }
                        };
                    }
                }, ClassReader.SKIP_DEBUG);
            }
            assertTrue(calls.contains("dev/retryagent/agent/bootstrap/Hooks.register"),
                    client.name() + ": " + client.handlerClass() + " <clinit> calls " + calls);
        }
    }
}
