package dev.retryagent.policy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The words a policy value may be, each standing for one value of {@code E} (a mode, a jitter, ...), in the
 * order messages list them.
 */
final class ConfigWords<E> {
    /** Gives the word a value is written as. */
    interface Naming<E> {
        String nameOf(E value);
    }

    private final Map<String, E> byName;
    private final List<String> names;

    private ConfigWords(Map<String, E> byName) {
        this.byName = byName;
        this.names = Collections.unmodifiableList(new ArrayList<String>(byName.keySet()));
    }

    static <E> ConfigWords<E> of(Iterable<E> values, Naming<E> naming) {
        Map<String, E> byName = new LinkedHashMap<String, E>();
        for (E value : values) {
            byName.put(naming.nameOf(value), value);
        }
        return new ConfigWords<E>(byName);
    }

    /** The words, in their declared order. */
    List<String> names() {
        return names;
    }

    /** The value {@code name} (one of {@link #names()}, spelled exactly) stands for. */
    E valueOf(String name) {
        return byName.get(name);
    }
}
