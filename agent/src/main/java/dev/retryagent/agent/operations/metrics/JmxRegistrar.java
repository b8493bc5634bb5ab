package dev.retryagent.agent.operations.metrics;

import dev.retryagent.agent.bootloader.weaving.UncoveredClients;
import dev.retryagent.engine.RetryLog;
import java.lang.management.ManagementFactory;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Registers the MBeans of new series (and, with the first of them, the JVM total), and the agent's own MBean. The only
 * class that touches JMX.
 */
final class JmxRegistrar {
    private final MBeanServer server;
    private final MetricsTable table;
    private boolean totalRegistered;

    JmxRegistrar(MBeanServer server, MetricsTable table) {
        this.server = server;
        this.table = table;
    }

    /** The platform MBeanServer: its first use initialises JMX, so this is called on the housekeeping thread only. */
    static JmxRegistrar platform(MetricsTable table) {
        return new JmxRegistrar(ManagementFactory.getPlatformMBeanServer(), table);
    }

    void register(List<MetricsTable.Series> added) {
        if (!totalRegistered) {
            totalRegistered = true;
            register(MetricNames.TOTAL, new CountersMBean(new CountersMBean.Source() {
                @Override
                public Counts read() {
                    return table.total();
                }
            }));
        }
        for (final MetricsTable.Series s : added) {
            register(s.name, new CountersMBean(new CountersMBean.Source() {
                @Override
                public Counts read() {
                    return table.read(s);
                }
            }));
        }
    }

    /** {@code retry-agent:type=agent}, which lists {@code uncovered}'s clients as they are read. */
    void registerAgent(UncoveredClients uncovered) {
        register(MetricNames.AGENT, new AgentMBean(uncovered));
    }

    /** One MBean; a failure is logged once and leaves that MBean out, never the others. */
    private void register(String name, ReadOnlyMBean bean) {
        try {
            server.registerMBean(bean, new ObjectName(name));
        } catch (Exception e) {
            RetryLog.internalError("metrics:register", e, "this MBean is not registered; retries go on");
        }
    }
}
