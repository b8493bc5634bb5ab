package dev.retryagent.agent;

import dev.retryagent.agent.bootstrap.Hooks;
import dev.retryagent.agent.bootstrap.RetryRuntime;
import dev.retryagent.agent.httpclient5.HttpClient5Instrumentation;
import dev.retryagent.agent.httpurlconnection.HttpUrlConnectionInstrumentation;
import dev.retryagent.agent.instrument.ClientAdapters;
import dev.retryagent.agent.instrument.ClientInstrumentation;
import dev.retryagent.agent.instrument.HookPoint;
import dev.retryagent.agent.instrument.HookTransformer;
import dev.retryagent.agent.metrics.Metrics;
import dev.retryagent.agent.okhttp.OkHttpInstrumentation;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.PolicyError;
import dev.retryagent.policy.PolicyException;
import dev.retryagent.policy.PolicyLoader;
import java.lang.instrument.Instrumentation;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.logging.Level;

/**
 * The agent's start-up, once the bootstrap jar is on the bootstrap search path ({@link RetryAgent}):
 * configuration, logging, the policy, the shared runtime, then the class file transformer and the
 * retransformation of hooked classes that are already loaded. Loads no Byte Buddy class beyond its ASM, and
 * that only when a hooked class shows up.
 */
final class AgentStartup {
    private AgentStartup() {
    }

    /** The clients the agent instruments. */
    static List<ClientInstrumentation> clients() {
        List<ClientInstrumentation> clients = new ArrayList<ClientInstrumentation>();
        clients.add(new OkHttpInstrumentation());
        clients.add(new HttpClient5Instrumentation());
        clients.add(new HttpUrlConnectionInstrumentation());
        return Collections.unmodifiableList(clients);
    }

    /** The clients whose {@link ClientInstrumentation#prepare} succeeds; the others are left out (fail open). */
    static List<ClientInstrumentation> prepared(List<ClientInstrumentation> clients, Instrumentation inst) {
        List<ClientInstrumentation> ready = new ArrayList<ClientInstrumentation>();
        for (ClientInstrumentation client : clients) {
            try {
                if (client.prepare(inst)) {
                    ready.add(client);
                }
            } catch (Throwable t) {
                if (t instanceof VirtualMachineError) {
                    throw (VirtualMachineError) t;
                }
                RetryLog.internalError("prepare:" + client.name(), t);
            }
        }
        return Collections.unmodifiableList(ready);
    }

    static void start(String agentArgs, Instrumentation inst, boolean attached) {
        List<ClientInstrumentation> clients = prepared(clients(), inst);
        List<HookPoint> points = new ArrayList<HookPoint>();
        StringBuilder names = new StringBuilder();
        for (ClientInstrumentation client : clients) {
            points.addAll(client.hookPoints());
            names.append(names.length() == 0 ? "" : ",").append(client.name());
        }
        HookTransformer transformer = new HookTransformer(points);

        AgentConfig config = AgentConfig.resolve(agentArgs, System.getProperties(), System.getenv());
        AgentLogging.install(config.logLevel());
        for (String warning : config.warnings()) {
            RetryLog.agent(Level.WARNING, warning);
        }
        Policy policy = loadPolicy(config.policy());
        if (config.mode() != null) {
            policy = policy.withModeOverride(config.mode());
        }
        RetryRuntime.install(policy);

        Hooks.install(new ClientAdapters(clients, inst, AgentStartup.class.getClassLoader()));
        inst.addTransformer(transformer, true);
        int retransformed = transformer.retransformLoaded(inst);
        Metrics.start();

        // Attached: the line the target's operator reads to know the attach took effect (at start-up, debug only).
        Level startedLevel = attached ? Level.INFO : Level.FINE;
        if (RetryLog.logger().isLoggable(startedLevel)) {
            RetryLog.agent(startedLevel, "started policy=" + policy.source()
                    + " mode=" + policy.mode().configName()
                    + " builtInRetries=" + policy.builtInRetries().configName()
                    + " clients=" + names
                    + (attached ? " attached=true retransformed=" + retransformed : ""));
        }
    }

    /**
     * The policy to run: the file's, or the built-in one. A file that cannot be used leaves the application
     * running without retries (SPEC 4.11): every error is logged with its file, line and key, and the agent
     * runs in mode {@code off}.
     */
    static Policy loadPolicy(String file) {
        if (file == null) {
            return Policy.builtIn();
        }
        try {
            return PolicyLoader.load(Paths.get(file));
        } catch (PolicyException e) {
            for (PolicyError error : e.errors()) {
                RetryLog.agent(Level.SEVERE, "policy-error " + error);
            }
            RetryLog.agent(Level.SEVERE, "policy-invalid file=" + file + " errors=" + e.errors().size()
                    + "; the application runs without retries (mode off)");
        } catch (RuntimeException e) {
            RetryLog.agent(Level.SEVERE, "policy-invalid file=" + file + " error=" + e.getClass().getName()
                    + "; the application runs without retries (mode off)");
        }
        return Policy.builtIn().withModeOverride(Mode.OFF);
    }
}
