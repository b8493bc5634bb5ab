package dev.retryagent.policy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/** The problems found in one policy file, in the order they were found; reported sorted by line. */
final class PolicyErrors {
    /** The key of errors about the file as a whole. */
    static final String FILE_KEY = "(file)";
    /** The key of YAML syntax errors. */
    static final String YAML_KEY = "(yaml)";

    private static final Comparator<PolicyError> BY_LINE = new Comparator<PolicyError>() {
        @Override
        public int compare(PolicyError a, PolicyError b) {
            return Integer.compare(a.line(), b.line());
        }
    };

    /**
     * The most errors kept of one file. A hostile 64 KiB file can hold tens of thousands (a list of 30,000 wrong
     * items), whose messages alone would take more memory than a load may; past this many only a count is kept.
     */
    static final int MAX_KEPT = 100;

    private final String source;
    private final List<PolicyError> errors = new ArrayList<PolicyError>();
    /** Errors found past {@link #MAX_KEPT}, counted only. */
    private int dropped;
    /** The first line of a dropped error. */
    private int firstDroppedLine = Integer.MAX_VALUE;

    PolicyErrors(String source) {
        this.source = source;
    }

    String source() {
        return source;
    }

    void add(int line, String key, String message) {
        if (errors.size() >= MAX_KEPT) {
            drop(line);
            return;
        }
        errors.add(new PolicyError(source, line, key, message));
    }

    void add(YamlValue value, String message) {
        add(value.line, value.path, message);
    }

    void add(PolicyError error) {
        if (errors.size() >= MAX_KEPT) {
            drop(error.line());
            return;
        }
        errors.add(error);
    }

    private void drop(int line) {
        dropped++;
        firstDroppedLine = Math.min(firstDroppedLine, line);
    }

    /**
     * True once more errors were found than are kept: a validator may then stop walking long lists, since nothing
     * more it finds would be listed.
     */
    boolean overflowed() {
        return dropped > 0;
    }

    /** How many errors were found, the ones past {@link #MAX_KEPT} included. */
    int count() {
        return errors.size() + dropped;
    }

    boolean isEmpty() {
        return errors.isEmpty();
    }

    /** Every error, by line; errors on one line keep the order they were found in (the sort is stable). */
    List<PolicyError> byLine() {
        List<PolicyError> sorted = new ArrayList<PolicyError>(errors);
        Collections.sort(sorted, BY_LINE);
        if (dropped > 0) {
            sorted.add(new PolicyError(source, firstDroppedLine, FILE_KEY, "more errors than the "
                    + MAX_KEPT + " listed; the first not listed is on this line"));
        }
        return sorted;
    }
}
