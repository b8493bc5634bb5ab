package dev.retryagent.agent.instrument;

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

    public static String describe(double d, boolean b, char c) {
        return d + " " + b + " " + c;
    }
}
