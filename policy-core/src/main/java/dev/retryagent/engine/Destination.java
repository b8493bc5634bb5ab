package dev.retryagent.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/** One (scheme, host, port): its retry budget, shared by all clients, and its counters per client. */
public final class Destination {
    /** The scheme of the one destination that stands for every host past {@link Destinations#MAX_HOSTS}. */
    static final String OVERFLOW_SCHEME = "*";

    private final String scheme;
    private final String host;
    private final int port;
    final RetryBudget budget;
    /** The last rule lookup for a call to this destination (see {@link ResolvedRule.Memo}). */
    volatile ResolvedRule.Memo ruleMemo;
    /** Lookups here that the memo did not answer since it was last replaced; racy, only a heuristic. */
    int ruleMemoMisses;
    /** Copy-on-write: new clients are rare, lookups are on every call. */
    private volatile RetryCounters[] counters = new RetryCounters[0];

    Destination(String scheme, String host, int port, long nowNanos) {
        this.scheme = scheme;
        this.host = host;
        this.port = port;
        this.budget = new RetryBudget(nowNanos);
    }

    public String scheme() {
        return scheme;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** True for the destination that counts every host past the table's bound, not one host of its own. */
    public boolean isOverflow() {
        return OVERFLOW_SCHEME.equals(scheme);
    }

    /** Schemes are case-insensitive (RFC 3986): {@code HTTPS} and {@code https} are one destination. */
    boolean is(String scheme, int port) {
        return this.port == port && this.scheme.equalsIgnoreCase(scheme);
    }

    RetryCounters countersFor(String client) {
        RetryCounters[] current = counters;
        for (RetryCounters c : current) {
            if (c.client().equals(client)) {
                return c;
            }
        }
        return addCounters(client);
    }

    private synchronized RetryCounters addCounters(String client) {
        for (RetryCounters c : counters) {
            if (c.client().equals(client)) {
                return c;
            }
        }
        RetryCounters added = new RetryCounters(client);
        RetryCounters[] grown = Arrays.copyOf(counters, counters.length + 1);
        grown[grown.length - 1] = added;
        counters = grown;
        return added;
    }

    /** The counters of every client seen at this destination. */
    public List<RetryCounters> counters() {
        return Collections.unmodifiableList(new ArrayList<RetryCounters>(Arrays.asList(counters)));
    }

    @Override
    public String toString() {
        return scheme + "://" + host + ":" + port;
    }
}
