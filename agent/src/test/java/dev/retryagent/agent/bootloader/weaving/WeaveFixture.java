package dev.retryagent.agent.bootloader.weaving;

import dev.retryagent.engine.UpperLayer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** A class for HookWeaverTest to weave: constructors, a void method, a loop at offset 0, primitives. */
public class WeaveFixture {
    public final List<String> events = new ArrayList<>();

    public WeaveFixture(String name) {
        events.add("constructed " + name);
    }

    public void send(String what, long size, int[] parts) {
        events.add("sent " + what + " " + size + " " + parts.length);
    }

    public void spin(int n) {
        while (n > 0) { // a jump target at the method's first instruction: a stack map frame at offset 0
            n--;
        }
        events.add("spun");
    }

    public int compute(int x) {
        if (x < 0) {
            return -1;
        }
        return x * 2;
    }

    /** A retry loop of its own: its handler catches the failures it retries, and it throws the last one. */
    public String retrying(int failures) throws IOException {
        for (int i = 0; ; i++) {
            try {
                events.add("attempt " + i + " layer=" + UpperLayer.current());
                if (i < failures) {
                    throw new IOException("attempt " + i);
                }
                return "done after " + i;
            } catch (IOException e) {
                if (i >= 2) {
                    throw e;
                }
            }
        }
    }

    public static String describe(double d, boolean b, char c) {
        return d + " " + b + " " + c;
    }
}
