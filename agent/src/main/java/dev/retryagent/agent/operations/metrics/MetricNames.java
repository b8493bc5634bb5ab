package dev.retryagent.agent.operations.metrics;

/**
 * The MBean names, chosen for the Prometheus JMX exporter's default rules (no rule configured). Those name a
 * metric {@code <domain>_<value of the first key>_<attribute>} and turn every other key into a label, keys in the
 * order the name was written. So the first key, {@code type}, is a fixed lower-case word and the varying parts
 * come after it:
 *
 * <pre>
 * retry-agent:type=destination,client=okhttp,scheme=http,host=api.internal,port=8080
 *     -> retry_agent_destination_retries{client="okhttp",scheme="http",host="api.internal",port="8080"}
 * retry-agent:type=destination,client=okhttp,scheme=other,host=other,port=other   (destinations past the bound)
 * retry-agent:type=total
 *     -> retry_agent_total_retries
 * retry-agent:type=agent      (attribute uncovered_clients, a table indexed by name)
 *     -> retry_agent_agent_uncovered_clients{name="jetty-client"}
 * </pre>
 *
 * Values are written unquoted: the exporter would keep the quotes of a quoted value in the label. Characters an
 * unquoted value cannot hold are replaced: {@code :} (IPv6) by {@code -}, anything outside {@code [A-Za-z0-9._-]}
 * by {@code _}; two hosts that end up with one name share one MBean, which counts both.
 */
final class MetricNames {
    static final String DOMAIN = "retry-agent";
    static final String TOTAL = DOMAIN + ":type=total";
    static final String AGENT = DOMAIN + ":type=agent";
    static final String OTHER = "other";

    private MetricNames() {
    }

    static String destination(String client, String scheme, String host, int port) {
        return DOMAIN + ":type=destination,client=" + value(client) + ",scheme=" + value(scheme)
                + ",host=" + value(host) + ",port=" + port;
    }

    /** The one MBean of {@code client} that counts every destination without an MBean of its own. */
    static String other(String client) {
        return DOMAIN + ":type=destination,client=" + value(client) + ",scheme=" + OTHER + ",host=" + OTHER
                + ",port=" + OTHER;
    }

    static String value(String raw) {
        if (raw == null || raw.isEmpty()) {
            return "unknown";
        }
        String s = raw;
        if (s.length() > 2 && s.charAt(0) == '[' && s.charAt(s.length() - 1) == ']') {
            s = s.substring(1, s.length() - 1);
        }
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '-' || c == '_') {
                b.append(c);
            } else if (c == ':') {
                b.append('-');
            } else {
                b.append('_');
            }
        }
        return b.toString();
    }
}
