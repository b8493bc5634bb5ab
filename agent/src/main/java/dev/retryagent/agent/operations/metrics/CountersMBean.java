package dev.retryagent.agent.operations.metrics;

import dev.retryagent.engine.GiveUpReason;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.MBeanInfo;
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
import javax.management.openmbean.TabularData;
import javax.management.openmbean.TabularDataSupport;
import javax.management.openmbean.TabularType;

/**
 * The read-only counters of one {@link MetricsTable.Series} or of the JVM total, as an open MBean (JDK types only,
 * so any JMX client reads it without the agent's classes).
 *
 * <p>Attribute names are lower-case with underscores because the Prometheus JMX exporter's default rules use them
 * as they are, at the end of the metric name. Every counter is a {@code long}. Give-ups are one attribute,
 * {@code give_ups}, a table indexed by {@code reason} with one {@code value} column: the exporter turns a table's
 * index into a label and leaves {@code value} out of the name, so it renders
 * {@code retry_agent_destination_give_ups{...,reason="attempts"}}, one metric that a query can sum or split by
 * reason. An attribute per reason ({@code give_ups_attempts}, ...) would be as many unrelated metric names; a
 * {@code reason} key in the object name would be as many MBeans per destination.
 */
final class CountersMBean extends ReadOnlyMBean {

    /** Where the values come from, read once per JMX request. */
    interface Source {
        Counts read();
    }

    static final String CALLS = "calls";
    static final String ATTEMPTS = "attempts";
    static final String RETRIES = "retries";
    static final String SUCCESSES_AFTER_RETRY = "successes_after_retry";
    static final String GIVE_UPS = "give_ups";
    static final String BUDGET_REFUSALS = "budget_refusals";
    static final String WOULD_RETRY = "would_retry";
    static final String UPPER_LAYER_CALLS = "upper_layer_calls";
    static final String ATTEMPT_TIMEOUTS = "attempt_timeouts";
    static final String UNSENT_RETRIES = "unsent_retries";

    static final CompositeType GIVE_UP_ROW;
    static final TabularType GIVE_UPS_TABLE;
    private static final MBeanInfo INFO;

    static {
        try {
            GIVE_UP_ROW = new CompositeType("retry-agent.GiveUp",
                    "Retryable outcomes given back to the caller without a retry, by reason",
                    new String[] {"reason", "value"},
                    new String[] {"why no retry was made (as in the log lines)", "how many times"},
                    new OpenType<?>[] {SimpleType.STRING, SimpleType.LONG});
            GIVE_UPS_TABLE = new TabularType("retry-agent.GiveUps",
                    "Retryable outcomes given back to the caller without a retry, by reason",
                    GIVE_UP_ROW, new String[] {"reason"});
            INFO = new OpenMBeanInfoSupport(CountersMBean.class.getName(),
                    "retry-agent counters (docs/reference.md#what-it-reports), counted since the JVM started",
                    new OpenMBeanAttributeInfoSupport[] {
                        counter(CALLS, "Calls the agent decided on (first attempts)"),
                        counter(ATTEMPTS, "Attempts sent: calls plus retries"),
                        counter(RETRIES, "Retries sent"),
                        counter(SUCCESSES_AFTER_RETRY, "Calls that succeeded on a retry"),
                        new OpenMBeanAttributeInfoSupport(GIVE_UPS,
                                "Retryable outcomes given back to the caller without a retry, by reason",
                                GIVE_UPS_TABLE, true, false, false),
                        counter(BUDGET_REFUSALS, "Retries refused by the retry budget (also give_ups, reason budget)"),
                        counter(WOULD_RETRY, "Retries mode observe would have made"),
                        counter(UPPER_LAYER_CALLS, "Calls made inside a retry loop above the client (an SDK's):"
                                + " the agent deferred to that layer the outcomes it retries"),
                        counter(ATTEMPT_TIMEOUTS, "Attempts cut short at the limit the policy gave them"
                                + " (attemptTimeout, or the time left before the deadline)"),
                        counter(UNSENT_RETRIES, "Retries after a failure before any byte of the request reached"
                                + " a server (refused, unreachable, connect timeout), whatever its method"),
                    },
                    new OpenMBeanConstructorInfoSupport[0], new OpenMBeanOperationInfoSupport[0],
                    new MBeanNotificationInfo[0]);
        } catch (OpenDataException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static OpenMBeanAttributeInfoSupport counter(String name, String description) {
        return new OpenMBeanAttributeInfoSupport(name, description, SimpleType.LONG, true, false, false);
    }

    private final Source source;

    CountersMBean(Source source) {
        super(INFO);
        this.source = source;
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        return value(source.read(), attribute);
    }

    @Override
    public AttributeList getAttributes(String[] attributes) {
        Counts counts = source.read();
        AttributeList list = new AttributeList();
        for (String name : attributes) {
            try {
                list.add(new Attribute(name, value(counts, name)));
            } catch (AttributeNotFoundException e) {
                // getAttributes leaves out what it cannot read
            }
        }
        return list;
    }

    static Object value(Counts c, String attribute) throws AttributeNotFoundException {
        if (CALLS.equals(attribute)) {
            return c.calls;
        } else if (ATTEMPTS.equals(attribute)) {
            return c.attempts();
        } else if (RETRIES.equals(attribute)) {
            return c.retries;
        } else if (SUCCESSES_AFTER_RETRY.equals(attribute)) {
            return c.successesAfterRetry;
        } else if (GIVE_UPS.equals(attribute)) {
            return giveUps(c);
        } else if (BUDGET_REFUSALS.equals(attribute)) {
            return c.budgetRefusals();
        } else if (WOULD_RETRY.equals(attribute)) {
            return c.wouldRetry;
        } else if (UPPER_LAYER_CALLS.equals(attribute)) {
            return c.upperLayerCalls;
        } else if (ATTEMPT_TIMEOUTS.equals(attribute)) {
            return c.attemptTimeouts;
        } else if (UNSENT_RETRIES.equals(attribute)) {
            return c.unsentRetries;
        }
        throw new AttributeNotFoundException(attribute);
    }

    private static TabularData giveUps(Counts c) {
        TabularDataSupport table = new TabularDataSupport(GIVE_UPS_TABLE);
        try {
            for (GiveUpReason reason : GiveUpReason.values()) {
                table.put(new CompositeDataSupport(GIVE_UP_ROW, new String[] {"reason", "value"},
                        new Object[] {reason.logName(), c.giveUps(reason)}));
            }
        } catch (OpenDataException e) {
            throw new IllegalStateException(e);
        }
        return table;
    }
}
