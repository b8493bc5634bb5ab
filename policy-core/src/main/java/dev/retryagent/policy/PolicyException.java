package dev.retryagent.policy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A policy file could not be used. Carries every problem found in it, each with its file, line and key;
 * {@link #getMessage()} lists them one per line.
 */
public final class PolicyException extends Exception {
    private static final long serialVersionUID = 1L;

    private final List<PolicyError> errors;

    public PolicyException(List<PolicyError> errors) {
        this(errors, null);
    }

    public PolicyException(List<PolicyError> errors, Throwable cause) {
        super(render(errors), cause);
        this.errors = Collections.unmodifiableList(new ArrayList<PolicyError>(errors));
    }

    public PolicyException(PolicyError error) {
        this(Collections.singletonList(error), null);
    }

    public PolicyException(PolicyError error, Throwable cause) {
        this(Collections.singletonList(error), cause);
    }

    /** Every problem found, in the order of their lines; never empty. */
    public List<PolicyError> errors() {
        return errors;
    }

    private static String render(List<PolicyError> errors) {
        if (errors == null || errors.isEmpty()) {
            throw new IllegalArgumentException("a PolicyException needs at least one error");
        }
        StringBuilder sb = new StringBuilder();
        for (PolicyError error : errors) {
            if (sb.length() > 0) {
                sb.append('\n');
            }
            sb.append(error);
        }
        return sb.toString();
    }
}
