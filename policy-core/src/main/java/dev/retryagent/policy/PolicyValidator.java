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
import static dev.retryagent.policy.PolicySchema.UPPER_LAYERS;
import static dev.retryagent.policy.PolicySchema.MODES;
import static dev.retryagent.policy.PolicySchema.TOP_KEYS;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
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
 * Walks the composed YAML node tree of a policy file against the schema of docs/reference.md#the-policy-file
 * and builds the {@link Policy}. Every problem is added to the error list (nothing stops at the first); a policy is
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

        Mode mode = read.choice(keys.get("mode"), MODES, "mode", Mode.ENFORCE);
        BuiltInRetries builtInRetries = read.choice(keys.get("builtInRetries"), BUILT_IN_RETRIES,
                "builtInRetries value", BuiltInRetries.REPLACE);

        String markerHeader = Policy.DEFAULT_MARKER_HEADER;
        YamlValue marker = keys.get("marker");
        if (marker != null) {
            Map<String, YamlValue> m = read.mapping(marker, Place.MARKER);
            if (m != null) {
                String name = read.token(m.get("header"), "header name");
                if (name != null) {
                    markerHeader = name;
                }
                Boolean on = read.bool(m.get("enabled"));
                if (on != null && !on) {
                    markerHeader = null;
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
                for (int i = 0; i < items.size() && !errors.overflowed(); i++) {
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
        String host = read.hostPattern(m.get("host"));
        Integer port = read.integer(m.get("port"), 1, 65535, "a port between 1 and 65535");
        String path = read.pathPattern(m.get("path"));
        YamlValue methodsValue = m.get("methods");
        List<String> methods = read.listOf(methodsValue, "HTTP methods, such as [GET, PUT]", read::method);
        if (methods != null && methods.isEmpty()) {
            errors.add(methodsValue, "`methods` is empty; list at least one method, or leave `methods` out"
                    + " to match every method");
        }
        String client = read.choice(m.get("client"), CLIENTS, "client");
        if (errors.count() > before) {
            return null;
        }
        return new Match(host, port == null ? -1 : port, path,
                methods == null ? Collections.<String>emptySet() : new LinkedHashSet<String>(methods), client);
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
            Mode mode = read.choice(v, MODES, "mode");
            if (mode != null) {
                b.mode(mode);
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
            if (v.kind() == YamlKind.MAP) {
                Map<String, YamlValue> m = read.mapping(v, Place.DEADLINE);
                if (m != null) {
                    Long ms = read.duration(m.get("after"));
                    if (ms != null) {
                        b.deadlineMillis(ms);
                    }
                    Boolean enforce = read.bool(m.get("enforce"));
                    if (enforce != null) {
                        b.deadlineEnforced(enforce);
                    }
                }
            } else {
                Long ms = read.duration(v);
                if (ms != null) {
                    b.deadlineMillis(ms);
                }
            }
        }
        if ((v = keys.get("attemptTimeout")) != null) {
            Long ms = read.duration(v);
            if (ms != null && ms == 0) {
                errors.add(v, "attemptTimeout must be above 0; leave the key out for no attempt timeout");
            } else if (ms != null) {
                b.attemptTimeoutMillis(ms);
            }
        }
        if ((v = keys.get("retryOn")) != null) {
            Map<String, YamlValue> m = read.mapping(v, Place.RETRY_ON);
            if (m != null) {
                StatusSet statuses = statuses(m.get("statuses"));
                if (statuses != null) {
                    b.retryStatuses(statuses);
                }
                Set<FailureKind> failures = failures(m.get("failures"));
                if (failures != null) {
                    b.retryFailures(failures);
                }
            }
        }
        if ((v = keys.get("retryAfter")) != null) {
            Map<String, YamlValue> m = read.mapping(v, Place.RETRY_AFTER);
            if (m != null) {
                RetryAfterPolicy ra = base.retryAfter();
                Boolean h = read.bool(m.get("honor"));
                if (h != null) {
                    ra = ra.withHonor(h);
                }
                Long ms = read.duration(m.get("max"));
                if (ms != null) {
                    ra = ra.withMaxMillis(ms);
                }
                Double s = read.number(m.get("spread"), 0.0, MAX_SPREAD, "between 0 and 10");
                if (s != null) {
                    ra = ra.withSpread(s);
                }
                b.retryAfter(ra);
            }
        }
        List<String> methods = read.listOf(keys.get("idempotentMethods"), "HTTP methods, such as [GET, HEAD, PUT]",
                read::method);
        if (methods != null) {
            b.idempotentMethods(new ArrayList<String>(new LinkedHashSet<String>(methods)));
        }
        List<String> headers = read.listOf(keys.get("idempotencyKeyHeaders"),
                "header names, such as [Idempotency-Key]", item -> read.token(item, "header name"));
        if (headers != null) {
            b.idempotencyKeyHeaders(headers);
        }
        Boolean unsent = read.bool(keys.get("retryUnsent"));
        if (unsent != null) {
            b.retryUnsent(unsent);
        }
        if ((v = keys.get("budget")) != null) {
            Map<String, YamlValue> m = read.mapping(v, Place.BUDGET);
            if (m != null) {
                BudgetPolicy budget = base.budget();
                Double r = read.number(m.get("ratio"), 0.0, 1.0, "between 0 and 1");
                if (r != null) {
                    budget = budget.withRatio(r);
                }
                Integer n = read.integer(m.get("minPerSecond"), 0, Integer.MAX_VALUE, "0 or more");
                if (n != null) {
                    budget = budget.withMinPerSecond(n);
                }
                b.budget(budget);
            }
        }
        if ((v = keys.get("upperLayers")) != null) {
            UpperLayers upper = read.choice(v, UPPER_LAYERS, "upperLayers");
            if (upper != null) {
                b.upperLayers(upper);
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
        Long baseMs = read.duration(baseValue);
        if (baseMs != null) {
            result = result.withBaseMillis(baseMs);
        }
        YamlValue capValue = m.get("cap");
        Long capMs = read.duration(capValue);
        if (capMs != null) {
            result = result.withCapMillis(capMs);
        }
        Double x = read.number(m.get("multiplier"), 1.0, Double.MAX_VALUE, "1 or more");
        if (x != null) {
            result = result.withMultiplier(x);
        }
        Jitter j = read.choice(m.get("jitter"), JITTERS, "jitter");
        if (j != null) {
            result = result.withJitter(j);
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
        List<Integer> codes = read.listOf(value, "HTTP status codes, such as [502, 503, 504]",
                item -> read.integer(item, 100, 599, "an HTTP status code between 100 and 599"));
        if (codes == null) {
            return null;
        }
        int[] array = new int[codes.size()];
        for (int i = 0; i < array.length; i++) {
            array[i] = codes.get(i);
        }
        return StatusSet.of(array);
    }

    private Set<FailureKind> failures(YamlValue value) {
        List<FailureKind> kinds = read.listOf(value, "failure kinds, such as [connect, reset, timeout]",
                item -> read.choice(item, FAILURES, "failure kind"));
        if (kinds == null) {
            return null;
        }
        Set<FailureKind> set = EnumSet.noneOf(FailureKind.class);
        set.addAll(kinds);
        return set;
    }
}
