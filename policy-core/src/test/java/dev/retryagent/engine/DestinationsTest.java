package dev.retryagent.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The JVM-wide table of destinations: one per (scheme, host, port), bounded in memory. */
class DestinationsTest {
    private static final long IDLE_MILLIS = TimeUnit.NANOSECONDS.toMillis(Destinations.IDLE_NANOS);

    private final FakeClock clock = new FakeClock();
    private final Destinations destinations = new Destinations(clock);

    /** Looks a destination up and records a first attempt there, as a call does. */
    private Destination call(String host) {
        Destination d = destinations.get("https", host, 443);
        d.budget.recordFirstAttempt(clock.nanoTime());
        return d;
    }

    private void callHosts(String prefix, int count) {
        for (int i = 0; i < count; i++) {
            call(prefix + i);
        }
    }

    @Test
    void oneDestinationPerSchemeHostAndPort() {
        Destination a = destinations.get("https", "a.internal", 443);
        assertSame(a, destinations.get("https", "a.internal", 443));
        assertNotSame(a, destinations.get("http", "a.internal", 443));
        assertNotSame(a, destinations.get("https", "a.internal", 8443));
        assertNotSame(a, destinations.get("https", "b.internal", 443));
        assertSame(a, destinations.get("https", "a.internal", 443));
        assertEquals(4, destinations.all().size());
        assertEquals(2, destinations.size());
    }

    @Test
    void schemeAndHostAreCaseInsensitive() {
        Destination a = destinations.get("https", "a.internal", 443);
        assertSame(a, destinations.get("HTTPS", "a.internal", 443));
        assertSame(a, destinations.get("https", "A.Internal", 443));
        assertSame(a, destinations.get("Https", "A.INTERNAL", 443));
        assertEquals(1, destinations.all().size());
        assertEquals("a.internal", a.host());

        // The lower-case host gains a port; the alias "A.Internal" must find it, not make another.
        Destination b = destinations.get("https", "a.internal", 8443);
        assertSame(b, destinations.get("https", "A.Internal", 8443));
        Destination c = destinations.get("http", "A.Internal", 80);
        assertSame(c, destinations.get("http", "a.internal", 80));
        assertSame(a, destinations.get("https", "A.Internal", 443));
        assertEquals(3, destinations.all().size(), destinations.all()::toString);

        // A host first seen in upper case is stored in lower case.
        Destination d = destinations.get("https", "UPPER.internal", 443);
        assertEquals("upper.internal", d.host());
        assertSame(d, destinations.get("https", "upper.internal", 443));
    }

    @Test
    void idleDestinationsAreDroppedWhenTheTableGrows() {
        callHosts("old", Destinations.SWEEP_ABOVE);
        clock.advanceMillis(IDLE_MILLIS / 2);
        Destination active = call("old7");
        clock.advanceMillis(IDLE_MILLIS / 2 + 2_000);

        Destination fresh = call("new0");
        assertEquals(2, destinations.size(), "only old7 and new0 are left");
        assertSame(active, destinations.get("https", "old7", 443), "a destination in use is kept, with its budget");
        assertSame(fresh, destinations.get("https", "new0", 443));
        assertEquals(2, destinations.all().size());
    }

    @Test
    void aDestinationWhoseCallsReadNoClockIsKeptWhileTheyGoOn() {
        callHosts("old", Destinations.SWEEP_ABOVE);
        clock.advanceMillis(IDLE_MILLIS / 2);
        Destination active = destinations.get("https", "old7", 443);
        active.budget.recordUndatedFirstAttempt();
        clock.advanceMillis(IDLE_MILLIS / 2 + 2_000);

        call("new0");
        assertEquals(2, destinations.size(), "only old7 and new0 are left");
        assertSame(active, destinations.get("https", "old7", 443));
    }

    @Test
    void nothingIsDroppedBelowTheThreshold() {
        callHosts("old", Destinations.SWEEP_ABOVE - 1);
        clock.advanceMillis(IDLE_MILLIS * 2);
        call("new0");
        assertEquals(Destinations.SWEEP_ABOVE, destinations.size());
        assertEquals(0, destinations.sweeps());
    }

    @Test
    void destinationsUsedWithinTheIdleTimeAreKept() {
        callHosts("old", Destinations.SWEEP_ABOVE);
        clock.advanceMillis(IDLE_MILLIS - 2_000);
        call("new0");
        assertEquals(Destinations.SWEEP_ABOVE + 1, destinations.size());
        assertEquals(1, destinations.sweeps());
    }

    @Test
    void aDestinationJustCreatedIsNotDroppedBeforeItsFirstAttempt() {
        callHosts("old", Destinations.SWEEP_ABOVE);
        // A decision for attempt 2 can be the first to look a destination up; it records no first
        // attempt. Here it also sweeps, and finds nothing idle.
        Destination lookedUp = destinations.get("https", "new0", 443);
        clock.advanceSeconds(2);
        call("new1");
        assertEquals(2, destinations.sweeps());
        assertSame(lookedUp, destinations.get("https", "new0", 443), "new0 was not dropped as idle");
        assertEquals(Destinations.SWEEP_ABOVE + 2, destinations.size());
    }

    @Test
    void pastTheCapNewHostsShareOneOverflowDestination() {
        callHosts("h", Destinations.MAX_HOSTS);
        assertEquals(Destinations.MAX_HOSTS, destinations.size());
        Destination overflow = destinations.get("https", "one-too-many", 443);
        assertEquals("(other hosts)", overflow.host());
        assertSame(overflow, destinations.get("http", "another", 80));
        assertEquals(Destinations.MAX_HOSTS, destinations.size());
        // Known hosts keep their own.
        assertEquals("h42", destinations.get("https", "h42", 443).host());
        assertTrue(destinations.all().contains(overflow));

        // Once the old ones have gone idle, a new host gets its own again.
        clock.advanceMillis(IDLE_MILLIS + 2_000);
        assertEquals("one-too-many", call("one-too-many").host());
        assertEquals(1, destinations.size());
    }

    @Test
    void sweepsAreRateLimitedSoThatABigTableIsNotWalkedForEveryNewHost() {
        callHosts("h", Destinations.MAX_HOSTS);
        // 9000 hosts were added above the threshold in the same instant: one walk, not 9000.
        assertEquals(1, destinations.sweeps());
        for (int i = 0; i < 1000; i++) {
            destinations.get("https", "overflow" + i, 443);
        }
        assertEquals(1, destinations.sweeps(), "calls to overflow hosts do not walk the table either");
        clock.advanceMillis(TimeUnit.NANOSECONDS.toMillis(Destinations.SWEEP_EVERY_NANOS));
        destinations.get("https", "overflow-late", 443);
        assertEquals(2, destinations.sweeps());
    }

    @Test
    @Timeout(60)
    void concurrentLookupsOfANewHostAgreeOnOneDestination() throws Exception {
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 200; round++) {
                String host = "race" + round;
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<Destination>> found = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    final String spelling = t % 2 == 0 ? host : host.toUpperCase();
                    found.add(pool.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        return destinations.get("https", spelling, 443);
                    }));
                }
                Destination first = found.get(0).get(10, TimeUnit.SECONDS);
                for (Future<Destination> f : found) {
                    assertSame(first, f.get(10, TimeUnit.SECONDS), host);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(200, destinations.all().size());
    }
}
