package dev.retryagent.agent.operations.metrics;

import dev.retryagent.engine.Destination;
import dev.retryagent.engine.RetryCounters;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which MBean counts which of the engine's {@link RetryCounters}: one {@link Series} per client and destination, at
 * most {@code maxDestinationSeries} of them, then one {@code other} series per client for the rest (and for the
 * engine's own overflow destination). No JMX here.
 *
 * <p>A series never counts backwards, so that a Prometheus counter scraped from it never resets while the JVM
 * runs. The engine drops destinations that were idle for 10 minutes from its table (and starts a new counters
 * object if the host comes back); a series keeps what such counters had counted in {@link Series#retired} and
 * then lets go of them, and a returning host lands in its old series again. So series are never removed: the
 * first {@code maxDestinationSeries} client-destination pairs seen keep their MBean for the JVM's life.
 *
 * <p>Memory: at most {@code maxDestinationSeries} + one per client series of a few longs each, plus one reference
 * per counters object the engine's table holds right now (the table is bounded itself).
 */
final class MetricsTable {
    static final int MAX_DESTINATION_SERIES = 1000;

    /** What one MBean counts. */
    static final class Series {
        final String name;
        final String client;
        final boolean other;
        /** The counts of counters the engine no longer holds. */
        final Counts retired = new Counts();
        final Set<RetryCounters> live = Collections.newSetFromMap(new IdentityHashMap<RetryCounters, Boolean>());

        Series(String name, String client, boolean other) {
            this.name = name;
            this.client = client;
            this.other = other;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private static final class Tracked {
        final Series series;
        long seen;

        Tracked(Series series) {
            this.series = series;
        }
    }

    private final int maxDestinationSeries;
    private final Map<String, Series> destinationSeries = new HashMap<String, Series>();
    private final Map<String, Series> otherByClient = new HashMap<String, Series>();
    private final List<Series> all = new ArrayList<Series>();
    private final IdentityHashMap<RetryCounters, Tracked> tracked = new IdentityHashMap<RetryCounters, Tracked>();
    private long tick;

    MetricsTable(int maxDestinationSeries) {
        this.maxDestinationSeries = maxDestinationSeries;
    }

    /**
     * Brings the table up to date with the engine's destinations (every one it holds now) and returns the series
     * this created, which have no MBean yet.
     */
    synchronized List<Series> update(List<Destination> destinations) {
        long now = ++tick;
        int seen = 0;
        List<Series> added = Collections.emptyList();
        for (Destination d : destinations) {
            for (RetryCounters c : d.counters()) {
                Tracked t = tracked.get(c);
                if (t == null) {
                    if (added.isEmpty()) {
                        added = new ArrayList<Series>();
                    }
                    Series s = seriesFor(d, c.client(), added);
                    s.live.add(c);
                    t = new Tracked(s);
                    tracked.put(c, t);
                }
                if (t.seen != now) {
                    t.seen = now;
                    seen++;
                }
            }
        }
        if (seen < tracked.size()) {
            retireUnseen(now);
        }
        return added;
    }

    private Series seriesFor(Destination d, String client, List<Series> added) {
        if (!d.isOverflow()) {
            String name = MetricNames.destination(client, d.scheme(), d.host(), d.port());
            Series s = destinationSeries.get(name);
            if (s != null) {
                return s;
            }
            if (destinationSeries.size() < maxDestinationSeries) {
                s = new Series(name, client, false);
                destinationSeries.put(name, s);
                all.add(s);
                added.add(s);
                return s;
            }
        }
        Series other = otherByClient.get(client);
        if (other == null) {
            other = new Series(MetricNames.other(client), client, true);
            otherByClient.put(client, other);
            all.add(other);
            added.add(other);
        }
        return other;
    }

    private void retireUnseen(long now) {
        for (Iterator<Map.Entry<RetryCounters, Tracked>> it = tracked.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<RetryCounters, Tracked> e = it.next();
            Tracked t = e.getValue();
            if (t.seen != now) {
                // The engine looks its destination up afresh for every decision, so counters out of its table are
                // done: only a decision under way at the moment they were dropped could still add to them.
                t.series.retired.add(e.getKey());
                t.series.live.remove(e.getKey());
                it.remove();
            }
        }
    }

    synchronized Counts read(Series s) {
        Counts c = new Counts();
        addTo(c, s);
        return c;
    }

    /** The JVM total: every series, so every call the engine counted. */
    synchronized Counts total() {
        Counts c = new Counts();
        for (Series s : all) {
            addTo(c, s);
        }
        return c;
    }

    private static void addTo(Counts c, Series s) {
        c.add(s.retired);
        for (RetryCounters live : s.live) {
            c.add(live);
        }
    }

    synchronized int destinationSeries() {
        return destinationSeries.size();
    }

    synchronized List<Series> series() {
        return new ArrayList<Series>(all);
    }

    /** Counters objects referenced now (for tests of the memory bound). */
    synchronized int tracked() {
        return tracked.size();
    }
}
