package dev.retryagent.agent.bootloader.weaving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.retryagent.agent.LibraryClassFiles;
import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.engine.LayerRetries;
import dev.retryagent.engine.UpperLayer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HookWeaverTest {
    private static final String FIXTURE = WeaveFixture.class.getName();
    private final List<String> calls = new CopyOnWriteArrayList<>();

    @AfterEach
    void uninstall() {
        Hooks.install(null);
    }

    /** Loads the woven fixture in a loader of its own (child-first for the fixture only). */
    private static Class<?> wovenFixture(List<HookPoint> points) throws Exception {
        byte[] original = LibraryClassFiles.bytes(FIXTURE);
        byte[] woven = HookWeaver.weave(original, points);
        ClassLoader loader = new OneClassLoader(HookWeaverTest.class.getClassLoader(), FIXTURE, woven);
        return Class.forName(FIXTURE, true, loader);
    }

    private void install(boolean skip) {
        Hooks.install(site -> new Hooks.Handler() {
            @Override
            public boolean onEnter(String hook, Object self, Object[] args) {
                calls.add("enter " + hook + " site=" + site.getSimpleName() + " self=" + (self != null)
                        + " args=" + Arrays.deepToString(args));
                return skip;
            }

            @Override
            public void onExit(String hook, Object self, Object[] args) {
                calls.add("exit " + hook + " self=" + (self != null) + " args=" + Arrays.deepToString(args));
            }
        });
    }

    @SuppressWarnings("unchecked")
    private static List<String> events(Object fixture) throws Exception {
        return (List<String>) fixture.getClass().getField("events").get(fixture);
    }

    /** What a retry loop's handler answers at the loop's entry. */
    private interface LayerAnswer {
        LayerRetries at(String hook, Object self, Object[] args);
    }

    /** A handler for {@code RETRY_LOOP} hook points only, answering {@code answer}. */
    private static void installRetryLoop(LayerAnswer answer) {
        Hooks.install(site -> new Hooks.Handler() {
            @Override
            public boolean onEnter(String hook, Object self, Object[] args) {
                return false;
            }

            @Override
            public void onExit(String hook, Object self, Object[] args) {
            }

            @Override
            public LayerRetries retryLayer(String hook, Object self, Object[] args) {
                return answer.at(hook, self, args);
            }
        });
    }

    @Test
    void aRetryLoopRunsInsideItsLayerUntilItReturnsOrThrows() throws Exception {
        installRetryLoop((hook, self, args) -> {
            calls.add("loop " + hook + " self=" + (self != null) + " args=" + Arrays.deepToString(args));
            return LayerRetries.unknown("some-sdk");
        });
        Class<?> c = wovenFixture(List.of(HookPoint.retryLoop("loop", FIXTURE, "retrying", "(I)Ljava/lang/String;")));
        Object fixture = c.getConstructor(String.class).newInstance("a");
        java.lang.reflect.Method retrying = c.getMethod("retrying", int.class);

        assertEquals("done after 1", retrying.invoke(fixture, 1));
        assertNull(UpperLayer.current(), "left at the return");
        java.lang.reflect.InvocationTargetException thrown = org.junit.jupiter.api.Assertions.assertThrows(
                java.lang.reflect.InvocationTargetException.class, () -> retrying.invoke(fixture, 5));
        assertEquals("attempt 2", thrown.getCause().getMessage(), "the loop's own exception, unchanged");
        assertNull(UpperLayer.current(), "left at the throw");

        assertEquals(List.of("constructed a", "attempt 0 layer=some-sdk", "attempt 1 layer=some-sdk",
                "attempt 0 layer=some-sdk", "attempt 1 layer=some-sdk", "attempt 2 layer=some-sdk"), events(fixture));
        assertEquals(List.of("loop loop self=true args=[1]", "loop loop self=true args=[5]"), calls);
    }

    @Test
    void aRetryLoopWhoseHandlerFailsIsNoLayerAndStillLeaves() throws Exception {
        installRetryLoop((hook, self, args) -> {
            throw new IllegalStateException("broken handler");
        });
        Class<?> c = wovenFixture(List.of(HookPoint.retryLoop("loop", FIXTURE, "retrying", "(I)Ljava/lang/String;")));
        Object fixture = c.getConstructor(String.class).newInstance("b");
        assertEquals("done after 0", c.getMethod("retrying", int.class).invoke(fixture, 0));
        assertEquals(List.of("constructed b", "attempt 0 layer=(retries-off)"), events(fixture));
        assertNull(UpperLayer.current());
    }

    @Test
    void nothingMatchesNothingChanges() throws Exception {
        byte[] original = LibraryClassFiles.bytes(FIXTURE);
        assertNull(HookWeaver.weave(original, List.of(HookPoint.exit("x", FIXTURE, "send", "()V"))));
    }

    @Test
    void entryExitAndSkipCallTheHandlerWithThisAndBoxedArguments() throws Exception {
        List<HookPoint> points = new ArrayList<>();
        points.add(HookPoint.entry("init", FIXTURE, "<init>", "(Ljava/lang/String;)V"));
        points.add(HookPoint.entryMaySkip("send", FIXTURE, "send", "(Ljava/lang/String;J[I)V"));
        points.add(HookPoint.entryMaySkip("spin", FIXTURE, "spin", "(I)V"));
        points.add(HookPoint.exit("compute", FIXTURE, "compute", "(I)I"));
        points.add(HookPoint.exit("describe", FIXTURE, "describe", "(DZC)Ljava/lang/String;"));
        Class<?> type = wovenFixture(points);

        install(false);
        Object fixture = type.getConstructor(String.class).newInstance("a");
        type.getMethod("send", String.class, long.class, int[].class).invoke(fixture, "x", 7L, new int[2]);
        type.getMethod("spin", int.class).invoke(fixture, 3);
        assertEquals(-1, type.getMethod("compute", int.class).invoke(fixture, -5));
        assertEquals(8, type.getMethod("compute", int.class).invoke(fixture, 4));
        assertEquals("1.5 true c", type.getMethod("describe", double.class, boolean.class, char.class)
                .invoke(null, 1.5, true, 'c'));
        assertEquals(List.of("constructed a", "sent x 7 2", "spun"), events(fixture));
        assertEquals("enter init site=WeaveFixture self=false args=[a]", calls.get(0));
        assertEquals("enter send site=WeaveFixture self=true args=[x, 7, [0, 0]]", calls.get(1));
        assertEquals("enter spin site=WeaveFixture self=true args=[3]", calls.get(2));
        assertEquals("exit compute self=true args=[-5]", calls.get(3));
        assertEquals("exit compute self=true args=[4]", calls.get(4));
        assertEquals("exit describe self=false args=[1.5, true, c]", calls.get(5));
        assertEquals(6, calls.size());

        calls.clear();
        install(true); // the handler takes the calls over: the skippable bodies do not run
        Object skipped = type.getConstructor(String.class).newInstance("b");
        type.getMethod("send", String.class, long.class, int[].class).invoke(skipped, "y", 1L, new int[0]);
        type.getMethod("spin", int.class).invoke(skipped, 2);
        assertEquals(List.of("constructed b"), events(skipped), "constructor entry hooks never skip");
        assertEquals(3, calls.size());
    }

    @Test
    void withoutAResolverHookedMethodsRunAsUsual() throws Exception {
        Class<?> type = wovenFixture(List.of(HookPoint.entryMaySkip("send", FIXTURE, "send", "(Ljava/lang/String;J[I)V")));
        Object fixture = type.getConstructor(String.class).newInstance("c");
        type.getMethod("send", String.class, long.class, int[].class).invoke(fixture, "z", 2L, new int[1]);
        assertEquals(List.of("constructed c", "sent z 2 1"), events(fixture));
    }

    @Test
    void aFailingHandlerIsLoggedAndTheMethodRunsUntouched() throws Exception {
        Class<?> type = wovenFixture(List.of(HookPoint.entryMaySkip("send", FIXTURE, "send", "(Ljava/lang/String;J[I)V"),
                HookPoint.exit("compute", FIXTURE, "compute", "(I)I")));
        Hooks.install(site -> {
            throw new IllegalStateException("broken adapter");
        });
        Object fixture = type.getConstructor(String.class).newInstance("d");
        type.getMethod("send", String.class, long.class, int[].class).invoke(fixture, "w", 3L, new int[0]);
        assertEquals(6, type.getMethod("compute", int.class).invoke(fixture, 3));
        assertEquals(List.of("constructed d", "sent w 3 0"), events(fixture));
    }

    @Test
    void propagateLetsTheApplicationsOwnExceptionThrough() throws Exception {
        Class<?> type = wovenFixture(List.of(HookPoint.entryMaySkip("send", FIXTURE, "send", "(Ljava/lang/String;J[I)V")));
        IllegalArgumentException applications = new IllegalArgumentException("the application's");
        Hooks.install(site -> new Hooks.Handler() {
            @Override
            public boolean onEnter(String hook, Object self, Object[] args) {
                throw new Hooks.Propagate(applications);
            }

            @Override
            public void onExit(String hook, Object self, Object[] args) {
            }
        });
        Object fixture = type.getConstructor(String.class).newInstance("e");
        try {
            type.getMethod("send", String.class, long.class, int[].class).invoke(fixture, "v", 0L, new int[0]);
            throw new AssertionError("expected the application's exception");
        } catch (java.lang.reflect.InvocationTargetException e) {
            assertSame(applications, e.getCause());
        }
    }
}
