package dev.retryagent.agent.clients.httpclient5;

import java.util.ArrayList;
import java.util.List;

/**
 * A class for EntryMayReplaceWeavingTest to weave: reference returns, a boolean return, a static method, a loop at
 * offset 0.
 */
public class ReplaceFixture {
    public final List<String> events = new ArrayList<>();

    public String fetch(String key, int n) {
        events.add("fetch " + key + " " + n);
        return key + "#" + n;
    }

    public static List<String> lookup(long id) {
        return new ArrayList<>(List.of("found " + id));
    }

    public String[] split(String text) {
        int i = 0;
        while (i < 2) { // a jump target at the method's first instruction: a stack map frame at offset 0
            i++;
        }
        events.add("split " + text);
        return text.split(",");
    }

    public String fail(String why) throws java.io.IOException {
        events.add("fail " + why);
        throw new java.io.IOException(why);
    }

    public boolean allowed(String what, boolean sent) {
        events.add("allowed " + what + " " + sent);
        return !sent;
    }
}
