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

    private final String source;
    private final List<PolicyError> errors = new ArrayList<PolicyError>();

    PolicyErrors(String source) {
        this.source = source;
    }

    String source() {
        return source;
    }

    void add(int line, String key, String message) {
        errors.add(new PolicyError(source, line, key, message));
    }

    void add(YamlValue value, String message) {
        add(value.line, value.path, message);
    }

    void add(PolicyError error) {
        errors.add(error);
    }

    int count() {
        return errors.size();
    }

    boolean isEmpty() {
        return errors.isEmpty();
    }

    /** Every error, by line; errors on one line keep the order they were found in (the sort is stable). */
    List<PolicyError> byLine() {
        List<PolicyError> sorted = new ArrayList<PolicyError>(errors);
        Collections.sort(sorted, BY_LINE);
        return sorted;
    }
}
