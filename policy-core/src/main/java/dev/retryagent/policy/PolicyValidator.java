package dev.retryagent.policy;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * Walks the composed YAML node tree of a policy file against the schema of SPEC section 3 and builds the
 * {@link Policy}. Every problem is added to the error list (nothing stops at the first); a policy is
 * returned only when there were none. Omitted keys keep the value they override: the built-in default
 * for {@code defaults}, the resolved defaults for a rule, sub-key by sub-key in nested mappings.
 */
final class PolicyValidator {
    static final List<String> TOP_KEYS = names("version", "mode", "builtInRetries", "marker", "defaults", "rules");
    static final List<String> SETTINGS_KEYS = names("maxAttempts", "backoff", "deadline", "retryOn", "retryAfter",
            "idempotentMethods", "idempotencyKeyHeaders", "budget");
    static final List<String> RULE_KEYS;
    static final List<String> MARKER_KEYS = names("header", "enabled");
    static final List<String> BACKOFF_KEYS = names("base", "cap", "multiplier", "jitter");
    static final List<String> RETRY_ON_KEYS = names("statuses", "failures");
    static final List<String> RETRY_AFTER_KEYS = names("honor", "max", "spread");
    static final List<String> BUDGET_KEYS = names("ratio", "minPerSecond");
    static final List<String> MATCH_KEYS = names("host", "port", "path", "methods", "client");
    /** The methods a policy may name. */
    static final List<String> METHODS = names("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE", "POST", "PATCH",
            "CONNECT");
    static final List<String> MODES = names("enforce", "observe", "off");
    static final List<String> BUILT_IN_RETRIES = names("replace", "keep");
    static final List<String> JITTERS = names("full", "equal", "decorrelated", "none");
    static final List<String> FAILURES = names("connect", "reset", "timeout");
    static final List<String> CLIENTS = Collections.unmodifiableList(new ArrayList<String>(Match.CLIENTS));

    static final int MAX_ATTEMPTS = 100;
    static final double MAX_SPREAD = 10.0;

    static {
        List<String> rule = new ArrayList<String>();
        rule.add("match");
        rule.add("mode");
        rule.addAll(SETTINGS_KEYS);
        RULE_KEYS = Collections.unmodifiableList(rule);
    }

    /** Where a mapping sits, for the hints on misplaced keys. */
    private enum Place { TOP, MARKER, DEFAULTS, RULE, MATCH, BACKOFF, RETRY_ON, RETRY_AFTER, BUDGET }

    /** The YAML kind of a node, after the core schema resolved plain scalars. */
    private enum Kind { NULL, BOOL, INT, FLOAT, STR, MAP, LIST }

    /** A value to check: its key path, its node and the line errors about it name. */
    private static final class V {
        final String path;
        final Node node;
        final int line;

        V(String path, Node node, int line) {
            this.path = path;
            this.node = node;
            this.line = line;
        }
    }

    private final String source;
    private final List<PolicyError> errors;

    PolicyValidator(String source, List<PolicyError> errors) {
        this.source = source;
        this.errors = errors;
    }

    /** The policy of {@code root}, or null when any error was found (all of them are in the error list). */
    Policy validate(Node root) {
        int before = errors.size();
        if (root == null || (kind(root) == Kind.NULL && ((ScalarNode) root).getValue().isEmpty())) {
            error(1, PolicyLoader.FILE_KEY, "empty policy file: `version` is required (start it with `version: 1`)");
            return null;
        }
        if (kind(root) != Kind.MAP) {
            error(line(root), PolicyLoader.FILE_KEY, "a policy file must be a mapping of keys ("
                    + join(TOP_KEYS) + "); found " + describe(root));
            return null;
        }
        V top = new V("", root, line(root));
        Map<String, V> keys = mapping(top, TOP_KEYS, Place.TOP);

        V version = keys.get("version");
        if (version == null) {
            error(line(root), "version", "`version` is required: start the file with `version: 1`");
        } else if (!refused(version)) {
            if (kind(version.node) != Kind.INT) {
                typeError(version, "the integer 1");
            } else {
                BigInteger v = parseInteger(scalar(version));
                if (v == null || !v.equals(BigInteger.ONE)) {
                    error(version, "unsupported policy version " + show(scalar(version))
                            + "; this agent reads version 1");
                }
            }
        }

        Mode mode = Mode.ENFORCE;
        V modeValue = keys.get("mode");
        if (modeValue != null) {
            String name = choice(modeValue, MODES, "mode");
            if (name != null) {
                mode = Mode.fromConfigName(name);
            }
        }

        BuiltInRetries builtInRetries = BuiltInRetries.REPLACE;
        V bir = keys.get("builtInRetries");
        if (bir != null) {
            String name = choice(bir, BUILT_IN_RETRIES, "builtInRetries value");
            if (name != null) {
                builtInRetries = BuiltInRetries.fromConfigName(name);
            }
        }

        String markerHeader = Policy.DEFAULT_MARKER_HEADER;
        V marker = keys.get("marker");
        if (marker != null) {
            Map<String, V> m = mapping(marker, MARKER_KEYS, Place.MARKER);
            if (m != null) {
                V header = m.get("header");
                if (header != null) {
                    String name = token(header, "header name");
                    if (name != null) {
                        markerHeader = name;
                    }
                }
                V enabled = m.get("enabled");
                if (enabled != null) {
                    Boolean on = bool(enabled);
                    if (on != null && !on) {
                        markerHeader = null;
                    }
                }
            }
        }

        RetrySettings defaults = RetrySettings.builtIn();
        V defaultsValue = keys.get("defaults");
        if (defaultsValue != null) {
            Map<String, V> d = mapping(defaultsValue, SETTINGS_KEYS, Place.DEFAULTS);
            if (d != null) {
                defaults = settings(d, defaults, defaultsValue.path, false, "the built-in default");
            }
        }

        List<Rule> rules = new ArrayList<Rule>();
        V rulesValue = keys.get("rules");
        if (rulesValue != null) {
            List<V> items = list(rulesValue, "rules (each with a `match`)");
            if (items != null) {
                for (int i = 0; i < items.size(); i++) {
                    Rule rule = rule(items.get(i), i, defaults);
                    if (rule != null) {
                        rules.add(rule);
                    }
                }
            }
        }

        if (errors.size() > before) {
            return null;
        }
        return new Policy(source, 1, mode, builtInRetries, markerHeader, defaults, rules);
    }

    private Rule rule(V item, int index, RetrySettings defaults) {
        if (refused(item)) {
            return null;
        }
        if (kind(item.node) != Kind.MAP) {
            typeError(item, "a rule: a mapping with `match` and the settings it changes");
            return null;
        }
        Map<String, V> keys = mapping(item, RULE_KEYS, Place.RULE);
        Match match = null;
        V matchValue = keys.get("match");
        if (matchValue == null) {
            error(item.line, item.path + ".match", "a rule needs a `match`, such as `match: { host: \"api.internal\" }`;"
                    + " settings for every call belong in `defaults`");
        } else {
            match = match(matchValue);
        }
        RetrySettings settings = settings(keys, defaults, item.path, true, "defaults");
        return match == null ? null : new Rule(index, item.line, match, settings);
    }

    private Match match(V value) {
        int before = errors.size();
        Map<String, V> m = mapping(value, MATCH_KEYS, Place.MATCH);
        if (m == null) {
            return null;
        }
        if (((MappingNode) value.node).getValue().isEmpty()) {
            error(value, "`match` is empty; give at least one of " + join(MATCH_KEYS)
                    + " (settings for every call belong in `defaults`)");
            return null;
        }
        String host = null;
        V hostValue = m.get("host");
        if (hostValue != null) {
            host = hostPattern(hostValue);
        }
        int port = -1;
        V portValue = m.get("port");
        if (portValue != null) {
            Integer p = integer(portValue, 1, 65535, "a port between 1 and 65535");
            if (p != null) {
                port = p;
            }
        }
        String path = null;
        V pathValue = m.get("path");
        if (pathValue != null) {
            path = pathPattern(pathValue);
        }
        Set<String> methods = new LinkedHashSet<String>();
        V methodsValue = m.get("methods");
        if (methodsValue != null) {
            List<V> items = list(methodsValue, "HTTP methods, such as [GET, PUT]");
            if (items != null) {
                if (items.isEmpty()) {
                    error(methodsValue, "`methods` is empty; list at least one method, or leave `methods` out"
                            + " to match every method");
                }
                for (V item : items) {
                    String method = method(item);
                    if (method != null) {
                        methods.add(method);
                    }
                }
            }
        }
        String client = null;
        V clientValue = m.get("client");
        if (clientValue != null) {
            client = choice(clientValue, CLIENTS, "client");
        }
        if (errors.size() > before) {
            return null;
        }
        return new Match(host, port, path, methods, client);
    }

    /**
     * {@code base} overridden by the keys given in {@code keys}, key by key and, in nested mappings, sub-key
     * by sub-key. {@code inherited} names where omitted values come from, for messages.
     */
    private RetrySettings settings(Map<String, V> keys, RetrySettings base, String path, boolean rule,
                                   String inherited) {
        int before = errors.size();
        RetrySettings.Builder b = base.toBuilder();
        V v;
        if (rule && (v = keys.get("mode")) != null) {
            String name = choice(v, MODES, "mode");
            if (name != null) {
                b.mode(Mode.fromConfigName(name));
            }
        }
        if ((v = keys.get("maxAttempts")) != null) {
            Integer n = integer(v, 1, MAX_ATTEMPTS, "between 1 and " + MAX_ATTEMPTS
                    + " (attempts in all, the first included; 1 means never retry)");
            if (n != null) {
                b.maxAttempts(n);
            }
        }
        if ((v = keys.get("backoff")) != null) {
            Map<String, V> m = mapping(v, BACKOFF_KEYS, Place.BACKOFF);
            if (m != null) {
                b.backoff(backoff(m, base.backoff(), inherited));
            }
        }
        if ((v = keys.get("deadline")) != null) {
            Long ms = duration(v);
            if (ms != null) {
                b.deadlineMillis(ms);
            }
        }
        if ((v = keys.get("retryOn")) != null) {
            Map<String, V> m = mapping(v, RETRY_ON_KEYS, Place.RETRY_ON);
            if (m != null) {
                V statuses = m.get("statuses");
                if (statuses != null) {
                    StatusSet set = statuses(statuses);
                    if (set != null) {
                        b.retryStatuses(set);
                    }
                }
                V failures = m.get("failures");
                if (failures != null) {
                    Set<FailureKind> kinds = failures(failures);
                    if (kinds != null) {
                        b.retryFailures(kinds);
                    }
                }
            }
        }
        if ((v = keys.get("retryAfter")) != null) {
            Map<String, V> m = mapping(v, RETRY_AFTER_KEYS, Place.RETRY_AFTER);
            if (m != null) {
                RetryAfterPolicy ra = base.retryAfter();
                V honor = m.get("honor");
                Boolean h = honor == null ? null : bool(honor);
                if (h != null) {
                    ra = ra.withHonor(h);
                }
                V max = m.get("max");
                Long ms = max == null ? null : duration(max);
                if (ms != null) {
                    ra = ra.withMaxMillis(ms);
                }
                V spread = m.get("spread");
                Double s = spread == null ? null : number(spread, 0.0, MAX_SPREAD, "between 0 and 10");
                if (s != null) {
                    ra = ra.withSpread(s);
                }
                b.retryAfter(ra);
            }
        }
        if ((v = keys.get("idempotentMethods")) != null) {
            List<V> items = list(v, "HTTP methods, such as [GET, HEAD, PUT]");
            if (items != null) {
                List<String> methods = new ArrayList<String>();
                boolean ok = true;
                for (V item : items) {
                    String method = method(item);
                    ok &= method != null;
                    if (method != null && !methods.contains(method)) {
                        methods.add(method);
                    }
                }
                if (ok) {
                    b.idempotentMethods(methods);
                }
            }
        }
        if ((v = keys.get("idempotencyKeyHeaders")) != null) {
            List<V> items = list(v, "header names, such as [Idempotency-Key]");
            if (items != null) {
                List<String> headers = new ArrayList<String>();
                boolean ok = true;
                for (V item : items) {
                    String header = token(item, "header name");
                    ok &= header != null;
                    if (header != null) {
                        headers.add(header);
                    }
                }
                if (ok) {
                    b.idempotencyKeyHeaders(headers);
                }
            }
        }
        if ((v = keys.get("budget")) != null) {
            Map<String, V> m = mapping(v, BUDGET_KEYS, Place.BUDGET);
            if (m != null) {
                BudgetPolicy budget = base.budget();
                V ratio = m.get("ratio");
                Double r = ratio == null ? null : number(ratio, 0.0, 1.0, "between 0 and 1");
                if (r != null) {
                    budget = budget.withRatio(r);
                }
                V min = m.get("minPerSecond");
                Integer n = min == null ? null : integer(min, 0, Integer.MAX_VALUE, "0 or more");
                if (n != null) {
                    budget = budget.withMinPerSecond(n);
                }
                b.budget(budget);
            }
        }
        // Values that failed validation were left out, so the keys that did validate still reach the rules
        // below (no spurious follow-on errors); the policy itself is not built when there were errors.
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            if (errors.size() == before) {
                error(line(keysNodeLine(keys)), path, "invalid settings: " + e.getMessage());
            }
            return base;
        }
    }

    private static Node keysNodeLine(Map<String, V> keys) {
        return keys.isEmpty() ? null : keys.values().iterator().next().node;
    }

    private BackoffPolicy backoff(Map<String, V> m, BackoffPolicy base, String inherited) {
        BackoffPolicy result = base;
        V baseValue = m.get("base");
        Long baseMs = baseValue == null ? null : duration(baseValue);
        if (baseMs != null) {
            result = result.withBaseMillis(baseMs);
        }
        V capValue = m.get("cap");
        Long capMs = capValue == null ? null : duration(capValue);
        if (capMs != null) {
            result = result.withCapMillis(capMs);
        }
        V multiplier = m.get("multiplier");
        Double x = multiplier == null ? null : number(multiplier, 1.0, Double.MAX_VALUE, "1 or more");
        if (x != null) {
            result = result.withMultiplier(x);
        }
        V jitter = m.get("jitter");
        String j = jitter == null ? null : choice(jitter, JITTERS, "jitter");
        if (j != null) {
            result = result.withJitter(Jitter.fromConfigName(j));
        }
        boolean baseOk = baseValue == null || baseMs != null;
        boolean capOk = capValue == null || capMs != null;
        if (baseOk && capOk && (baseValue != null || capValue != null) && result.capMillis() < result.baseMillis()) {
            V at = capValue != null ? capValue : baseValue;
            error(at, "backoff.cap must be at least backoff.base, but cap is " + Durations.format(result.capMillis())
                    + (capValue == null ? " (from " + inherited + ")" : "")
                    + " and base is " + Durations.format(result.baseMillis())
                    + (baseValue == null ? " (from " + inherited + ")" : ""));
        }
        return result;
    }

    private StatusSet statuses(V value) {
        List<V> items = list(value, "HTTP status codes, such as [502, 503, 504]");
        if (items == null) {
            return null;
        }
        int[] codes = new int[items.size()];
        boolean ok = true;
        for (int i = 0; i < items.size(); i++) {
            Integer code = integer(items.get(i), 100, 599, "an HTTP status code between 100 and 599");
            if (code == null) {
                ok = false;
            } else {
                codes[i] = code;
            }
        }
        return ok ? StatusSet.of(codes) : null;
    }

    private Set<FailureKind> failures(V value) {
        List<V> items = list(value, "failure kinds, such as [connect, reset, timeout]");
        if (items == null) {
            return null;
        }
        Set<FailureKind> kinds = EnumSet.noneOf(FailureKind.class);
        boolean ok = true;
        for (V item : items) {
            String name = choice(item, FAILURES, "failure kind");
            if (name == null) {
                ok = false;
            } else {
                kinds.add(FailureKind.fromConfigName(name));
            }
        }
        return ok ? kinds : null;
    }

    // ---------------------------------------------------------------- typed values

    /** The entries of a mapping whose keys are all known; unknown and repeated keys are reported. */
    private Map<String, V> mapping(V value, List<String> allowed, Place place) {
        Map<String, V> result = new LinkedHashMap<String, V>();
        if (refused(value)) {
            return null;
        }
        if (kind(value.node) != Kind.MAP) {
            typeError(value, "a mapping with the keys " + join(allowed));
            return null;
        }
        Map<String, Integer> seen = new LinkedHashMap<String, Integer>();
        for (NodeTuple tuple : ((MappingNode) value.node).getValue()) {
            Node keyNode = tuple.getKeyNode();
            Node valueNode = tuple.getValueNode();
            if (!(keyNode instanceof ScalarNode)) {
                error(line(keyNode), child(value.path, "?"), "a key must be a plain name, found " + describe(keyNode));
                continue;
            }
            String key = ((ScalarNode) keyNode).getValue();
            if (key.startsWith(PolicyLoader.REFUSED_ALIAS)) {
                continue;
            }
            String path = child(value.path, key);
            Integer first = seen.get(key);
            if (first != null) {
                error(line(keyNode), path, "duplicate key `" + show(key) + "` (first given on line " + first
                        + "); give each key once");
                continue;
            }
            seen.put(key, line(keyNode));
            if (!allowed.contains(key)) {
                error(line(keyNode), path, unknownKey(key, allowed, place));
                continue;
            }
            int valueLine = isEmptyScalar(valueNode) ? line(keyNode) : line(valueNode);
            result.put(key, new V(path, valueNode, valueLine));
        }
        return result;
    }

    private List<V> list(V value, String what) {
        if (refused(value)) {
            return null;
        }
        if (kind(value.node) != Kind.LIST) {
            typeError(value, "a list of " + what);
            return null;
        }
        List<V> items = new ArrayList<V>();
        List<Node> nodes = ((SequenceNode) value.node).getValue();
        for (int i = 0; i < nodes.size(); i++) {
            Node node = nodes.get(i);
            items.add(new V(value.path + "[" + i + "]", node, isEmptyScalar(node) ? value.line : line(node)));
        }
        return items;
    }

    private Integer integer(V value, int min, int max, String range) {
        if (refused(value)) {
            return null;
        }
        if (kind(value.node) != Kind.INT) {
            typeError(value, min == max ? "the integer " + min : "an integer " + range);
            return null;
        }
        BigInteger n = parseInteger(scalar(value));
        if (n == null || n.compareTo(BigInteger.valueOf(min)) < 0 || n.compareTo(BigInteger.valueOf(max)) > 0) {
            error(value, "must be " + range + "; found " + show(scalar(value)));
            return null;
        }
        return n.intValue();
    }

    private Double number(V value, double min, double max, String range) {
        if (refused(value)) {
            return null;
        }
        Kind kind = kind(value.node);
        if (kind != Kind.INT && kind != Kind.FLOAT) {
            typeError(value, "a number " + range);
            return null;
        }
        String text = scalar(value);
        double d;
        if (kind == Kind.INT) {
            BigInteger n = parseInteger(text);
            d = n == null ? Double.NaN : n.doubleValue();
        } else {
            d = parseFloat(text);
        }
        if (Double.isNaN(d) || Double.isInfinite(d) || d < min || d > max) {
            error(value, "must be " + range + "; found " + show(text));
            return null;
        }
        return d;
    }

    private Boolean bool(V value) {
        if (refused(value)) {
            return null;
        }
        if (kind(value.node) != Kind.BOOL) {
            typeError(value, "true or false");
            return null;
        }
        return Boolean.valueOf(scalar(value).toLowerCase(Locale.ROOT));
    }

    /** A non-empty string. */
    private String text(V value, String what) {
        if (refused(value)) {
            return null;
        }
        if (kind(value.node) != Kind.STR) {
            typeError(value, what);
            return null;
        }
        String text = scalar(value);
        if (Tag.ENV_TAG.equals(value.node.getTag())) {
            error(value, "environment variables are not expanded in policy files: found " + quote(text)
                    + "; write the value itself");
            return null;
        }
        if (text.trim().isEmpty()) {
            error(value, "must not be empty; expected " + what);
            return null;
        }
        return text;
    }

    private Long duration(V value) {
        if (refused(value)) {
            return null;
        }
        Kind kind = kind(value.node);
        String text = value.node instanceof ScalarNode ? scalar(value) : null;
        if (kind == Kind.INT || kind == Kind.FLOAT) {
            if (text.trim().startsWith("-")) {
                error(value, "found " + show(text) + ", a negative bare number: a duration must not be negative"
                        + " and needs a unit (ms, s, m, h); write 250ms or 2s");
            } else {
                error(value, "found the bare number " + show(text) + ": a duration needs a unit (ms, s, m, h);"
                        + " write 250ms or 2s");
            }
            return null;
        }
        if (kind != Kind.STR) {
            typeError(value, "a duration such as 250ms, 2s, 1m or 1h");
            return null;
        }
        long ms = Durations.parseMillis(text);
        if (ms == -2) {
            error(value, "the duration " + quote(text) + " is too large");
            return null;
        }
        if (ms < 0) {
            if (text.trim().startsWith("-")) {
                error(value, "a duration must not be negative; found " + quote(text));
            } else {
                error(value, "expected a duration: a whole number with a unit ms, s, m or h, such as 250ms, 2s,"
                        + " 1m; found " + quote(text));
            }
            return null;
        }
        return ms;
    }

    /** One of {@code allowed}, matched case-insensitively; returns the allowed spelling. */
    private String choice(V value, List<String> allowed, String what) {
        String text = text(value, "one of " + join(allowed));
        if (text == null) {
            return null;
        }
        for (String name : allowed) {
            if (name.equalsIgnoreCase(text.trim())) {
                return name;
            }
        }
        String suggestion = closest(text.trim(), allowed);
        error(value, "unknown " + what + " " + quote(text) + "; allowed: " + join(allowed)
                + (suggestion == null ? "" : " (did you mean `" + suggestion + "`?)"));
        return null;
    }

    private String method(V value) {
        String text = text(value, "an HTTP method such as GET");
        if (text == null) {
            return null;
        }
        String method = text.trim().toUpperCase(Locale.ROOT);
        if (!METHODS.contains(method)) {
            String suggestion = closest(method, METHODS);
            error(value, "unknown HTTP method " + quote(text) + "; allowed: " + join(METHODS)
                    + (suggestion == null ? "" : " (did you mean `" + suggestion + "`?)"));
            return null;
        }
        return method;
    }

    /** An HTTP header name: a token of RFC 9110 (letters, digits and !#$%&'*+-.^_`|~). */
    private String token(V value, String what) {
        String text = text(value, "a " + what);
        if (text == null) {
            return null;
        }
        for (int i = 0; i < text.length(); i++) {
            if (!isTokenChar(text.charAt(i))) {
                error(value, quote(text) + " is not a valid " + what + ": it may contain only letters, digits and"
                        + " !#$%&'*+-.^_`|~ (no spaces, colons or quotes)");
                return null;
            }
        }
        return text;
    }

    static boolean isTokenChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }

    private String hostPattern(V value) {
        String text = text(value, "a host name or glob, such as api.internal or \"*.partner.example\"");
        if (text == null) {
            return null;
        }
        if (text.contains("/")) {
            error(value, quote(text) + " is not a host pattern: write only the host, such as api.internal or"
                    + " \"*.partner.example\" (no scheme or path; use `path:` for paths)");
            return null;
        }
        int colon = text.indexOf(':');
        if (colon >= 0 && colon == text.lastIndexOf(':') && !text.startsWith("[")) {
            error(value, quote(text) + " is not a host pattern: write the port under `port:`, not in the host");
            return null;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '.' || c == '_' || c == '*' || c == ':' || c == '[' || c == ']';
            if (!ok) {
                error(value, quote(text) + " is not a host pattern: a host may contain letters, digits, `-`, `.`"
                        + " and `*` (one label), such as \"*.partner.example\"");
                return null;
            }
        }
        return text;
    }

    private String pathPattern(V value) {
        String text = text(value, "a path glob beginning with `/`, such as \"/v1/sync/**\"");
        if (text == null) {
            return null;
        }
        if (!text.startsWith("/")) {
            error(value, "a path pattern must begin with `/`; found " + quote(text));
            return null;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '?' || c == '#') {
                error(value, "a path pattern matches the path only, without a query (`?`) or fragment (`#`);"
                        + " found " + quote(text));
                return null;
            }
            if (Character.isWhitespace(c) || Character.isISOControl(c)) {
                error(value, "a path pattern must not contain spaces or control characters; found " + quote(text));
                return null;
            }
        }
        return text;
    }

    // ---------------------------------------------------------------- messages

    private String unknownKey(String key, List<String> allowed, Place place) {
        String shown = "`" + show(key) + "`";
        if (place == Place.TOP && SETTINGS_KEYS.contains(key)) {
            return "unknown top-level key " + shown + "; settings go under `defaults` (or in a rule)";
        }
        if (place == Place.TOP && key.equals("match")) {
            return "unknown top-level key " + shown + "; `match` belongs in a rule, under `rules`";
        }
        if (place == Place.DEFAULTS && key.equals("mode")) {
            return "`mode` cannot be set in `defaults`; set the top-level `mode`, or `mode` in a rule";
        }
        if (place == Place.DEFAULTS && key.equals("match")) {
            return "`match` belongs in a rule, under `rules`, not in `defaults`";
        }
        if (place == Place.RULE && MATCH_KEYS.contains(key)) {
            return shown + " belongs under the rule's `match`, such as `match: { " + key + ": ... }`";
        }
        if (place == Place.MATCH && RULE_KEYS.contains(key)) {
            return shown + " is a setting, not a match key; put it beside `match` in the rule";
        }
        String suggestion = closest(key, allowed);
        if (suggestion != null) {
            return "unknown key " + shown + "; did you mean `" + suggestion + "`?";
        }
        return "unknown key " + shown + "; allowed keys here: " + join(allowed);
    }

    /** The allowed name within edit distance 2 of {@code text} (ignoring case), or null. */
    static String closest(String text, List<String> allowed) {
        if (text.length() > 64) {
            return null;
        }
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        String lower = text.toLowerCase(Locale.ROOT);
        for (String name : allowed) {
            int d = distance(lower, name.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                bestDistance = d;
                best = name;
            }
        }
        return bestDistance <= 2 && bestDistance < text.length() ? best : null;
    }

    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    private void typeError(V value, String expected) {
        String found = describe(value.node);
        Node node = value.node;
        if (node instanceof ScalarNode && ((ScalarNode) node).getScalarStyle() != ScalarStyle.PLAIN
                && kind(node) == Kind.STR) {
            String text = ((ScalarNode) node).getValue();
            if (parseInteger(text) != null || !Double.isNaN(parseFloat(text)) || text.equals("true")
                    || text.equals("false")) {
                found += " (quoted, so it is text; remove the quotes)";
            }
        }
        error(value, "expected " + expected + "; found " + found);
    }

    private static String describe(Node node) {
        switch (kind(node)) {
            case MAP:
                return "a mapping";
            case LIST:
                return "a list";
            case NULL:
                return ((ScalarNode) node).getValue().isEmpty() ? "no value" : "null";
            case BOOL:
                return "the boolean " + ((ScalarNode) node).getValue();
            case INT:
                return "the integer " + show(((ScalarNode) node).getValue());
            case FLOAT:
                return "the number " + show(((ScalarNode) node).getValue());
            default:
                return "the text \"" + show(((ScalarNode) node).getValue()) + "\"";
        }
    }

    /** A value as it may appear in a message: at most 60 characters, control characters escaped. */
    static String show(String text) {
        StringBuilder sb = new StringBuilder();
        int limit = Math.min(text.length(), 60);
        for (int i = 0; i < limit; i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        if (text.length() > limit) {
            sb.append("...");
        }
        return sb.toString();
    }

    static String quote(String text) {
        return "`" + show(text) + "`";
    }

    private static String join(List<String> names) {
        StringBuilder sb = new StringBuilder();
        for (String name : names) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(name);
        }
        return sb.toString();
    }

    // ---------------------------------------------------------------- nodes

    private static Kind kind(Node node) {
        if (node instanceof MappingNode) {
            return Kind.MAP;
        }
        if (node instanceof SequenceNode) {
            return Kind.LIST;
        }
        Tag tag = node.getTag();
        if (Tag.NULL.equals(tag)) {
            return Kind.NULL;
        }
        if (Tag.BOOL.equals(tag)) {
            return Kind.BOOL;
        }
        if (Tag.INT.equals(tag)) {
            return Kind.INT;
        }
        if (Tag.FLOAT.equals(tag)) {
            return Kind.FLOAT;
        }
        return Kind.STR;
    }

    private static boolean isEmptyScalar(Node node) {
        return node instanceof ScalarNode && kind(node) == Kind.NULL && ((ScalarNode) node).getValue().isEmpty();
    }

    /** True for the stand-in of a refused alias: already reported, nothing more to say about it. */
    private static boolean refused(V value) {
        return value.node instanceof ScalarNode
                && ((ScalarNode) value.node).getValue().startsWith(PolicyLoader.REFUSED_ALIAS);
    }

    private static String scalar(V value) {
        return ((ScalarNode) value.node).getValue();
    }

    /** A YAML 1.2 core-schema integer ({@code 12}, {@code -3}, {@code +4}, {@code 0x1f}, {@code 0o17}), or null. */
    static BigInteger parseInteger(String text) {
        String s = text.trim();
        try {
            if (s.startsWith("0x")) {
                return new BigInteger(s.substring(2), 16);
            }
            if (s.startsWith("0o")) {
                return new BigInteger(s.substring(2), 8);
            }
            if (s.startsWith("+")) {
                s = s.substring(1);
            }
            if (s.isEmpty() || s.startsWith("+") || s.startsWith("-") && s.length() == 1) {
                return null;
            }
            for (int i = s.startsWith("-") ? 1 : 0; i < s.length(); i++) {
                if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                    return null;
                }
            }
            return new BigInteger(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** A YAML 1.2 core-schema float, or NaN when it is none (or is {@code .nan}). */
    static double parseFloat(String text) {
        String s = text.trim();
        String lower = s.toLowerCase(Locale.ROOT);
        if (lower.equals(".inf") || lower.equals("+.inf")) {
            return Double.POSITIVE_INFINITY;
        }
        if (lower.equals("-.inf")) {
            return Double.NEGATIVE_INFINITY;
        }
        if (s.isEmpty()) {
            return Double.NaN;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) {
                return Double.NaN;
            }
        }
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    private static int line(Node node) {
        if (node == null || !node.getStartMark().isPresent()) {
            return 1;
        }
        return node.getStartMark().get().getLine() + 1;
    }

    private static String child(String path, String key) {
        String name = key.isEmpty() ? "\"\"" : show(key);
        return path.isEmpty() ? name : path + "." + name;
    }

    private void error(V value, String message) {
        errors.add(new PolicyError(source, value.line, value.path, message));
    }

    private void error(int line, String key, String message) {
        errors.add(new PolicyError(source, line, key, message));
    }

    private static List<String> names(String... names) {
        return Collections.unmodifiableList(Arrays.asList(names));
    }
}
