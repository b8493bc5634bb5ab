package dev.retryagent.agent.operations.metrics;

import static dev.retryagent.agent.operations.metrics.EngineDriver.get;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.retryagent.agent.bootloader.weaving.UncoveredClients;
import java.util.Collections;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

class MetricsTest {
    private final EngineDriver driver = new EngineDriver();
    private final MBeanServer server = MBeanServerFactory.newMBeanServer();
    private final AtomicInteger opened = new AtomicInteger();
    private final UncoveredClients uncovered =
            new UncoveredClients(Collections.singletonMap("com/example/http/Client", "example-client"));

    private int registered() throws Exception {
        return server.queryNames(new ObjectName("retry-agent:*"), null).size();
    }

    @Test
    void jmxIsFirstTouchedWhenTheFirstDestinationAppears() throws Exception {
        Metrics metrics = new Metrics(driver.engine, table -> {
            opened.incrementAndGet();
            return new JmxRegistrar(server, table);
        }, uncovered);
        metrics.run();
        metrics.run();
        assertEquals(0, opened.get(), "no destination, no JMX");

        driver.call(get("okhttp", "api.example", 80), 503, 200);
        metrics.run();
        assertEquals(1, opened.get());
        assertEquals(3, registered(), "the destination, the total and the agent");
        assertEquals(2L, server.getAttribute(new ObjectName("retry-agent:type=total"), "attempts"));

        driver.call(get("okhttp", "api.example", 80), 200);
        driver.call(get("apache-httpclient5", "api.example", 80), 200);
        metrics.run();
        assertEquals(1, opened.get());
        assertEquals(4, registered());
        assertEquals(3L, server.getAttribute(new ObjectName("retry-agent:type=total"), "calls"));
    }

    @Test
    void noMBeanServerMeansNoMetricsAndNoError() {
        Metrics metrics = new Metrics(driver.engine, table -> {
            opened.incrementAndGet();
            throw new SecurityException("no JMX here");
        }, uncovered);
        driver.call(get("okhttp", "api.example", 80), 200);
        metrics.run();
        driver.call(get("okhttp", "other.example", 80), 200);
        metrics.run();
        assertEquals(1, opened.get(), "tried once, then stopped");
    }

    @Test
    void anUncoveredClientOpensJmxWithoutAnyDestinationAndIsListedByTheAgentMBean() throws Exception {
        Metrics metrics = new Metrics(driver.engine, table -> {
            opened.incrementAndGet();
            return new JmxRegistrar(server, table);
        }, uncovered);
        metrics.run();
        assertEquals(0, opened.get(), "nothing to show, no JMX");

        uncovered.classLoaded("com/example/http/Client", null);
        metrics.run();
        assertEquals(1, opened.get());
        assertEquals(Set.of(new ObjectName("retry-agent:type=agent")),
                server.queryNames(new ObjectName("retry-agent:*"), null), "the agent's MBean only: no destination yet");
        TabularData table = (TabularData) server.getAttribute(new ObjectName("retry-agent:type=agent"),
                "uncovered_clients");
        Set<String> rows = table.values().stream().map(row -> (CompositeData) row)
                .map(row -> row.get("name") + " " + row.get("class") + " " + row.get("loader") + " " + row.get("value"))
                .collect(Collectors.toSet());
        assertEquals(Set.of("example-client com.example.http.Client bootstrap 1"), rows);

        driver.call(get("okhttp", "api.example", 80), 200);
        metrics.run();
        assertEquals(1, opened.get());
        assertEquals(3, registered(), "then the destination and the total");
    }
}
