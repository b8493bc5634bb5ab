package dev.retryagent.agent.operations.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

class MetricNamesTest {

    @Test
    void keysComeInTheOrderTheExporterTurnsIntoNameAndLabels() throws Exception {
        ObjectName name = new ObjectName(MetricNames.destination("okhttp", "https", "api.internal", 8443));
        assertEquals("retry-agent", name.getDomain());
        // the exporter reads this string, not the (sorted) canonical name: type first, it goes into the metric name
        assertEquals("type=destination,client=okhttp,scheme=https,host=api.internal,port=8443",
                name.getKeyPropertyListString());
        assertFalse(name.isPattern());
    }

    @Test
    void otherAndTotal() throws Exception {
        assertEquals("type=destination,client=apache-httpclient5,scheme=other,host=other,port=other",
                new ObjectName(MetricNames.other("apache-httpclient5")).getKeyPropertyListString());
        assertEquals("type=total", new ObjectName(MetricNames.TOTAL).getKeyPropertyListString());
    }

    @Test
    void hostsAreWrittenUnquoted() throws Exception {
        assertEquals("--1", MetricNames.value("[::1]"));
        assertEquals("--1", MetricNames.value("::1"));
        assertEquals("fe80--1%eth0".replace('%', '_'), MetricNames.value("fe80::1%eth0"));
        assertEquals("a_b_c_d_e_f", MetricNames.value("a,b=c\"d*e?f"));
        assertEquals("unknown", MetricNames.value(""));
        for (String host : new String[] {"[2001:db8::1]", "a,b=c\"d*e?f", "x\ny", "münchen.example"}) {
            ObjectName name = new ObjectName(MetricNames.destination("okhttp", "http", host, 80));
            assertFalse(name.isPattern(), host);
            assertFalse(name.getKeyProperty("host").startsWith("\""), host);
        }
    }
}
