package dev.retryagent.agent.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.layers.LayerTable;
import dev.retryagent.agent.bootloader.weaving.ClientInstrumentation;
import dev.retryagent.agent.bootloader.weaving.HookHandler;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.policy.ClientNames;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;
import org.junit.jupiter.api.Test;

/** Every client is described and served the same way. */
class ClientHandlersTest {
    /**
     * A hook point whose hook the handler does not serve with code of the point's kind leaves the hooked method
     * running as without the agent; code no hook point names is never run. Over every client and retry layer the
     * agent registers.
     */
    @Test
    void everyHookPointIsServedByItsHandlerWithCodeOfItsKindAndEveryServedHookHasAPoint() throws Exception {
        List<String> problems = new ArrayList<>();
        int points = 0;
        int hooks = 0;
        for (ClientInstrumentation client : AgentStartup.clients()) {
            assertFalse(client.hookPoints().isEmpty(), client.name());
            Map<String, HookPoint.Where> served = handlerOf(client).served();
            problems.addAll(bindingProblems(client, served));
            points += client.hookPoints().size();
            hooks += served.size();
        }
        assertEquals(List.of(), problems);
        assertTrue(points >= hooks && hooks >= AgentStartup.clients().size(), points + " points, " + hooks + " hooks");
    }

    /** The check above finds each of the three mistakes. */
    @Test
    void theBindingCheckFindsAPointWithoutCodeCodeWithoutAPointAndAKindMismatch() {
        ClientInstrumentation client = new ClientInstrumentation("test", "test.Hooks",
                HookPoint.entry("test.served", "test.C", "m", "()V"),
                HookPoint.entryMaySkip("test.kind", "test.C", "n", "()V"),
                HookPoint.exit("test.unserved", "test.C", "o", "()V"));
        Map<String, HookPoint.Where> served = new LinkedHashMap<>();
        served.put("test.served", HookPoint.Where.ENTRY);
        served.put("test.kind", HookPoint.Where.ENTRY);
        served.put("test.unused", HookPoint.Where.EXIT);
        assertEquals(List.of(
                "test: hook point test.kind ENTRY_MAY_SKIP test.C.n()V is served by ENTRY code of test.Hooks",
                "test: hook point test.unserved EXIT test.C.o()V has no code in test.Hooks",
                "test: test.Hooks serves test.unused (EXIT), which no hook point names"),
                bindingProblems(client, served));
    }

    /** {@code client}'s hook points against what its handler serves: each mistake, as a line. */
    static List<String> bindingProblems(ClientInstrumentation client, Map<String, HookPoint.Where> served) {
        List<String> problems = new ArrayList<>();
        Set<String> named = new HashSet<>();
        for (HookPoint point : client.hookPoints()) {
            named.add(point.hook());
            HookPoint.Where kind = served.get(point.hook());
            if (kind == null) {
                problems.add(client.name() + ": hook point " + point + " has no code in " + client.handlerClass());
            } else if (kind != point.where()) {
                problems.add(client.name() + ": hook point " + point + " is served by " + kind + " code of "
                        + client.handlerClass());
            }
        }
        for (Map.Entry<String, HookPoint.Where> hook : served.entrySet()) {
            if (!named.contains(hook.getKey())) {
                problems.add(client.name() + ": " + client.handlerClass() + " serves " + hook.getKey() + " ("
                        + hook.getValue() + "), which no hook point names");
            }
        }
        return problems;
    }

    private static HookHandler handlerOf(ClientInstrumentation client) throws ReflectiveOperationException {
        Class<?> type = Class.forName(client.handlerClass());
        assertTrue(HookHandler.class.isAssignableFrom(type), client.handlerClass() + " is no HookHandler");
        return (HookHandler) type.getConstructor().newInstance();
    }

    /** Retry layers above the clients (only {@code RETRY_LOOP} hook points) are named by their layer instead. */
    @Test
    void everyClientIsNamedFromTheOneListOfClientNames() {
        Set<String> names = new HashSet<>();
        for (ClientInstrumentation client : AgentStartup.clients()) {
            // A layer above the clients (hooked only at its retry loops) is named for its layer, not as a client.
            if (!client.isRetryLayer()) {
                names.add(client.name());
            }
        }
        assertEquals(ClientNames.ALL, names);
    }

    /**
     * Premain loads the retry layers' table and none of their packages' classes: a handler is named by string, and
     * loads when a class of its library is woven (README, Start-up).
     */
    @Test
    void theLayerTableLinksToNoClassOfALayer() throws IOException {
        Set<String> packages = new HashSet<>();
        for (ClientInstrumentation layer : LayerTable.all()) {
            assertTrue(layer.isRetryLayer(), layer.name());
            String handler = layer.handlerClass().replace('.', '/');
            packages.add(handler.substring(0, handler.lastIndexOf('/') + 1));
        }
        assertEquals(LayerTable.all().size(), packages.size(), "a package per layer: " + packages);
        Set<String> linked = new TreeSet<>();
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(
                LayerTable.class.getName().replace('.', '/') + ".class")) {
            new ClassReader(in).accept(new ClassVisitor(Opcodes.ASM9) {
                @Override
                public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                                 String[] exceptions) {
                    return new MethodVisitor(Opcodes.ASM9) {
                        @Override
                        public void visitMethodInsn(int opcode, String owner, String method, String desc,
                                                    boolean isInterface) {
                            linked.add(owner);
                        }

                        @Override
                        public void visitFieldInsn(int opcode, String owner, String field, String desc) {
                            linked.add(owner);
                        }

                        @Override
                        public void visitTypeInsn(int opcode, String type) {
                            linked.add(type);
                        }

                        @Override
                        public void visitLdcInsn(Object value) {
                            if (value instanceof Type) {
                                linked.add(((Type) value).getInternalName());
                            }
                        }
                    };
                }
            }, ClassReader.SKIP_DEBUG);
        }
        assertTrue(linked.contains("dev/retryagent/agent/bootloader/weaving/ClientInstrumentation"), linked.toString());
        for (String owner : linked) {
            String pkg = owner.substring(0, owner.lastIndexOf('/') + 1);
            assertFalse(packages.contains(pkg), owner + " is linked from LayerTable");
        }
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
            assertTrue(calls.contains("dev/retryagent/agent/bootloader/runtime/Hooks.register"),
                    client.name() + ": " + client.handlerClass() + " <clinit> calls " + calls);
        }
    }
}
