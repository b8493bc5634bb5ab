package dev.retryagent.agent.operations.cli;

import dev.retryagent.analysis.Finding;
import dev.retryagent.analysis.Outage;
import dev.retryagent.analysis.PolicyAnalysis;
import dev.retryagent.analysis.Section;
import dev.retryagent.analysis.Suggestion;
import dev.retryagent.analysis.Timeline;
import dev.retryagent.policy.Match;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.RetrySettings;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The document {@code check --json} prints (docs/operations.md): the same analysis as the text, as data, for a
 * pipeline to read.
 */
final class CheckJson {
    private CheckJson() {
    }


    static Map<String, Object> document(PolicyAnalysis a, String file, int exit) {
        Policy p = a.policy();
        Map<String, Object> doc = new LinkedHashMap<String, Object>();
        doc.put("file", file);
        doc.put("valid", true);
        doc.put("exitCode", exit);
        doc.put("errors", Collections.emptyList());
        Map<String, Object> assumptions = new LinkedHashMap<String, Object>();
        assumptions.put("attemptTimeMillis", a.attemptMillis());
        assumptions.put("attemptTimeStated", a.attemptTimeStated());
        assumptions.put("outageMillis", a.outageMillis() >= 0 ? (Object) a.outageMillis() : null);
        assumptions.put("samples", PolicyAnalysis.SAMPLES);
        assumptions.put("seed", PolicyAnalysis.SEED);
        doc.put("assumptions", assumptions);
        Map<String, Object> policy = new LinkedHashMap<String, Object>();
        policy.put("version", p.version());
        policy.put("mode", p.mode().configName());
        policy.put("builtInRetries", p.builtInRetries().configName());
        policy.put("markerHeader", p.markerHeader());
        doc.put("policy", policy);
        doc.put("warningCount", a.warningCount());
        doc.put("warnings", findings(a.warnings()));
        doc.put("notes", a.notes());
        List<Object> rules = new ArrayList<Object>();
        for (Section s : a.sections()) {
            rules.add(sectionDocument(a, s));
        }
        doc.put("rules", rules);
        return doc;
    }

    private static Map<String, Object> sectionDocument(PolicyAnalysis a, Section s) {
        RetrySettings st = s.settings();
        Map<String, Object> r = new LinkedHashMap<String, Object>();
        r.put("name", s.name());
        r.put("index", s.rule() == null ? null : (Object) s.rule().index());
        r.put("line", s.rule() == null ? null : (Object) s.rule().line());
        r.put("match", s.rule() == null ? null : match(s.rule().match()));
        r.put("mode", s.mode().configName());
        r.put("retriesNow", s.retries());
        Map<String, Object> retries = new LinkedHashMap<String, Object>();
        List<Object> statuses = new ArrayList<Object>();
        for (int code : st.retryStatuses().codes()) {
            statuses.add(code);
        }
        retries.put("statuses", statuses);
        retries.put("failures", s.failureNames());
        retries.put("idempotentMethods", new ArrayList<String>(st.idempotentMethods()));
        retries.put("idempotencyKeyHeaders", st.idempotencyKeyHeaders());
        retries.put("retryUnsent", st.retryUnsent());
        r.put("retries", retries);
        r.put("maxAttempts", st.maxAttempts());
        Map<String, Object> backoff = new LinkedHashMap<String, Object>();
        backoff.put("jitter", st.backoff().jitter().configName());
        backoff.put("baseMillis", st.backoff().baseMillis());
        backoff.put("capMillis", st.backoff().capMillis());
        backoff.put("multiplier", st.backoff().multiplier());
        r.put("backoff", backoff);
        r.put("deadlineMillis", st.deadlineMillis());
        Map<String, Object> ra = new LinkedHashMap<String, Object>();
        ra.put("honor", st.retryAfter().honor());
        ra.put("maxMillis", st.retryAfter().maxMillis());
        ra.put("spread", st.retryAfter().spread());
        ra.put("longestMillis", s.retryAfterTimeline() == null ? null : (Object) s.retryAfterTimeline().longestTotalMillis());
        ra.put("deadlineBound", s.retryAfterTimeline() == null ? null : (Object) s.retryAfterTimeline().deadlineBound());
        r.put("retryAfter", ra);
        Map<String, Object> budget = new LinkedHashMap<String, Object>();
        budget.put("ratio", st.budget().ratio());
        budget.put("minPerSecond", st.budget().minPerSecond());
        r.put("budget", budget);
        r.put("upperLayers", st.upperLayers().configName());
        r.put("mostAttempts", s.mode() == Mode.OFF ? 1 : s.mostAttempts());
        r.put("attemptTimeoutMillis", st.attemptTimeoutMillis() > 0 ? (Object) st.attemptTimeoutMillis() : null);
        r.put("attemptMillis", s.mode() == Mode.OFF ? null : (Object) s.attemptMillis());
        r.put("attemptTimeFrom", s.mode() == Mode.OFF ? null : s.attemptTimeFromPolicy() ? "attemptTimeout"
                : a.attemptTimeStated() ? "attempt-time" : "assumption");
        Timeline t = s.timeline();
        if (t == null) {
            r.put("longest", null);
            r.put("median", null);
        } else {
            Map<String, Object> longest = new LinkedHashMap<String, Object>();
            longest.put("millis", t.longestTotalMillis());
            longest.put("attempts", t.longestAttempts());
            longest.put("waitMillis", t.longestWaitMillis());
            longest.put("lastAttemptStartMillis", t.latestStartMillis());
            longest.put("deadlineBound", t.deadlineBound());
            r.put("longest", longest);
            Map<String, Object> median = new LinkedHashMap<String, Object>();
            median.put("millis", t.medianTotalMillis());
            median.put("attempts", t.medianAttempts());
            median.put("waitMillis", t.medianWaitMillis());
            median.put("lastAttemptStartMillis", t.medianStartMillis());
            r.put("median", median);
        }
        r.put("outage", s.outage() == null ? null : outage(s.outage()));
        r.put("warnings", findings(s.warnings()));
        r.put("notes", s.notes());
        return r;
    }

    private static Map<String, Object> outage(Outage o) {
        Map<String, Object> m = new LinkedHashMap<String, Object>();
        m.put("millis", o.outageMillis());
        m.put("ridesOut", o.medianCase());
        m.put("bestCase", o.bestCase());
        m.put("medianCase", o.medianCase());
        m.put("shareOfCalls", Math.round(o.share() * 1000) / 1000.0);
        Suggestion sg = o.suggestion();
        if (sg == null) {
            m.put("suggestion", null);
        } else {
            Map<String, Object> s = new LinkedHashMap<String, Object>();
            s.put("maxAttempts", sg.maxAttempts());
            s.put("baseMillis", sg.baseMillis());
            s.put("capMillis", sg.capMillis());
            s.put("deadlineMillis", sg.deadlineMillis());
            s.put("changed", new ArrayList<String>(sg.changed()));
            s.put("medianLastAttemptStartMillis", sg.timeline().medianStartMillis());
            s.put("latestLastAttemptStartMillis", sg.timeline().latestStartMillis());
            s.put("longestMillis", sg.timeline().longestTotalMillis());
            m.put("suggestion", s);
        }
        return m;
    }

    private static Map<String, Object> match(Match m) {
        Map<String, Object> r = new LinkedHashMap<String, Object>();
        if (m.host() != null) {
            r.put("host", m.host().pattern());
        }
        if (m.port() >= 0) {
            r.put("port", m.port());
        }
        if (m.path() != null) {
            r.put("path", m.path().pattern());
        }
        if (!m.methods().isEmpty()) {
            r.put("methods", new ArrayList<String>(m.methods()));
        }
        if (m.client() != null) {
            r.put("client", m.client().toLowerCase(Locale.ROOT));
        }
        return r;
    }

    private static List<Object> findings(List<Finding> findings) {
        List<Object> list = new ArrayList<Object>();
        for (Finding f : findings) {
            Map<String, Object> m = new LinkedHashMap<String, Object>();
            m.put("key", f.key());
            m.put("message", f.message());
            m.put("inherited", f.inherited());
            list.add(m);
        }
        return list;
    }
}
