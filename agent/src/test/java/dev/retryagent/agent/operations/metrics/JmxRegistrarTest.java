package dev.retryagent.agent.operations.metrics;

import static dev.retryagent.agent.operations.metrics.EngineDriver.get;
import static dev.retryagent.agent.operations.metrics.EngineDriver.post;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.engine.GiveUpReason;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import org.junit.jupiter.api.Test;

class JmxRegistrarTest {
    private final MBeanServer server = MBeanServerFactory.newMBeanServer();
    private final EngineDriver driver = new EngineDriver();
    private final MetricsTable table = new MetricsTable(MetricsTable.MAX_DESTINATION_SERIES);
    private final JmxRegistrar registrar = new JmxRegistrar(server, table);

    private void tick() {
        registrar.register(table.update(driver.engine.destinations()));
    }

    private static Map<String, Long> giveUps(Object table) {
        Map<String, Long> byReason = new HashMap<>();
        for (Object row : ((TabularData) table).values()) {
            CompositeData c = (CompositeData) row;
            byReason.put((String) c.get("reason"), (Long) c.get("value"));
        }
        return byReason;
    }

    @Test
    void readOnlyLongCountersAndGiveUpsByReason() throws Exception {
        driver.call(get("okhttp", "api.example", 8080), 503, 200);
        driver.call(get("okhttp", "api.example", 8080), 503, 503, 503);
        driver.call(post("okhttp", "api.example", 8080), 503);
        driver.call(get("okhttp", "broke.example", 8080), 429);
        tick();

        ObjectName api = new ObjectName("retry-agent:type=destination,client=okhttp,scheme=http,host=api.example,port=8080");
        assertEquals(3L, server.getAttribute(api, "calls"));
        assertEquals(6L, server.getAttribute(api, "attempts"));
        assertEquals(3L, server.getAttribute(api, "retries"));
        assertEquals(1L, server.getAttribute(api, "successes_after_retry"));
        assertEquals(0L, server.getAttribute(api, "budget_refusals"));
        assertEquals(0L, server.getAttribute(api, "would_retry"));
        Map<String, Long> reasons = giveUps(server.getAttribute(api, "give_ups"));
        assertEquals(GiveUpReason.values().length, reasons.size());
        assertEquals(1L, reasons.get("attempts"));
        assertEquals(1L, reasons.get("not-idempotent"));
        assertEquals(0L, reasons.get("budget"));
        assertEquals(0L, reasons.get("nested"));

        ObjectName total = new ObjectName(MetricNames.TOTAL);
        assertEquals(4L, server.getAttribute(total, "calls"));
        assertEquals(1L, server.getAttribute(total, "budget_refusals"));
        assertEquals(1L, giveUps(server.getAttribute(total, "give_ups")).get("budget"));

        AttributeList all = server.getAttributes(api, new String[] {"calls", "retries", "nope"});
        assertEquals(List.of(new Attribute("calls", 3L), new Attribute("retries", 3L)), all.asList());

        for (MBeanAttributeInfo info : server.getMBeanInfo(api).getAttributes()) {
            assertTrue(info.isReadable(), info.getName());
            assertFalse(info.isWritable(), info.getName());
            assertTrue(info.getName().matches("[a-z_]+"), info.getName());
            assertTrue(info.getType().equals("java.lang.Long") || info.getName().equals("give_ups"), info.getType());
        }
        assertThrows(AttributeNotFoundException.class, () -> server.setAttribute(api, new Attribute("calls", 0L)));

        // live: a later call shows at the next read, without a new MBean
        driver.call(get("okhttp", "api.example", 8080), 200);
        tick();
        assertEquals(4L, server.getAttribute(api, "calls"));
        assertEquals(5L, server.getAttribute(total, "calls"));
    }

    @Test
    void atMostAThousandDestinationMBeansThenOneOtherPerClientAndTheTotal() throws Exception {
        for (int i = 0; i < 1_200; i++) {
            driver.call(get("okhttp", "h" + i + ".example", 80), 200);
        }
        tick();
        for (int i = 1_200; i < 1_300; i++) {
            driver.call(get("okhttp", "h" + i + ".example", 80), 200);
        }
        tick();
        Set<ObjectName> names = server.queryNames(new ObjectName("retry-agent:*"), null);
        assertEquals(MetricsTable.MAX_DESTINATION_SERIES + 2, names.size());
        ObjectName other = new ObjectName(MetricNames.other("okhttp"));
        assertTrue(names.contains(other));
        assertEquals(300L, server.getAttribute(other, "calls"));
        assertEquals(1_300L, server.getAttribute(new ObjectName(MetricNames.TOTAL), "calls"));
    }

    @Test
    void aNameTakenAlreadyIsLeftOutAndTheRestRegistered() throws Exception {
        server.registerMBean(new CountersMBean(Counts::new), new ObjectName(MetricNames.TOTAL));
        driver.call(get("okhttp", "api.example", 80), 200);
        tick();
        assertEquals(2, server.queryNames(new ObjectName("retry-agent:*"), null).size());
        assertEquals(1L, server.getAttribute(new ObjectName(MetricNames.destination("okhttp", "http", "api.example", 80)),
                "calls"));
    }
}
