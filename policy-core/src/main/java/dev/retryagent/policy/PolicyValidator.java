package dev.retryagent.policy;

import static dev.retryagent.policy.PolicyMessages.describe;
import static dev.retryagent.policy.PolicyMessages.join;
import static dev.retryagent.policy.PolicyMessages.show;
import static dev.retryagent.policy.PolicySchema.BUILT_IN_RETRIES;
import static dev.retryagent.policy.PolicySchema.CLIENTS;
import static dev.retryagent.policy.PolicySchema.FAILURES;
import static dev.retryagent.policy.PolicySchema.JITTERS;
import static dev.retryagent.policy.PolicySchema.MATCH_KEYS;
import static dev.retryagent.policy.PolicySchema.MAX_ATTEMPTS;
import static dev.retryagent.policy.PolicySchema.MAX_SPREAD;
import static dev.retryagent.policy.PolicySchema.MODES;
import static dev.retryagent.policy.PolicySchema.TOP_KEYS;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

import dev.retryagent.policy.PolicySchema.Place;

/**
 * Walks the composed YAML node tree of a policy file against the schema of SPEC section 3 and builds the
 * {@link Policy}. Every problem is added to the error list (nothing stops at the first); a policy is
 * returned only when there were none. Omitted keys keep the value they override: the built-in default
 * for {@code defaults}, the resolved defaults for a rule, sub-key by sub-key in nested mappings.
 */
final class PolicyValidator {
    private final PolicyErrors errors;
    private final ValueReaders read;

    PolicyValidator(PolicyErrors errors) {
        this.errors = errors;
        this.read = new ValueReaders(errors);
    }

    /** The policy of {@code root}, or null when any error was found (all of them are in the error list). */
    Policy validate(Node root) {
        int before = errors.count();
        if (root == null || (YamlKind.of(root) == YamlKind.NULL && ((ScalarNode) root).getValue().isEmpty())) {
            errors.add(1, PolicyErrors.FILE_KEY,
                    "empty policy file: `version` is required (start it with `version: 1`)");
            return null;
        }
        if (YamlKind.of(root) != YamlKind.MAP) {
            errors.add(YamlValue.lineOf(root), PolicyErrors.FILE_KEY, "a policy file must be a mapping of keys ("
                    + join(TOP_KEYS) + "); found " + describe(root));
            return null;
        }
        YamlValue top = new YamlValue("", root, YamlValue.lineOf(root));
        Map<String, YamlValue> keys = read.mapping(top, Place.TOP);

        YamlValue version = keys.get("version");
        if (version == null) {
            errors.add(YamlValue.lineOf(root), "version", "`version` is required: start the file with `version: 1`");
        } else if (!version.isRefusedAlias()) {
            if (version.kind() != YamlKind.INT) {
                read.typeError(version, "the integer 1");
            } else {
                BigInteger v = YamlNumbers.parseInteger(version.scalar());
                if (v == null || !v.equals(BigInteger.ONE)) {
                    errors.add(version, "unsupported policy version " + show(version.scalar())
                            + "; this agent reads version 1");
                }
            }
        }

        Mode mode = Mode.ENFORCE;
        YamlValue modeValue = keys.get("mode");
        if (modeValue != null) {
            String name = read.choice(modeValue, MODES, "mode");
            if (name != null) {
                mode = Mode.fromConfigName(name);
            }
        }

        BuiltInRetries builtInRetries = BuiltInRetries.REPLACE;
        YamlValue bir = keys.get("builtInRetries");
        if (bir != null) {
            String name = read.choice(bir, BUILT_IN_RETRIES, "builtInRetries value");
            if (name != null) {
                builtInRetries = BuiltInRetries.fromConfigName(name);
            }
        }

        String markerHeader = Policy.DEFAULT_MARKER_HEADER;
        YamlValue marker = keys.get("marker");
        if (marker != null) {
            Map<String, YamlValue> m = read.mapping(marker, Place.MARKER);
            if (m != null) {
                YamlValue header = m.get("header");
                if (header != null) {
                    String name = read.token(header, "header name");
                    if (name != null) {
                        markerHeader = name;
                    }
                }
                YamlValue enabled = m.get("enabled");
                if (enabled != null) {
                    Boolean on = read.bool(enabled);
                    if (on != null && !on) {
                        markerHeader = null;
                    }
                }
            }
        }

        RetrySettings defaults = RetrySettings.builtIn();
        YamlValue defaultsValue = keys.get("defaults");
        if (defaultsValue != null) {
            Map<String, YamlValue> d = read.mapping(defaultsValue, Place.DEFAULTS);
            if (d != null) {
                defaults = settings(d, defaults, defaultsValue.path, false, "the built-in default");
            }
        }

        List<Rule> rules = new ArrayList<Rule>();
        YamlValue rulesValue = keys.get("rules");
        if (rulesValue != null) {
            List<YamlValue> items = read.list(rulesValue, "rules (each with a `match`)");
            if (items != null) {
                for (int i = 0; i < items.size(); i++) {
                    Rule rule = rule(items.get(i), i, defaults);
                    if (rule != null) {
                        rules.add(rule);
                    }
                }
            }
        }

        if (errors.count() > before) {
            return null;
        }
        return new Policy(errors.source(), 1, mode, builtInRetries, markerHeader, defaults, rules);
    }

    private Rule rule(YamlValue item, int index, RetrySettings defaults) {
        if (item.isRefusedAlias()) {
            return null;
        }
        if (item.kind() != YamlKind.MAP) {
            read.typeError(item, "a rule: a mapping with `match` and the settings it changes");
            return null;
        }
        Map<String, YamlValue> keys = read.mapping(item, Place.RULE);
        Match match = null;
        YamlValue matchValue = keys.get("match");
        if (matchValue == null) {
            errors.add(item.line, item.path + ".match",
                    "a rule needs a `match`, such as `match: { host: \"api.internal\" }`;"
                            + " settings for every call belong in `defaults`");
        } else {
            match = match(matchValue);
        }
        RetrySettings settings = settings(keys, defaults, item.path, true, "defaults");
        return match == null ? null : new Rule(index, item.line, match, settings);
    }

    private Match match(YamlValue value) {
        int before = errors.count();
        Map<String, YamlValue> m = read.mapping(value, Place.MATCH);
        if (m == null) {
            return null;
        }
        if (((MappingNode) value.node).getValue().isEmpty()) {
            errors.add(value, "`match` is empty; give at least one of " + join(MATCH_KEYS)
                    + " (settings for every call belong in `defaults`)");
            return null;
        }
        String host = null;
        YamlValue hostValue = m.get("host");
        if (hostValue != null) {
            host = read.hostPattern(hostValue);
        }
        int port = -1;
        YamlValue portValue = m.get("port");
        if (portValue != null) {
            Integer p = read.integer(portValue, 1, 65535, "a port between 1 and 65535");
            if (p != null) {
                port = p;
            }
        }
        String path = null;
        YamlValue pathValue = m.get("path");
        if (pathValue != null) {
            path = read.pathPattern(pathValue);
        }
        Set<String> methods = new LinkedHashSet<String>();
        YamlValue methodsValue = m.get("methods");
        if (methodsValue != null) {
            List<YamlValue> items = read.list(methodsValue, "HTTP methods, such as [GET, PUT]");
            if (items != null) {
                if (items.isEmpty()) {
                    errors.add(methodsValue, "`methods` is empty; list at least one method, or leave `methods` out"
                            + " to match every method");
                }
                for (YamlValue item : items) {
                    String method = read.method(item);
                    if (method != null) {
                        methods.add(method);
                    }
                }
            }
        }
        String client = null;
        YamlValue clientValue = m.get("client");
        if (clientValue != null) {
            client = read.choice(clientValue, CLIENTS, "client");
        }
        if (errors.count() > before) {
            return null;
        }
        return new Match(host, port, path, methods, client);
    }

    /**
     * {@code base} overridden by the keys given in {@code keys}, key by key and, in nested mappings, sub-key
     * by sub-key. {@code inherited} names where omitted values come from, for messages.
     */
    private RetrySettings settings(Map<String, YamlValue> keys, RetrySettings base, String path, boolean rule,
                                   String inherited) {
        int before = errors.count();
        RetrySettings.Builder b = base.toBuilder();
        YamlValue v;
        if (rule && (v = keys.get("mode")) != null) {
            String name = read.choice(v, MODES, "mode");
            if (name != null) {
                b.mode(Mode.fromConfigName(name));
            }
        }
        if ((v = keys.get("maxAttempts")) != null) {
            Integer n = read.integer(v, 1, MAX_ATTEMPTS, "between 1 and " + MAX_ATTEMPTS
                    + " (attempts in all, the first included; 1 means never retry)");
            if (n != null) {
                b.maxAttempts(n);
            }
        }
        if ((v = keys.get("backoff")) != null) {
            Map<String, YamlValue> m = read.mapping(v, Place.BACKOFF);
            if (m != null) {
                b.backoff(backoff(m, base.backoff(), inherited));
            }
        }
        if ((v = keys.get("deadline")) != null) {
            Long ms = read.duration(v);
            if (ms != null) {
                b.deadlineMillis(ms);
            }
        }
        if ((v = keys.get("retryOn")) != null) {
            Map<String, YamlValue> m = read.mapping(v, Place.RETRY_ON);
            if (m != null) {
                YamlValue statuses = m.get("statuses");
                if (statuses != null) {
                    StatusSet set = statuses(statuses);
                    if (set != null) {
                        b.retryStatuses(set);
                    }
                }
                YamlValue failures = m.get("failures");
                if (failures != null) {
                    Set<FailureKind> kinds = failures(failures);
                    if (kinds != null) {
                        b.retryFailures(kinds);
                    }
                }
            }
        }
        if ((v = keys.get("retryAfter")) != null) {
            Map<String, YamlValue> m = read.mapping(v, Place.RETRY_AFTER);
            if (m != null) {
                RetryAfterPolicy ra = base.retryAfter();
                YamlValue honor = m.get("honor");
                Boolean h = honor == null ? null : read.bool(honor);
                if (h != null) {
                    ra = ra.withHonor(h);
                }
                YamlValue max = m.get("max");
                Long ms = max == null ? null : read.duration(max);
                if (ms != null) {
                    ra = ra.withMaxMillis(ms);
                }
                YamlValue spread = m.get("spread");
                Double s = spread == null ? null : read.number(spread, 0.0, MAX_SPREAD, "between 0 and 10");
                if (s != null) {
                    ra = ra.withSpread(s);
                }
                b.retryAfter(ra);
            }
        }
        if ((v = keys.get("idempotentMethods")) != null) {
            List<YamlValue> items = read.list(v, "HTTP methods, such as [GET, HEAD, PUT]");
            if (items != null) {
                List<String> methods = new ArrayList<String>();
                boolean ok = true;
                for (YamlValue item : items) {
                    String method = read.method(item);
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
            List<YamlValue> items = read.list(v, "header names, such as [Idempotency-Key]");
            if (items != null) {
                List<String> headers = new ArrayList<String>();
                boolean ok = true;
                for (YamlValue item : items) {
                    String header = read.token(item, "header name");
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
            Map<String, YamlValue> m = read.mapping(v, Place.BUDGET);
            if (m != null) {
                BudgetPolicy budget = base.budget();
                YamlValue ratio = m.get("ratio");
                Double r = ratio == null ? null : read.number(ratio, 0.0, 1.0, "between 0 and 1");
                if (r != null) {
                    budget = budget.withRatio(r);
                }
                YamlValue min = m.get("minPerSecond");
                Integer n = min == null ? null : read.integer(min, 0, Integer.MAX_VALUE, "0 or more");
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
            if (errors.count() == before) {
                errors.add(YamlValue.lineOf(keysNodeLine(keys)), path, "invalid settings: " + e.getMessage());
            }
            return base;
        }
    }

    private static Node keysNodeLine(Map<String, YamlValue> keys) {
        return keys.isEmpty() ? null : keys.values().iterator().next().node;
    }

    private BackoffPolicy backoff(Map<String, YamlValue> m, BackoffPolicy base, String inherited) {
        BackoffPolicy result = base;
        YamlValue baseValue = m.get("base");
        Long baseMs = baseValue == null ? null : read.duration(baseValue);
        if (baseMs != null) {
            result = result.withBaseMillis(baseMs);
        }
        YamlValue capValue = m.get("cap");
        Long capMs = capValue == null ? null : read.duration(capValue);
        if (capMs != null) {
            result = result.withCapMillis(capMs);
        }
        YamlValue multiplier = m.get("multiplier");
        Double x = multiplier == null ? null : read.number(multiplier, 1.0, Double.MAX_VALUE, "1 or more");
        if (x != null) {
            result = result.withMultiplier(x);
        }
        YamlValue jitter = m.get("jitter");
        String j = jitter == null ? null : read.choice(jitter, JITTERS, "jitter");
        if (j != null) {
            result = result.withJitter(Jitter.fromConfigName(j));
        }
        boolean baseOk = baseValue == null || baseMs != null;
        boolean capOk = capValue == null || capMs != null;
        if (baseOk && capOk && (baseValue != null || capValue != null) && result.capMillis() < result.baseMillis()) {
            YamlValue at = capValue != null ? capValue : baseValue;
            errors.add(at, "backoff.cap must be at least backoff.base, but cap is "
                    + Durations.format(result.capMillis())
                    + (capValue == null ? " (from " + inherited + ")" : "")
                    + " and base is " + Durations.format(result.baseMillis())
                    + (baseValue == null ? " (from " + inherited + ")" : ""));
        }
        return result;
    }

    private StatusSet statuses(YamlValue value) {
        List<YamlValue> items = read.list(value, "HTTP status codes, such as [502, 503, 504]");
        if (items == null) {
            return null;
        }
        int[] codes = new int[items.size()];
        boolean ok = true;
        for (int i = 0; i < items.size(); i++) {
            Integer code = read.integer(items.get(i), 100, 599, "an HTTP status code between 100 and 599");
            if (code == null) {
                ok = false;
            } else {
                codes[i] = code;
            }
        }
        return ok ? StatusSet.of(codes) : null;
    }

    private Set<FailureKind> failures(YamlValue value) {
        List<YamlValue> items = read.list(value, "failure kinds, such as [connect, reset, timeout]");
        if (items == null) {
            return null;
        }
        Set<FailureKind> kinds = EnumSet.noneOf(FailureKind.class);
        boolean ok = true;
        for (YamlValue item : items) {
            String name = read.choice(item, FAILURES, "failure kind");
            if (name == null) {
                ok = false;
            } else {
                kinds.add(FailureKind.fromConfigName(name));
            }
        }
        return ok ? kinds : null;
    }
}
