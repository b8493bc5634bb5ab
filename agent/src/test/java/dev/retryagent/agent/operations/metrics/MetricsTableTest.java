package dev.retryagent.agent.operations.metrics;

import static dev.retryagent.agent.operations.metrics.EngineDriver.get;
import static dev.retryagent.agent.operations.metrics.EngineDriver.post;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.engine.GiveUpReason;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class MetricsTableTest {
    private final EngineDriver driver = new EngineDriver();
    private final MetricsTable table = new MetricsTable(MetricsTable.MAX_DESTINATION_SERIES);

    private Map<String, MetricsTable.Series> byName() {
        return table.series().stream().collect(Collectors.toMap(s -> s.name, Function.identity()));
    }

    private Counts read(String name) {
        MetricsTable.Series s = byName().get(name);
        assertTrue(s != null, name + " in " + byName().keySet());
        return table.read(s);
    }

    @Test
    void countsEachClientAndDestinationAsTheEngineDecided() {
        // api: 2 calls recover after one retry each, 1 gives up after 3 attempts, 1 POST is not retried
        driver.call(get("okhttp", "api.example", 80), 503, 200);
        driver.call(get("okhttp", "api.example", 80), 502, 200);
        driver.call(get("okhttp", "api.example", 80), 503, 503, 503);
        driver.call(post("okhttp", "api.example", 80), 503);
        // the same destination from another client is another series
        driver.call(get("httpurlconnection", "api.example", 80), 200);
        // broke: budget 0, every retry refused; watched: observe mode
        driver.call(get("okhttp", "broke.example", 443), 503);
        driver.call(get("okhttp", "watched.example", 80), 503);

        List<MetricsTable.Series> added = table.update(driver.engine.destinations());
        assertEquals(4, added.size(), added.toString());

        Counts api = read("retry-agent:type=destination,client=okhttp,scheme=http,host=api.example,port=80");
        assertEquals(4, api.calls);
        assertEquals(4, api.retries);
        assertEquals(8, api.attempts());
        assertEquals(2, api.successesAfterRetry);
        assertEquals(1, api.giveUps(GiveUpReason.ATTEMPTS));
        assertEquals(1, api.giveUps(GiveUpReason.NOT_IDEMPOTENT));
        assertEquals(0, api.budgetRefusals());

        Counts jdk = read("retry-agent:type=destination,client=httpurlconnection,scheme=http,host=api.example,port=80");
        assertEquals(1, jdk.calls);
        assertEquals(1, jdk.attempts());

        Counts broke = read("retry-agent:type=destination,client=okhttp,scheme=http,host=broke.example,port=443");
        assertEquals(1, broke.calls);
        assertEquals(0, broke.retries);
        assertEquals(1, broke.budgetRefusals());
        assertEquals(1, broke.giveUps(GiveUpReason.BUDGET));

        Counts watched = read("retry-agent:type=destination,client=okhttp,scheme=http,host=watched.example,port=80");
        assertEquals(1, watched.wouldRetry);
        assertEquals(0, watched.retries);

        Counts total = table.total();
        assertEquals(7, total.calls);
        assertEquals(4, total.retries);
        assertEquals(11, total.attempts());
        assertEquals(2, total.successesAfterRetry);
        assertEquals(1, total.budgetRefusals());
        assertEquals(1, total.wouldRetry);
        assertEquals(3, total.giveUps[GiveUpReason.ATTEMPTS.ordinal()] + total.giveUps[GiveUpReason.NOT_IDEMPOTENT.ordinal()]
                + total.giveUps[GiveUpReason.BUDGET.ordinal()]);

        // values are live: later calls show without a new series
        driver.call(get("okhttp", "api.example", 80), 200);
        assertTrue(table.update(driver.engine.destinations()).isEmpty());
        assertEquals(5, read("retry-agent:type=destination,client=okhttp,scheme=http,host=api.example,port=80").calls);
        assertEquals(8, table.total().calls);
    }

    @Test
    void theThousandAndFirstDestinationIsCountedUnderOther() {
        int hosts = MetricsTable.MAX_DESTINATION_SERIES + 1;
        long expectedTotal = 0;
        for (int i = 0; i < hosts; i++) {
            // host i makes i + 1 calls, so that the sums tell which host went where
            for (int c = 0; c <= i; c++) {
                driver.call(get("okhttp", "h" + i + ".example", 80), 200);
            }
            expectedTotal += i + 1;
        }
        List<MetricsTable.Series> added = table.update(driver.engine.destinations());
        assertEquals(MetricsTable.MAX_DESTINATION_SERIES + 1, added.size());
        assertEquals(MetricsTable.MAX_DESTINATION_SERIES, table.destinationSeries());
        Map<String, MetricsTable.Series> series = byName();
        String left = null;
        for (int i = 0; i < hosts; i++) {
            if (!series.containsKey(MetricNames.destination("okhttp", "http", "h" + i + ".example", 80))) {
                assertEquals(null, left, "one host without a series of its own");
                left = "h" + i + ".example";
                assertEquals(i + 1, read(MetricNames.other("okhttp")).calls);
            } else {
                assertEquals(i + 1, read(MetricNames.destination("okhttp", "http", "h" + i + ".example", 80)).calls);
            }
        }
        assertTrue(left != null);
        assertEquals(expectedTotal, table.total().calls);

        // the host past the bound stays under other as it makes more calls
        driver.call(get("okhttp", left, 80), 200);
        assertTrue(table.update(driver.engine.destinations()).isEmpty());
        assertEquals(expectedTotal + 1, table.total().calls);
    }

    @Test
    void pastTheBoundDestinationsAreCountedUnderOtherPerClient() {
        // 10,050 hosts: 1,000 get a series; the rest, the engine's own overflow destination included (its table
        // holds 10,000 hosts), are summed under "other".
        int hosts = 10_050;
        for (int i = 0; i < hosts; i++) {
            driver.call(get("okhttp", "h" + i + ".example", 80), 503, 200);
        }
        driver.call(get("apache-httpclient5", "h0.example", 80), 200);
        driver.call(get("apache-httpclient5", "h9999.example", 80), 503, 503, 503);

        long started = System.nanoTime();
        List<MetricsTable.Series> added = table.update(driver.engine.destinations());
        long firstTickMicros = (System.nanoTime() - started) / 1000;

        assertEquals(MetricsTable.MAX_DESTINATION_SERIES, table.destinationSeries());
        long others = added.stream().filter(s -> s.other).count();
        assertEquals(added.size() - MetricsTable.MAX_DESTINATION_SERIES, others);
        assertTrue(others >= 1 && others <= 2, added.stream().filter(s -> s.other).map(s -> s.name).toList().toString());

        Counts own = new Counts();
        Counts other = new Counts();
        for (MetricsTable.Series s : table.series()) {
            (s.other ? other : own).add(table.read(s));
        }
        Counts total = table.total();
        assertEquals(hosts + 2, total.calls);
        assertEquals(hosts + 2, own.calls + other.calls);
        assertEquals(hosts + 2, total.retries);
        assertEquals(hosts, total.successesAfterRetry);
        assertEquals(1, total.giveUps(GiveUpReason.ATTEMPTS));
        assertTrue(other.calls >= hosts - MetricsTable.MAX_DESTINATION_SERIES, "other=" + other.calls);
        Counts okhttpOther = read(MetricNames.other("okhttp"));
        assertEquals(okhttpOther.calls, okhttpOther.successesAfterRetry);
        assertTrue(okhttpOther.calls >= hosts - MetricsTable.MAX_DESTINATION_SERIES);

        // Measured, not asserted: the cost of a tick (once a second, on the housekeeping thread) and of reading the
        // total (once per scrape) with the engine's table full, after 50 rounds for the JIT.
        long steadyTickMicros = 0;
        long totalReadMicros = 0;
        for (int round = 0; round < 50; round++) {
            started = System.nanoTime();
            assertTrue(table.update(driver.engine.destinations()).isEmpty());
            steadyTickMicros = (System.nanoTime() - started) / 1000;
            started = System.nanoTime();
            assertEquals(hosts + 2, table.total().calls);
            totalReadMicros = (System.nanoTime() - started) / 1000;
        }
        System.out.println("MEASURED metrics tick over " + driver.engine.destinations().size()
                + " destinations: first " + firstTickMicros + " us, then " + steadyTickMicros
                + " us; reading the total " + totalReadMicros + " us");
    }

    @Test
    void aDestinationTheEngineDropsAsIdleNeverCountsBackwards() {
        // The engine sweeps hosts idle for 10 minutes once its table holds 1,024 hosts and a new one comes.
        int hosts = 1_030;
        for (int i = 0; i < hosts; i++) {
            driver.call(get("okhttp", "h" + i + ".example", 80), 503, 200);
        }
        table.update(driver.engine.destinations());
        Counts before = table.total();
        String first = "retry-agent:type=destination,client=okhttp,scheme=http,host=h0.example,port=80";
        assertEquals(1, read(first).calls);
        assertEquals(hosts, table.tracked());

        driver.advanceMinutes(11);
        driver.call(get("okhttp", "new.example", 80), 200);
        assertTrue(driver.engine.destinations().size() < 10, "the engine swept its idle destinations: "
                + driver.engine.destinations().size());

        table.update(driver.engine.destinations());
        assertEquals(before.calls + 1, table.total().calls);
        assertEquals(before.retries, table.total().retries);
        assertEquals(1, read(first).calls);
        assertEquals(1, read(first).retries);
        // the dropped counters are let go of: only what the engine holds now is referenced
        assertEquals(driver.engine.destinations().size(), table.tracked());

        // h0 comes back: the engine starts new counters, its series goes on from where it was
        driver.call(get("okhttp", "h0.example", 80), 503, 200);
        assertTrue(table.update(driver.engine.destinations()).isEmpty());
        assertEquals(2, read(first).calls);
        assertEquals(2, read(first).retries);
        assertEquals(before.calls + 2, table.total().calls);
    }
}
