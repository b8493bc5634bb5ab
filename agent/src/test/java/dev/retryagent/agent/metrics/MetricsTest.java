package dev.retryagent.agent.metrics;

import static dev.retryagent.agent.metrics.EngineDriver.get;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

class MetricsTest {
    private final EngineDriver driver = new EngineDriver();
    private final MBeanServer server = MBeanServerFactory.newMBeanServer();
    private final AtomicInteger opened = new AtomicInteger();

    private int registered() throws Exception {
        return server.queryNames(new ObjectName("retry-agent:*"), null).size();
    }

    @Test
    void jmxIsFirstTouchedWhenTheFirstDestinationAppears() throws Exception {
        Metrics metrics = new Metrics(driver.engine, table -> {
            opened.incrementAndGet();
            return new JmxRegistrar(server, table);
        });
        metrics.run();
        metrics.run();
        assertEquals(0, opened.get(), "no destination, no JMX");

        driver.call(get("okhttp", "api.example", 80), 503, 200);
        metrics.run();
        assertEquals(1, opened.get());
        assertEquals(2, registered(), "the destination and the total");
        assertEquals(2L, server.getAttribute(new ObjectName("retry-agent:type=total"), "attempts"));

        driver.call(get("okhttp", "api.example", 80), 200);
        driver.call(get("apache-httpclient5", "api.example", 80), 200);
        metrics.run();
        assertEquals(1, opened.get());
        assertEquals(3, registered());
        assertEquals(3L, server.getAttribute(new ObjectName("retry-agent:type=total"), "calls"));
    }

    @Test
    void noMBeanServerMeansNoMetricsAndNoError() {
        Metrics metrics = new Metrics(driver.engine, table -> {
            opened.incrementAndGet();
            throw new SecurityException("no JMX here");
        });
        driver.call(get("okhttp", "api.example", 80), 200);
        metrics.run();
        driver.call(get("okhttp", "other.example", 80), 200);
        metrics.run();
        assertEquals(1, opened.get(), "tried once, then stopped");
    }
}
