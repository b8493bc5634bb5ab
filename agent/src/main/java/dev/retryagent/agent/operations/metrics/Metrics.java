package dev.retryagent.agent.operations.metrics;

import dev.retryagent.agent.bootloader.runtime.Housekeeping;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.agent.bootloader.weaving.UncoveredClients;
import dev.retryagent.engine.Destination;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.engine.RetryLog;
import java.util.Collections;
import java.util.List;

/**
 * The JMX counters of docs/reference.md#what-it-reports (object names: {@link MetricNames}; attributes: {@link
 * CountersMBean}) and the agent's own MBean ({@link AgentMBean}: the clients it does not instrument). A housekeeping
 * task, once a second, registers MBeans for the destinations the engine has seen since: nothing is added to a call, and
 * premain does not touch JMX (its first use initialises the platform MBeanServer, which costs start-up and would
 * pre-empt an application server that installs its own MBeanServerBuilder). JMX is first touched on the housekeeping
 * thread when the first destination or the first uncovered client shows up; the agent's MBean is registered then and
 * reads the uncovered clients at every request. Fail open: an error is logged once and the calls go on; if the
 * MBeanServer cannot be had at all, metrics stop for good.
 */
public final class Metrics implements Runnable {
    static final long PERIOD_MILLIS = 1000;

    /** For tests: another engine and MBeanServer than the runtime's and the platform's. */
    interface Registrars {
        JmxRegistrar open(MetricsTable table);
    }

    private final RetryEngine fixedEngine;
    private final Registrars registrars;
    private final UncoveredClients uncovered;
    /** Created with the first destination, like everything else here: premain loads only this class. */
    private MetricsTable table;
    private JmxRegistrar registrar;
    private boolean stopped;

    private Metrics() {
        this(null, null, UncoveredClients.jvm());
    }

    Metrics(RetryEngine engine, Registrars registrars, UncoveredClients uncovered) {
        this.fixedEngine = engine;
        this.registrars = registrars;
        this.uncovered = uncovered;
    }

    /** Schedules the task. Called once by the agent's start-up; never throws. */
    public static void start() {
        try {
            Housekeeping.every("metrics", PERIOD_MILLIS, new Metrics());
        } catch (Throwable t) {
            if (t instanceof VirtualMachineError) {
                throw (VirtualMachineError) t;
            }
            RetryLog.internalError("metrics:start", t, "no metrics; retries go on");
        }
    }

    @Override
    public void run() {
        if (stopped) {
            return;
        }
        RetryEngine engine = fixedEngine != null ? fixedEngine : RetryRuntime.engine();
        List<Destination> destinations = engine == null
                ? Collections.<Destination>emptyList() : engine.destinations();
        // JMX waits for the first destination or the first uncovered client, whichever comes first.
        if (table == null) {
            if (destinations.isEmpty() && uncovered.seen().isEmpty()) {
                return;
            }
            table = new MetricsTable(MetricsTable.MAX_DESTINATION_SERIES);
        }
        List<MetricsTable.Series> added = table.update(destinations);
        if (registrar == null) {
            try {
                registrar = registrars != null ? registrars.open(table) : JmxRegistrar.platform(table);
            } catch (Throwable t) {
                if (t instanceof VirtualMachineError) {
                    throw (VirtualMachineError) t;
                }
                stopped = true;
                RetryLog.internalError("metrics:mbean-server", t, "no metrics; retries go on");
                return;
            }
            registrar.registerAgent(uncovered);
        }
        if (!added.isEmpty()) {
            registrar.register(added);
        }
    }
}
