package dev.retryagent.agent.operations.cli;

import dev.retryagent.analysis.Finding;
import dev.retryagent.analysis.Human;
import dev.retryagent.analysis.Outage;
import dev.retryagent.analysis.PolicyAnalysis;
import dev.retryagent.analysis.Section;
import dev.retryagent.analysis.Suggestion;
import dev.retryagent.analysis.Timeline;
import dev.retryagent.policy.Durations;
import dev.retryagent.policy.Jitter;
import dev.retryagent.policy.Match;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.PolicyError;
import dev.retryagent.policy.PolicyException;
import dev.retryagent.policy.PolicyLoader;
import dev.retryagent.policy.RetryAfterPolicy;
import dev.retryagent.policy.RetrySettings;
import dev.retryagent.policy.UpperLayers;
import java.io.PrintStream;
import java.nio.file.InvalidPathException;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code check [--attempt-time D] [--outage D] [--json] [--strict] POLICY} (docs/operations.md): validates a policy
 * file and says, per rule, what a call can cost the people who own its SLA. Exit 0 valid, 1 valid with warnings under
 * {@code --strict}, 2 invalid (file:line: key: message per error), 64 for a command line it cannot run.
 */
final class CheckCommand {
    static final int OK = 0;
    static final int WARNINGS = 1;
    static final int INVALID = 2;
    static final int USAGE = 64;
    static final String SYNOPSIS = "check [--attempt-time D] [--outage D] [--json] [--strict] POLICY";

    private final PrintStream out;
    private final PrintStream err;
    private String file;
    private long attemptMillis = PolicyAnalysis.DEFAULT_ATTEMPT_MILLIS;
    private boolean attemptTimeStated;
    private long outageMillis = -1;
    private boolean json;
    private boolean strict;

    private CheckCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** @param args the arguments after {@code check} */
    static int run(String[] args, PrintStream out, PrintStream err) {
        CheckCommand command = new CheckCommand(out, err);
        String problem = command.parse(args);
        if ("help".equals(problem)) {
            out.println("usage: java -jar retry-agent.jar " + SYNOPSIS);
            out.println("  --attempt-time D  how long one attempt takes (default " + Human.duration(
                    PolicyAnalysis.DEFAULT_ATTEMPT_MILLIS) + ", an assumption); durations as in policy files: 500ms, 2s, 1m");
            out.println("  --outage D        say per rule whether its retries outlast an outage of D from the call's start");
            out.println("  --json            one JSON document on stdout, for pipelines");
            out.println("  --strict          exit 1 when there are warnings");
            out.println("exit: 0 valid, 1 warnings under --strict, 2 invalid, 64 usage");
            return OK;
        }
        if (problem != null) {
            err.println("retry-agent check: " + problem + " (usage: java -jar retry-agent.jar " + SYNOPSIS + ")");
            return USAGE;
        }
        return command.check();
    }

    /** Null when the arguments are good, "help", or one line saying what is wrong. */
    private String parse(String[] args) {
        List<String> files = new ArrayList<String>();
        boolean options = true;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!options || arg.equals("-") || !arg.startsWith("-")) {
                files.add(arg);
            } else if (arg.equals("--")) {
                options = false;
            } else if (arg.equals("--json")) {
                json = true;
            } else if (arg.equals("--strict")) {
                strict = true;
            } else if (arg.equals("-h") || arg.equals("--help")) {
                return "help";
            } else {
                int eq = arg.indexOf('=');
                String name = eq < 0 ? arg : arg.substring(0, eq);
                if (!name.equals("--attempt-time") && !name.equals("--outage")) {
                    return "unknown option " + name;
                }
                String value;
                if (eq >= 0) {
                    value = arg.substring(eq + 1);
                } else if (i + 1 < args.length) {
                    value = args[++i];
                } else {
                    return name + " needs a duration, such as 2s or 500ms";
                }
                long millis = Durations.parseMillis(value);
                if (millis < 0) {
                    return name + " needs a duration, such as 2s or 500ms, not \"" + value + "\"";
                }
                if (name.equals("--outage")) {
                    if (millis == 0) {
                        return "--outage needs a duration above 0, such as 8s";
                    }
                    outageMillis = millis;
                } else {
                    attemptMillis = millis;
                    attemptTimeStated = true;
                }
            }
        }
        if (files.isEmpty()) {
            return "no policy file given";
        }
        if (files.size() > 1) {
            return "one policy file at a time, got " + files.size() + ": " + Human.join(files);
        }
        file = files.get(0);
        return null;
    }

    private int check() {
        Policy policy;
        try {
            policy = PolicyLoader.load(Paths.get(file));
        } catch (InvalidPathException e) {
            return invalid(Collections.singletonList(new PolicyError(file, 1, "(file)", "not a valid path")));
        } catch (PolicyException e) {
            return invalid(e.errors());
        }
        PolicyAnalysis analysis = PolicyAnalysis.of(policy, attemptMillis, attemptTimeStated, outageMillis);
        int warnings = analysis.warningCount();
        int exit = strict && warnings > 0 ? WARNINGS : OK;
        if (json) {
            out.println(JsonWriter.write(CheckJson.document(analysis, file, exit)));
        } else {
            text(analysis);
            out.println();
            out.println("result: valid, " + (warnings == 0 ? "no warnings" : warnings + " warning" + (warnings == 1 ? "" : "s"))
                    + (exit == WARNINGS ? " (--strict: exit 1)" : ""));
        }
        return exit;
    }

    private int invalid(List<PolicyError> errors) {
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<String, Object>();
            doc.put("file", file);
            doc.put("valid", false);
            doc.put("exitCode", INVALID);
            List<Object> list = new ArrayList<Object>();
            for (PolicyError error : errors) {
                Map<String, Object> e = new LinkedHashMap<String, Object>();
                e.put("file", error.file());
                e.put("line", error.line());
                e.put("key", error.key());
                e.put("message", error.message());
                list.add(e);
            }
            doc.put("errors", list);
            doc.put("warnings", Collections.emptyList());
            doc.put("rules", Collections.emptyList());
            out.println(JsonWriter.write(doc));
        } else {
            for (PolicyError error : errors) {
                err.println(error);
            }
            err.println("retry-agent check: " + file + " is not valid (" + errors.size() + " error"
                    + (errors.size() == 1 ? "" : "s") + ")");
        }
        return INVALID;
    }

    // ---- text -------------------------------------------------------------------------------------------------

    private void text(PolicyAnalysis a) {
        Policy p = a.policy();
        out.println("retry-agent check: " + file + " is valid");
        out.println("policy: version " + p.version() + ", mode " + p.mode().configName() + ", builtInRetries "
                + p.builtInRetries().configName() + ", marker "
                + (p.markerHeader() == null ? "disabled" : "header " + p.markerHeader()));
        out.println("assuming: each attempt takes " + Human.duration(a.attemptMillis())
                + (a.attemptTimeStated() ? " (--attempt-time)" : " (an assumption: state yours with --attempt-time)")
                + " and fails in a way worth retrying; medians over " + PolicyAnalysis.SAMPLES
                + " seeded draws of the jitter");
        if (a.outageMillis() >= 0) {
            out.println("outage: " + Human.duration(a.outageMillis()) + " from the call's start; a call rides it out when "
                    + "its last attempt starts at " + Human.duration(a.outageMillis()) + " or later");
        }
        for (Finding w : a.warnings()) {
            out.println("warning: [" + w.key() + "] " + w.message());
        }
        for (String note : a.notes()) {
            out.println("note: " + note);
        }
        for (Section s : a.sections()) {
            out.println();
            section(a, s);
        }
    }

    private void section(PolicyAnalysis a, Section s) {
        RetrySettings st = s.settings();
        out.println(s.rule() == null ? "defaults (calls no rule matches)"
                : s.name() + " (line " + s.rule().line() + "): " + describe(s.rule().match()));
        row("mode", s.mode().configName());
        if (s.mode() == Mode.OFF) {
            notes(s);
            return;
        }
        int max = st.maxAttempts();
        if (max <= 1) {
            row("retries", "nothing (maxAttempts 1)");
        } else {
            row("retries", "statuses " + (st.retryStatuses().codes().length == 0 ? "none" : joinInts(st.retryStatuses().codes()))
                    + "; failures " + (s.failureNames().isEmpty() ? "none" : Human.join(s.failureNames())));
            row("", methods(s));
            row("backoff", (st.backoff().jitter() == Jitter.NONE ? "no" : st.backoff().jitter().configName())
                    + " jitter, base " + Human.duration(st.backoff().baseMillis())
                    + " x" + st.backoff().multiplier() + " up to cap " + Human.duration(st.backoff().capMillis())
                    + "; deadline " + Human.duration(st.deadlineMillis()));
        }
        Timeline t = s.timeline();
        row("attempt", s.attemptTimeFromPolicy()
                ? "at most " + Human.duration(s.attemptMillis()) + " each (attemptTimeout), cut at the deadline: the "
                        + "times below hold for a dependency that hangs too"
                : Human.duration(s.attemptMillis()) + " each (" + (a.attemptTimeStated() ? "--attempt-time"
                        : "assumed") + ")" + (t.attemptsBounded() ? ", cut at the deadline (deadline.enforce)" : ""));
        String attempts = max <= 1 ? "1 per call" : attempts(s);
        row("attempts", (s.mode() == Mode.OBSERVE ? "1 per call now (observe); once enforced, " : "") + attempts);
        if (max > 1) {
            row("time", "longest " + Human.duration(t.longestTotalMillis()) + " (" + longest(t) + "); median "
                    + Human.duration(t.medianTotalMillis()) + " (" + t.medianAttempts() + " attempt"
                    + (t.medianAttempts() == 1 ? "" : "s") + ", " + Human.duration(t.medianWaitMillis()) + " of waits)");
            RetryAfterPolicy ra = st.retryAfter();
            if (s.retryAfterTimeline() == null) {
                row("Retry-After", "ignored: backoff applies");
            } else {
                Timeline r = s.retryAfterTimeline();
                row("Retry-After", "honored up to " + Human.duration(ra.maxMillis()) + " (a wait up to "
                        + Human.duration(Timeline.longestRetryAfterWait(ra))
                        + " with spread " + ra.spread() + "); a call then takes up to "
                        + Human.duration(r.longestTotalMillis()) + (r.deadlineBound() ? ", the deadline stops it" : ""));
            }
            row("budget", "per destination, retries at most " + Human.percent(st.budget().ratio())
                    + " of first attempts + " + st.budget().minPerSecond() + "/s; a call past it is not retried");
        } else {
            row("time", Human.duration(t.longestTotalMillis()) + " (one attempt)");
        }
        if (s.mode() != Mode.OFF) {
            row("upperLayers", st.upperLayers() == UpperLayers.DEFER
                    ? "defer: inside an SDK's or a library's own retry loop, the outcomes it retries are left to it"
                    : "retry: a call inside an SDK's or a library's own retry loop is retried here too; the attempts"
                            + " multiply");
        }
        if (s.outage() != null) {
            outage(a, s, s.outage());
        } else if (a.outageMillis() >= 0) {
            row("outage " + Human.duration(a.outageMillis()), "no retries (mode off)");
        }
        for (Finding w : s.warnings()) {
            if (!w.inherited()) {
                row("warning", "[" + w.key() + "] " + w.message());
            }
        }
        List<String> inherited = new ArrayList<String>();
        for (Finding w : s.warnings()) {
            if (w.inherited()) {
                inherited.add("[" + w.key() + "]");
            }
        }
        if (!inherited.isEmpty()) {
            row("warning", Human.join(inherited) + " as in defaults (counted there)");
        }
        notes(s);
    }

    private String attempts(Section s) {
        int max = s.settings().maxAttempts();
        Timeline t = s.timeline();
        StringBuilder sb = new StringBuilder("at most " + s.mostAttempts() + " per call (" + (s.mostAttempts() - 1)
                + " retr" + (s.mostAttempts() == 2 ? "y" : "ies") + ")");
        if (s.mostAttempts() < max) {
            sb.append(": the ").append(Human.duration(s.settings().deadlineMillis()))
                    .append(" deadline stops maxAttempts ").append(max).append(" even when attempts fail at once");
        }
        if (t.longestAttempts() < s.mostAttempts()) {
            sb.append("; ").append(t.longestAttempts()).append(" when each takes ").append(Human.duration(t.attemptMillis()));
        }
        return sb.toString();
    }

    private static String longest(Timeline t) {
        String attempts = t.longestAttempts() + " attempt" + (t.longestAttempts() == 1 ? "" : "s");
        if (t.deadlineBound()) {
            return attempts + ", the last starting just before the " + Human.duration(t.deadlineMillis()) + " deadline";
        }
        return attempts + " x " + Human.duration(t.attemptMillis()) + " + " + Human.duration(t.longestWaitMillis())
                + " of waits";
    }

    private void outage(PolicyAnalysis a, Section s, Outage o) {
        Timeline t = s.timeline();
        String label = "outage " + Human.duration(o.outageMillis());
        long deadline = s.settings().deadlineMillis();
        if (o.medianCase()) {
            row(label, "YES: the median call's last attempt starts at " + Human.duration(t.medianStartMillis())
                    + " (by " + Human.duration(t.latestStartMillis()) + " at the latest); "
                    + Human.percent(o.share()) + " of calls ride it out");
            return;
        }
        if (s.settings().maxAttempts() <= 1) {
            row(label, "NO: maxAttempts 1 never retries");
        } else if (deadline <= o.outageMillis()) {
            row(label, "NO: the " + Human.duration(deadline) + " deadline ends retries before the "
                    + Human.duration(o.outageMillis()) + " outage does");
        } else if (!o.bestCase()) {
            row(label, "NO: the last attempt starts by " + Human.duration(t.latestStartMillis()) + " at the latest ("
                    + (t.longestAttempts() - 1) + " attempt" + (t.longestAttempts() == 2 ? "" : "s") + " of "
                    + Human.duration(t.attemptMillis()) + " + at most " + Human.duration(t.longestWaitMillis())
                    + " of waits), " + Human.duration(o.outageMillis() - t.latestStartMillis()) + " before the outage ends; "
                    + "the waits cover at most " + Human.duration(t.longestWaitMillis()) + " of "
                    + Human.duration(o.outageMillis()));
        } else {
            row(label, "NO in the median call: its last attempt starts at " + Human.duration(t.medianStartMillis())
                    + "; only " + Human.percent(o.share()) + " of calls ride it out (the longest draws reach "
                    + (t.deadlineBound() ? "just before " : "") + Human.duration(t.latestStartMillis()) + ")");
        }
        Suggestion sg = o.suggestion();
        if (sg == null) {
            row("", "no maxAttempts up to " + PolicyAnalysis.MAX_REASONABLE_ATTEMPTS + " with a sensible backoff rides "
                    + "it out: fail fast, and let a queue or circuit breaker upstream wait for the outage to end");
            return;
        }
        List<String> changes = new ArrayList<String>();
        if (sg.changed().contains("maxAttempts")) {
            changes.add("maxAttempts " + sg.maxAttempts());
        }
        if (sg.changed().contains("backoff.base")) {
            changes.add("backoff.base " + Durations.format(sg.baseMillis()));
        }
        if (sg.changed().contains("backoff.cap")) {
            changes.add("backoff.cap " + Durations.format(sg.capMillis()));
        }
        if (sg.changed().contains("deadline")) {
            changes.add("deadline " + Durations.format(sg.deadlineMillis()));
        }
        Timeline n = sg.timeline();
        row("", "to ride it out in the median call: " + Human.join(changes) + " (last attempt at "
                + Human.duration(n.medianStartMillis()) + " in the median call, by " + Human.duration(n.latestStartMillis())
                + " at the latest; a call then takes up to " + Human.duration(n.longestTotalMillis()) + ")");
    }

    private void notes(Section s) {
        for (String note : s.notes()) {
            row("note", note);
        }
    }

    private void row(String label, String text) {
        StringBuilder sb = new StringBuilder("  ").append(label);
        for (int i = label.length(); i < 13; i++) {
            sb.append(' ');
        }
        out.println(sb.append(text));
    }

    private static String methods(Section s) {
        RetrySettings st = s.settings();
        String keys = st.idempotencyKeyHeaders().isEmpty() ? null
                : "header " + Human.join(st.idempotencyKeyHeaders());
        boolean unsent = st.retriesUnsentRequests();
        String otherwise = unsent ? "if it never left" : "never";
        if (s.rule() != null && !s.rule().match().methods().isEmpty()) {
            List<String> parts = new ArrayList<String>();
            for (String method : s.rule().match().methods()) {
                if (st.isIdempotentMethod(method)) {
                    parts.add(method);
                } else {
                    parts.add(method + (keys == null ? " " + otherwise + " (not idempotent, no key header)"
                            : " only with " + keys + (unsent ? " or if it never left" : "")));
                }
            }
            return "methods " + Human.join(parts);
        }
        return "methods " + Human.join(st.idempotentMethods())
                + (keys == null ? "; any other " + otherwise : "; any other only with " + keys
                + (unsent ? " or if it never left" : ""));
    }

    static String describe(Match m) {
        List<String> parts = new ArrayList<String>();
        if (m.host() != null) {
            parts.add("host " + m.host().pattern());
        }
        if (m.port() >= 0) {
            parts.add("port " + m.port());
        }
        if (m.path() != null) {
            parts.add("path " + m.path().pattern());
        }
        if (!m.methods().isEmpty()) {
            parts.add("methods " + Human.join(m.methods()));
        }
        if (m.client() != null) {
            parts.add("client " + m.client());
        }
        return Human.join(parts);
    }

    private static String joinInts(int[] values) {
        StringBuilder sb = new StringBuilder();
        for (int v : values) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(v);
        }
        return sb.toString();
    }
}
