package dev.retryagent.agent.clients.httpclient5;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.LibraryClassFiles;
import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.agent.bootloader.weaving.HookWeaver;
import dev.retryagent.agent.bootloader.weaving.OneClassLoader;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code ENTRY_MAY_REPLACE} hook kind (added for {@code MinimalHttpClient.doExecute}): the woven method
 * returns the handler's value instead of running its body, runs its body on {@link Hooks#PROCEED}, and a nested
 * call of the same hook on the same instance from within the handler (the real call) runs the body. The woven class is defined by an
 * ordinary class loader, so the verifier checks the frames the weaver wrote.
 */
class EntryMayReplaceWeavingTest {
    private static final String FIXTURE = ReplaceFixture.class.getName();
    private static final List<HookPoint> POINTS = List.of(
            HookPoint.entryMayReplace("fetch", FIXTURE, "fetch", "(Ljava/lang/String;I)Ljava/lang/String;"),
            HookPoint.entryMayReplace("lookup", FIXTURE, "lookup", "(J)Ljava/util/List;"),
            HookPoint.entryMayReplace("split", FIXTURE, "split", "(Ljava/lang/String;)[Ljava/lang/String;"),
            HookPoint.entryMayReplace("fail", FIXTURE, "fail", "(Ljava/lang/String;)Ljava/lang/String;"),
            HookPoint.entryMayReplace("allowed", FIXTURE, "allowed", "(Ljava/lang/String;Z)Z"));

    private final List<String> calls = new CopyOnWriteArrayList<>();

    @AfterEach
    void uninstall() {
        Hooks.install(null);
    }

    private static Class<?> wovenFixture() throws Exception {
        byte[] original = LibraryClassFiles.bytes(FIXTURE);
        byte[] woven = HookWeaver.weave(original, POINTS);
        ClassLoader loader = new OneClassLoader(EntryMayReplaceWeavingTest.class.getClassLoader(), FIXTURE, woven);
        return Class.forName(FIXTURE, true, loader);
    }

    private void install(Function<Object[], Object> answer) {
        Hooks.install(site -> new Hooks.Handler() {
            @Override
            public boolean onEnter(String hook, Object self, Object[] args) {
                return false;
            }

            @Override
            public void onExit(String hook, Object self, Object[] args) {
            }

            @Override
            public Object onEnterMayReplace(String hook, Object self, Object[] args) {
                calls.add(hook + " self=" + (self != null) + " args=" + Arrays.toString(args));
                Object[] withSelf = new Object[args.length + 2];
                withSelf[0] = hook;
                withSelf[1] = self;
                System.arraycopy(args, 0, withSelf, 2, args.length);
                return answer.apply(withSelf);
            }
        });
    }

    @SuppressWarnings("unchecked")
    private static List<String> events(Object fixture) throws Exception {
        return (List<String>) fixture.getClass().getField("events").get(fixture);
    }

    private static Object call(Object target, Class<?> type, String name, Object... args) throws Throwable {
        for (Method m : type.getMethods()) {
            if (m.getName().equals(name)) {
                try {
                    return m.invoke(target, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            }
        }
        throw new NoSuchMethodException(name);
    }

    @Test
    void theHandlersValueIsReturnedAndTheBodyDoesNotRun() throws Throwable {
        Class<?> type = wovenFixture();
        install(a -> a[0].equals("lookup") ? new ArrayList<>(List.of("replaced")) : a[0].equals("split")
                ? new String[] {"x"} : "replaced " + a[2] + " " + a[3]);
        Object fixture = type.getConstructor().newInstance();

        assertEquals("replaced k 7", call(fixture, type, "fetch", "k", 7));
        assertEquals(List.of("replaced"), call(null, type, "lookup", 42L));
        assertArrayEquals(new String[] {"x"}, (String[]) call(fixture, type, "split", "a,b"));
        assertEquals(List.of(), events(fixture), "no body ran");
        assertEquals(List.of("fetch self=true args=[k, 7]", "lookup self=false args=[42]", "split self=true args=[a,b]"),
                calls);
    }

    @Test
    void proceedRunsTheBodyAndNullIsAValueLikeAnyOther() throws Throwable {
        Class<?> type = wovenFixture();
        install(a -> a[0].equals("fetch") ? null : Hooks.PROCEED);
        Object fixture = type.getConstructor().newInstance();

        assertNull(call(fixture, type, "fetch", "k", 1));
        assertEquals(List.of("found 5"), call(null, type, "lookup", 5L));
        assertArrayEquals(new String[] {"a", "b"}, (String[]) call(fixture, type, "split", "a,b"));
        assertEquals(List.of("split a,b"), events(fixture));
    }

    @Test
    void aNestedCallOfTheSameHookFromTheHandlerRunsTheBody() throws Throwable {
        Class<?> type = wovenFixture();
        install(a -> {
            try {
                // the handler makes the real call, twice, as a retry loop would
                Object first = call(a[1], type, "fetch", a[2], (Integer) a[3]);
                Object second = call(a[1], type, "fetch", a[2], (Integer) a[3] + 1);
                return first + "," + second;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        });
        Object fixture = type.getConstructor().newInstance();

        assertEquals("k#1,k#2", call(fixture, type, "fetch", "k", 1));
        assertEquals(List.of("fetch k 1", "fetch k 2"), events(fixture));
        assertEquals(1, calls.size(), "only the outer call reached the handler: " + calls);

        // The guard is over once the handler has returned: the next call reaches the handler again.
        assertEquals("k#3,k#4", call(fixture, type, "fetch", "k", 3));
        assertEquals(2, calls.size());
    }

    /**
     * The guard is per instance: the same hook on another instance, called from within the handler (a call of its
     * own made inside an attempt, such as another connection's), reaches the handler, which then sees it as nested.
     */
    @Test
    void theSameHookOnAnotherInstanceFromTheHandlerReachesTheHandler() throws Throwable {
        Class<?> type = wovenFixture();
        Object other = type.getConstructor().newInstance();
        install(a -> {
            if (a[1] == other) {
                return "inner " + a[2];
            }
            try {
                return call(other, type, "fetch", "o", 1) + "," + call(a[1], type, "fetch", a[2], (Integer) a[3]);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        });
        Object fixture = type.getConstructor().newInstance();

        assertEquals("inner o,k#1", call(fixture, type, "fetch", "k", 1));
        assertEquals(2, calls.size(), "the other instance's call reached the handler: " + calls);
        assertEquals(List.of("fetch k 1"), events(fixture));
        assertEquals(List.of(), events(other));
    }

    @Test
    void propagateThrowsTheClientsExceptionAndAFailingHandlerFailsOpen() throws Throwable {
        Class<?> type = wovenFixture();
        Object fixture = type.getConstructor().newInstance();
        IOException clients = new IOException("the client's");
        install(a -> {
            throw new Hooks.Propagate(clients);
        });
        assertSame(clients, assertThrows(IOException.class, () -> call(fixture, type, "fetch", "k", 1)));

        install(a -> {
            throw new IllegalStateException("broken adapter");
        });
        assertEquals("k#2", call(fixture, type, "fetch", "k", 2), "the body runs as if the agent were absent");
        assertEquals("boom", assertThrows(IOException.class, () -> call(fixture, type, "fail", "boom")).getMessage());
        assertEquals(List.of("fetch k 2", "fail boom"), events(fixture));

        Hooks.install(null);
        assertEquals("k#3", call(fixture, type, "fetch", "k", 3), "no resolver: the body runs");
    }

    @Test
    void aBooleanMethodReturnsTheHandlersBooleanOrRunsItsBody() throws Throwable {
        Class<?> type = wovenFixture();
        install(a -> "yes".equals(a[2]) ? Boolean.TRUE : "no".equals(a[2]) ? Boolean.FALSE : Hooks.PROCEED);
        Object fixture = type.getConstructor().newInstance();

        assertEquals(true, call(fixture, type, "allowed", "yes", true));
        assertEquals(false, call(fixture, type, "allowed", "no", false));
        assertEquals(List.of(), events(fixture), "no body ran");
        assertEquals(false, call(fixture, type, "allowed", "other", true));
        assertEquals(true, call(fixture, type, "allowed", "other", false));
        assertEquals(List.of("allowed other true", "allowed other false"), events(fixture));
        assertEquals(List.of("allowed self=true args=[yes, true]", "allowed self=true args=[no, false]",
                "allowed self=true args=[other, true]", "allowed self=true args=[other, false]"), calls);
    }

    @Test
    void onlyMethodsReturningAReferenceOrABooleanCanHaveTheirResultReplaced() {
        assertThrows(IllegalArgumentException.class, () -> HookPoint.entryMayReplace("v", FIXTURE, "run", "()V"));
        assertThrows(IllegalArgumentException.class, () -> HookPoint.entryMayReplace("i", FIXTURE, "size", "()I"));
        assertThrows(IllegalArgumentException.class,
                () -> HookPoint.entryMayReplace("c", FIXTURE, "<init>", "()Ljava/lang/Object;"));
        assertTrue(HookPoint.entryMayReplace("a", FIXTURE, "all", "()[I").toString().contains("ENTRY_MAY_REPLACE"));
        assertTrue(HookPoint.entryMayReplace("z", FIXTURE, "ok", "()Z").toString().contains("ENTRY_MAY_REPLACE"));
    }
}
