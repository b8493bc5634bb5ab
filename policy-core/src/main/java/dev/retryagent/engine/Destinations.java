package dev.retryagent.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Every destination the JVM has called, JVM-wide and shared by all clients. Looked up by host without
 * building a key, so the lookup allocates nothing once a destination is known. Host names are
 * case-insensitive: a destination is stored under its lower-case host, and a host spelled otherwise
 * (HttpURLConnection keeps the case of the URL, OkHttp lower-cases) is added as an alias of the same
 * destinations on its first lookup, so that every client shares one budget. Memory stays bounded:
 * when the table grows past {@link #SWEEP_ABOVE} hosts, destinations with no call for
 * {@link #IDLE_NANOS} are dropped; past {@link #MAX_HOSTS}, new hosts share one overflow destination.
 * A sweep walks the whole table under the lock, so it runs at most once per {@link #SWEEP_EVERY_NANOS}:
 * a JVM that talks to thousands of hosts does not pay a full walk for each new one, nor for every call
 * to a host that lives in the overflow destination.
 */
final class Destinations {
    static final int SWEEP_ABOVE = 1024;
    static final int MAX_HOSTS = 10_000;
    static final long IDLE_NANOS = TimeUnit.MINUTES.toNanos(10);
    static final long SWEEP_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final ConcurrentHashMap<String, Destination[]> byHost = new ConcurrentHashMap<String, Destination[]>();
    private final Clock clock;
    private volatile Destination overflow;
    /** How many destinations were ever dropped: while it stays the same, a destination found earlier is current. */
    private volatile int removals;
    /** Guarded by {@code this}. */
    private int sweeps;
    private long lastSweepNanos;

    Destinations(Clock clock) {
        this.clock = clock;
    }

    Destination get(String scheme, String host, int port) {
        Destination d = find(scheme, host, port);
        return d != null ? d : add(scheme, host, port);
    }

    /** The destination if it is known (under this spelling of its host), or null; never adds one. */
    Destination find(String scheme, String host, int port) {
        Destination[] known = byHost.get(host);
        if (known != null) {
            for (Destination d : known) {
                if (d.is(scheme, port)) {
                    return d;
                }
            }
        }
        return null;
    }

    private synchronized Destination add(String scheme, String host, int port) {
        String key = host.toLowerCase(Locale.ROOT);
        Destination[] known = byHost.get(key);
        if (known != null) {
            for (Destination d : known) {
                if (d.is(scheme, port)) {
                    alias(host, key, known);
                    return d;
                }
            }
        }
        long now = clock.nanoTime();
        if (known == null && byHost.size() >= SWEEP_ABOVE) {
            if (sweeps == 0 || now - lastSweepNanos >= SWEEP_EVERY_NANOS) {
                sweeps++;
                lastSweepNanos = now;
                dropIdle(now);
            }
            if (byHost.size() >= MAX_HOSTS) {
                return overflow(now);
            }
        }
        Destination added = new Destination(scheme.toLowerCase(Locale.ROOT), key, port, now);
        Destination[] grown = known == null ? new Destination[1] : Arrays.copyOf(known, known.length + 1);
        grown[grown.length - 1] = added;
        byHost.put(key, grown);
        alias(host, key, grown);
        return added;
    }

    /**
     * Lets {@code host}, a spelling of {@code key} in another case, find {@code destinations} without
     * the lock. An alias that falls behind (its key gained a scheme or port since) only sends lookups
     * back here, where they are answered from {@code key} and the alias is brought up to date.
     */
    private void alias(String host, String key, Destination[] destinations) {
        if (!host.equals(key)) {
            byHost.put(host, destinations);
        }
    }

    private Destination overflow(long now) {
        if (overflow == null) {
            overflow = new Destination(Destination.OVERFLOW_SCHEME, "(other hosts)", 0, now);
        }
        return overflow;
    }

    private void dropIdle(long now) {
        for (java.util.Map.Entry<String, Destination[]> entry : byHost.entrySet()) {
            boolean anyActive = false;
            for (Destination d : entry.getValue()) {
                anyActive |= d.budget.seenWithin(now, IDLE_NANOS);
            }
            if (!anyActive && byHost.remove(entry.getKey(), entry.getValue())) {
                removals++; // under the lock
            }
        }
    }

    int removals() {
        return removals;
    }

    /** How many times the table was swept for idle destinations. */
    synchronized int sweeps() {
        return sweeps;
    }

    int size() {
        return byHost.size();
    }

    List<Destination> all() {
        List<Destination> all = new ArrayList<Destination>();
        for (java.util.Map.Entry<String, Destination[]> entry : byHost.entrySet()) {
            Destination[] ds = entry.getValue();
            // Aliases (the same host in another case) list nothing of their own.
            if (ds.length > 0 && ds[0].host().equals(entry.getKey())) {
                all.addAll(Arrays.asList(ds));
            }
        }
        if (overflow != null) {
            all.add(overflow);
        }
        return all;
    }
}
