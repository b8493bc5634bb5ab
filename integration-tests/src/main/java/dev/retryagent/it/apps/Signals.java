package dev.retryagent.it.apps;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What a batch app reads on stdin under {@code --await-go}: the {@code go} line that starts its calls, then one line
 * {@code signal NAME} per event the test drives from outside (a cancel once the server has seen an attempt), so that
 * a test acts on what happened, not on a guess of when it will have happened on a busy machine.
 */
public final class Signals {
    private static final Map<String, Runnable> ACTIONS = new HashMap<>();
    private static final Set<String> RECEIVED = new HashSet<>();
    private static BufferedReader in;

    private Signals() {
    }

    /** Prints READY, waits for the go line, then reads the signals that follow on a daemon thread. */
    public static void awaitGo() {
        Report.line("READY");
        in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            in.readLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread reader = new Thread(Signals::readSignals, "signals");
        reader.setDaemon(true);
        reader.start();
    }

    /** Runs {@code action} when signal {@code name} arrives, or at once if it has arrived already. */
    public static void on(String name, Runnable action) {
        synchronized (ACTIONS) {
            if (!RECEIVED.contains(name)) {
                ACTIONS.put(name, action);
                return;
            }
        }
        action.run();
    }

    private static void readSignals() {
        try {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (!line.startsWith("signal ")) {
                    continue;
                }
                String name = line.substring("signal ".length()).trim();
                Runnable action;
                synchronized (ACTIONS) {
                    RECEIVED.add(name);
                    action = ACTIONS.remove(name);
                }
                if (action != null) {
                    action.run();
                }
            }
        } catch (IOException e) {
            // stdin closed: no more signals
        }
    }
}
