package dev.retryagent.policy;

import java.util.Arrays;

/** An immutable set of HTTP status codes (100-599), checked without boxing or hashing. */
public final class StatusSet {
    private static final int MIN = 100;
    private static final int MAX = 599;

    private final boolean[] members = new boolean[MAX + 1];
    private final int[] sorted;

    private StatusSet(int[] codes) {
        for (int code : codes) {
            if (code < MIN || code > MAX) {
                throw new IllegalArgumentException("status code " + code + " is outside 100-599");
            }
            members[code] = true;
        }
        int count = 0;
        for (boolean member : members) {
            if (member) {
                count++;
            }
        }
        sorted = new int[count];
        int i = 0;
        for (int code = MIN; code <= MAX; code++) {
            if (members[code]) {
                sorted[i++] = code;
            }
        }
    }

    public static StatusSet of(int... codes) {
        return new StatusSet(codes.clone());
    }

    public boolean contains(int status) {
        return status >= MIN && status <= MAX && members[status];
    }

    public boolean isEmpty() {
        return sorted.length == 0;
    }

    /** Whether every code of {@code other} is in this set. */
    public boolean containsAll(StatusSet other) {
        for (int code : other.sorted) {
            if (!members[code]) {
                return false;
            }
        }
        return true;
    }

    /** The codes in ascending order (a copy). */
    public int[] codes() {
        return sorted.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof StatusSet && Arrays.equals(sorted, ((StatusSet) other).sorted);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(sorted);
    }

    @Override
    public String toString() {
        return Arrays.toString(sorted);
    }
}
