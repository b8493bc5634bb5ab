package dev.retryagent.policy;

import static dev.retryagent.policy.PolicyMessages.closest;
import static dev.retryagent.policy.PolicyMessages.join;
import static dev.retryagent.policy.PolicyMessages.show;

import java.util.List;

import dev.retryagent.policy.PolicySchema.Place;

/** The message for a key a mapping does not accept: where the key belongs instead, or the key meant. */
final class KeyHints {
    private KeyHints() {
    }

    static String unknownKey(String key, Place place) {
        List<String> allowed = place.keys();
        String shown = "`" + show(key) + "`";
        if (place == Place.TOP && PolicySchema.SETTINGS_KEYS.contains(key)) {
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
        if (place == Place.RULE && PolicySchema.MATCH_KEYS.contains(key)) {
            return shown + " belongs under the rule's `match`, such as `match: { " + key + ": ... }`";
        }
        if (place == Place.MATCH && PolicySchema.RULE_KEYS.contains(key)) {
            return shown + " is a setting, not a match key; put it beside `match` in the rule";
        }
        String suggestion = closest(key, allowed);
        if (suggestion != null) {
            return "unknown key " + shown + "; did you mean `" + suggestion + "`?";
        }
        return "unknown key " + shown + "; allowed keys here: " + join(allowed);
    }
}
