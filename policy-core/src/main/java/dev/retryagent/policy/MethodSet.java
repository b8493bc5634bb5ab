package dev.retryagent.policy;

import java.util.Collection;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * A set of HTTP methods asked about on every call, matched in any case. The methods of RFC 9110 and {@code PATCH}
 * are bits, tested without a hash lookup (a chain of dependent loads); any other method is kept in a set.
 * Immutable.
 */
public final class MethodSet {
    private final int known;
    /** The members that are not among the bits, upper-case. */
    private final Set<String> others = new HashSet<String>();

    public MethodSet(Collection<String> methods) {
        int bits = 0;
        for (String method : methods) {
            String upper = method.toUpperCase(Locale.ROOT);
            int bit = bit(upper);
            if (bit != 0) {
                bits |= bit;
            } else {
                others.add(upper);
            }
        }
        this.known = bits;
    }

    /** {@code a} and {@code b} together. */
    public MethodSet(MethodSet a, MethodSet b) {
        this.known = a.known | b.known;
        others.addAll(a.others);
        others.addAll(b.others);
    }

    private static int bit(String upperCase) {
        switch (upperCase) {
            case "GET":
                return 1;
            case "HEAD":
                return 1 << 1;
            case "POST":
                return 1 << 2;
            case "PUT":
                return 1 << 3;
            case "DELETE":
                return 1 << 4;
            case "OPTIONS":
                return 1 << 5;
            case "TRACE":
                return 1 << 6;
            case "CONNECT":
                return 1 << 7;
            case "PATCH":
                return 1 << 8;
            default:
                return 0;
        }
    }

    public boolean contains(String method) {
        int bit = bit(method);
        if (bit != 0) {
            return (known & bit) != 0;
        }
        String upper = method.toUpperCase(Locale.ROOT);
        if (upper != method) { // the same string when it was upper-case already
            bit = bit(upper);
            if (bit != 0) {
                return (known & bit) != 0;
            }
        }
        return others.contains(upper);
    }
}
