package dev.retryagent.agent.bootloader.weaving;

import dev.retryagent.engine.LayerRetries;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.CapturedLog;
import dev.retryagent.agent.bootloader.runtime.Hooks;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class HookHandlerTest {
    private static final Object ANSWER = new Object();

    private final CapturedLog captured = new CapturedLog();

    @BeforeEach
    void capture() {
        captured.start(Level.WARNING);
    }

    @AfterEach
    void release() {
        captured.stop();
    }

    /** One hook of each kind, each recording its call. */
    static final class FiveKinds extends HookHandler {
        final List<String> calls = new ArrayList<>();

        FiveKinds() {
            serve("t.entry", new OnEntry() {
                @Override
                public void run(Object self, Object[] args) {
                    calls.add("entry " + self + " " + args.length);
                }
            });
            serve("t.skip", new OnEntryMaySkip() {
                @Override
                public boolean run(Object self, Object[] args) {
                    calls.add("skip");
                    return true;
                }
            });
            serve("t.replace", new OnEntryMayReplace() {
                @Override
                public Object run(Object self, Object[] args) {
                    calls.add("replace");
                    return ANSWER;
                }
            });
            serve("t.exit", new OnExit() {
                @Override
                public void run(Object self, Object[] args) {
                    calls.add("exit");
                }
            });
            serve("t.loop", new OnRetryLoop() {
                @Override
                public LayerRetries run(Object self, Object[] args) {
                    calls.add("loop");
                    return LayerRetries.unknown("layer");
                }
            });
        }
    }

    @Test
    void eachHookReachesItsCodeAndTellsItsKind() {
        FiveKinds handler = new FiveKinds();
        assertFalse(handler.onEnter("t.entry", "s", new Object[2]));
        assertTrue(handler.onEnter("t.skip", null, new Object[0]));
        assertSame(ANSWER, handler.onEnterMayReplace("t.replace", null, new Object[0]));
        handler.onExit("t.exit", null, new Object[0]);
        assertEquals("layer", handler.retryLayer("t.loop", null, new Object[0]).layer());
        assertEquals(List.of("entry s 2", "skip", "replace", "exit", "loop"), handler.calls);

        Map<String, HookPoint.Where> kinds = new LinkedHashMap<>();
        kinds.put("t.entry", HookPoint.Where.ENTRY);
        kinds.put("t.skip", HookPoint.Where.ENTRY_MAY_SKIP);
        kinds.put("t.replace", HookPoint.Where.ENTRY_MAY_REPLACE);
        kinds.put("t.exit", HookPoint.Where.EXIT);
        kinds.put("t.loop", HookPoint.Where.RETRY_LOOP);
        assertEquals(kinds, handler.served());
        assertTrue(captured.lines.isEmpty(), captured.lines.toString());
    }

    /** Fail open: as without the agent, logged once per hook as an internal error. */
    @Test
    void aHookWithoutCodeOfTheKindCalledRunsUntouchedAndIsLoggedOnce() {
        FiveKinds handler = new FiveKinds();
        for (int i = 0; i < 2; i++) {
            assertFalse(handler.onEnter("t.absent-entry", null, new Object[0]));
            assertSame(Hooks.PROCEED, handler.onEnterMayReplace("t.exit", null, new Object[0]));
            handler.onExit("t.absent-exit", null, new Object[0]);
            assertNull(handler.retryLayer("t.entry", null, new Object[0]));
        }
        assertEquals(List.of(), handler.calls);
        assertEquals(4, captured.lines.size(), captured.lines.toString());
        assertTrue(captured.lines.get(0).startsWith(
                "WARNING retry-agent internal-error where=hook:t.absent-entry error=java.lang.IllegalStateException"),
                captured.lines.toString());
        assertTrue(captured.lines.get(1).contains("where=hook:t.exit "), captured.lines.toString());
    }

    @Test
    void aHookIsServedOnce() {
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> new HookHandler() {
            {
                serve("t.twice", new OnExit() {
                    @Override
                    public void run(Object self, Object[] args) {
                    }
                });
                serve("t.twice", new OnEntry() {
                    @Override
                    public void run(Object self, Object[] args) {
                    }
                });
            }
        });
        assertTrue(twice.getMessage().endsWith(" serves t.twice twice"), twice.getMessage());
    }
}
