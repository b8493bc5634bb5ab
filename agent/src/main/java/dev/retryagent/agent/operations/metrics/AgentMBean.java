package dev.retryagent.agent.operations.metrics;

import dev.retryagent.agent.bootloader.weaving.UncoveredClients;
import javax.management.AttributeNotFoundException;
import javax.management.MBeanNotificationInfo;
import javax.management.openmbean.CompositeDataSupport;
import javax.management.openmbean.CompositeType;
import javax.management.openmbean.OpenDataException;
import javax.management.openmbean.OpenMBeanAttributeInfoSupport;
import javax.management.openmbean.OpenMBeanConstructorInfoSupport;
import javax.management.openmbean.OpenMBeanInfoSupport;
import javax.management.openmbean.OpenMBeanOperationInfoSupport;
import javax.management.openmbean.OpenType;
import javax.management.openmbean.SimpleType;
import javax.management.openmbean.TabularDataSupport;
import javax.management.openmbean.TabularType;

/**
 * {@code retry-agent:type=agent}: facts about the agent in this JVM rather than counters. Its one attribute,
 * {@code uncovered_clients}, lists the HTTP clients the JVM has loaded that the agent does not instrument (their calls
 * are not retried), as a table indexed by {@code name} (the kind, as in the {@code uncovered-client} log line) with
 * the {@code class} that showed it, its {@code loader}'s class and a {@code value} of 1: the Prometheus JMX exporter's
 * default rules render it {@code retry_agent_agent_uncovered_clients{name="jetty-client"} 1} (the string columns are
 * not numbers, so it leaves them out), and jconsole shows the table.
 */
final class AgentMBean extends ReadOnlyMBean {
    static final String UNCOVERED_CLIENTS = "uncovered_clients";

    static final CompositeType UNCOVERED_ROW;
    static final TabularType UNCOVERED_TABLE;
    private static final OpenMBeanInfoSupport INFO;

    static {
        try {
            UNCOVERED_ROW = new CompositeType("retry-agent.UncoveredClient",
                    "An HTTP client the JVM loaded that the agent does not instrument",
                    new String[] {"name", "class", "loader", "value"},
                    new String[] {"the client kind (as in the uncovered-client log line)",
                        "the class that showed it", "the class of its class loader", "always 1"},
                    new OpenType<?>[] {SimpleType.STRING, SimpleType.STRING, SimpleType.STRING, SimpleType.LONG});
            UNCOVERED_TABLE = new TabularType("retry-agent.UncoveredClients",
                    "HTTP clients the JVM loaded whose calls the agent does not retry", UNCOVERED_ROW,
                    new String[] {"name"});
            INFO = new OpenMBeanInfoSupport(AgentMBean.class.getName(), "retry-agent in this JVM",
                    new OpenMBeanAttributeInfoSupport[] {
                        new OpenMBeanAttributeInfoSupport(UNCOVERED_CLIENTS,
                                "HTTP clients the JVM loaded whose calls the agent does not retry",
                                UNCOVERED_TABLE, true, false, false),
                    },
                    new OpenMBeanConstructorInfoSupport[0], new OpenMBeanOperationInfoSupport[0],
                    new MBeanNotificationInfo[0]);
        } catch (OpenDataException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final UncoveredClients uncovered;

    AgentMBean(UncoveredClients uncovered) {
        super(INFO);
        this.uncovered = uncovered;
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        if (!UNCOVERED_CLIENTS.equals(attribute)) {
            throw new AttributeNotFoundException(attribute);
        }
        TabularDataSupport table = new TabularDataSupport(UNCOVERED_TABLE);
        try {
            for (UncoveredClients.Seen s : uncovered.seen()) {
                table.put(new CompositeDataSupport(UNCOVERED_ROW, new String[] {"name", "class", "loader", "value"},
                        new Object[] {s.kind, s.className, s.loader, 1L}));
            }
        } catch (OpenDataException e) {
            throw new IllegalStateException(e);
        }
        return table;
    }
}
