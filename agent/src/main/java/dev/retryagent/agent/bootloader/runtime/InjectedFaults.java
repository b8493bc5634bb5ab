package dev.retryagent.agent.bootloader.runtime;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A test-only switch that makes the agent fail inside itself, so that integration tests can show that every client
 * still completes its calls as if the agent were absent (docs/reference.md#fail-open). It exists because the agent's
 * fail-open paths ({@link Hooks} catching what a handler throws, the adapters' and loops' {@code
 * RetryLog.internalError} sites) are otherwise reached only by bugs, which a test cannot produce on purpose.
 *
 * <p>Set only by the JVM system property {@value #PROPERTY}, read once when this class initialises (at start-up,
 * see {@code AgentStartup}): not a policy key, not an agent argument, not an environment variable, so no policy
 * file or hot reload can switch it on. Its value is {@code all}, or places separated by {@code ,}, each exact
 * ({@code hook:okhttp.client-init}, {@code okhttp.facts}) or a prefix ending in {@code *} ({@code hook:*}). A place
 * is where {@link #at} is called: {@code hook:NAME} at the entry of every hook handler, {@code CLIENT.facts},
 * {@code CLIENT.outcome}, {@code CLIENT.classify}, {@code CLIENT.discard} in the adapters.
 *
 * <p>Unset (always, in production) {@link #at} tests one static final field against null, which the JIT folds away.
 */
public final class InjectedFaults {
    /** The system property that names the places to fail at. */
    public static final String PROPERTY = "retry.agent.test.failAt";

    /** The places, exact or prefixes (ending in {@code *}); null when the switch is off. */
    private static final List<String> PLACES = parse(System.getProperty(PROPERTY));

    private InjectedFaults() {
    }

    /** True when the switch is on: the agent is being made to fail on purpose. */
    public static boolean active() {
        return PLACES != null;
    }

    /** The switch's value, for the start-up line that says it is on; null when it is off. */
    public static String describe() {
        return PLACES == null ? null : String.valueOf(PLACES);
    }

    /** Throws {@link Fault} when the switch names {@code place}; otherwise nothing. */
    public static void at(String place) {
        if (PLACES != null && matches(PLACES, place)) {
            throw new Fault(place);
        }
    }

    /** {@link #at} {@code hook:HOOK}, the entry of a hook's handler. */
    public static void atHook(String hook) {
        if (PLACES != null) {
            at("hook:" + hook);
        }
    }

    static boolean matches(List<String> places, String place) {
        for (String p : places) {
            if (p.equals("all") || p.equals(place)
                    || (p.endsWith("*") && place.startsWith(p.substring(0, p.length() - 1)))) {
                return true;
            }
        }
        return false;
    }

    static List<String> parse(String value) {
        if (value == null || value.trim().isEmpty()) {
            return null;
        }
        List<String> places = new ArrayList<String>();
        for (String p : value.split(",")) {
            if (!p.trim().isEmpty()) {
                places.add(p.trim());
            }
        }
        return places.isEmpty() ? null : Collections.unmodifiableList(places);
    }

    /** The error the switch injects: an unchecked exception, as an agent bug would throw. */
    public static final class Fault extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        Fault(String place) {
            super("retry-agent test fault at " + place);
        }
    }
}
