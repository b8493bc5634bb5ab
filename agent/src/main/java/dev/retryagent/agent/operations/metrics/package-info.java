/**
 * The JMX counters (README, Metrics): one read-only MBean per client and destination, and the JVM total, named for
 * the Prometheus JMX exporter's default rules ({@link dev.retryagent.agent.operations.metrics.MetricNames}). The engine counts;
 * this package only publishes, from the housekeeping thread ({@link dev.retryagent.agent.operations.metrics.Metrics}), so that a
 * call never touches JMX and premain never initialises the platform MBeanServer. The only package that names
 * {@code javax.management}.
 */
package dev.retryagent.agent.operations.metrics;
