package dev.retryagent.agent.startup;

import dev.retryagent.agent.layers.LayerTable;
import dev.retryagent.agent.RetryAgent;
import dev.retryagent.agent.startup.bootloading.BootClasses;
import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.runtime.Housekeeping;
import dev.retryagent.agent.bootloader.runtime.InjectedFaults;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.agent.clients.httpclient4.HttpClient4Instrumentation;
import dev.retryagent.agent.clients.httpclient5.HttpClient5Instrumentation;
import dev.retryagent.agent.clients.httpurlconnection.HttpUrlConnectionInstrumentation;
import dev.retryagent.agent.bootloader.weaving.ClientAdapters;
import dev.retryagent.agent.bootloader.weaving.ClientInstrumentation;
import dev.retryagent.agent.bootloader.weaving.HookTransformer;
import dev.retryagent.agent.bootloader.weaving.UncoveredClients;
import dev.retryagent.agent.clients.jdkhttp.JdkHttpInstrumentation;
import dev.retryagent.agent.operations.metrics.Metrics;
import dev.retryagent.agent.clients.okhttp.OkHttpInstrumentation;
import dev.retryagent.agent.clients.reactornetty.ReactorNettyInstrumentation;
import dev.retryagent.agent.startup.reload.PolicyWatcher;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.logging.Level;

/**
 * The agent's start-up, once the boot loader has the bootstrap jar's classes ({@link RetryAgent}):
 * configuration, logging, the policy, the shared runtime, then the class file transformer and the
 * retransformation of hooked classes that are already loaded. Loads no Byte Buddy class beyond its ASM, and
 * that only when a hooked class shows up.
 */
public final class AgentStartup {
    private AgentStartup() {
    }

    /** The clients the agent instruments, then the retry layers above them. */
    static List<ClientInstrumentation> clients() {
        List<ClientInstrumentation> clients = new ArrayList<ClientInstrumentation>();
        clients.add(new OkHttpInstrumentation());
        clients.add(new HttpClient5Instrumentation());
        clients.add(new HttpClient4Instrumentation());
        clients.add(new HttpUrlConnectionInstrumentation());
        clients.add(new JdkHttpInstrumentation());
        clients.add(new ReactorNettyInstrumentation());
        clients.addAll(LayerTable.all());
        return Collections.unmodifiableList(clients);
    }

    public static void start(String agentArgs, Instrumentation inst, boolean attached) throws Exception {
        List<ClientInstrumentation> clients = clients();
        RetryAgent.mark("clients");
        StringBuilder names = new StringBuilder();
        StringBuilder layers = new StringBuilder();
        for (ClientInstrumentation client : clients) {
            StringBuilder list = client.isRetryLayer() ? layers : names;
            list.append(list.length() == 0 ? "" : ",").append(client.name());
        }
        // Each client is prepared (its module edges) when its first class is woven (HookTransformer).
        HookTransformer transformer = new HookTransformer(clients, inst);
        RetryAgent.mark("transformer");

        AgentConfig config = AgentConfig.resolve(agentArgs, System.getProperties(), System.getenv());
        RetryAgent.mark("config");
        AgentLogging.install(config.logLevel());
        RetryAgent.mark("logging");
        for (String warning : config.warnings()) {
            RetryLog.agent(Level.WARNING, warning);
        }
        if (InjectedFaults.active()) {
            RetryLog.agent(Level.WARNING, "test-faults at=" + InjectedFaults.describe()
                    + "; the agent fails on purpose there (" + InjectedFaults.PROPERTY + ", for tests only)");
        }
        PolicyWatcher watcher = null;
        Policy policy;
        if (config.policy() == null) {
            BootClasses.release();
            policy = builtInPolicy(config.mode());
        } else {
            if (BootClasses.defineParser()) {
                RetryAgent.mark("define-parser");
            }
            watcher = PolicyWatcher.of(config.policy(), config.mode());
            policy = watcher != null ? watcher.start() : Policy.builtIn().withModeOverride(Mode.OFF);
        }
        RetryAgent.mark("policy");
        RetryRuntime.install(policy);
        RetryAgent.mark("runtime");

        Hooks.install(new ClientAdapters(clients, inst, AgentStartup.class.getClassLoader(),
                AgentStartup.class.getProtectionDomain()));
        inst.addTransformer(transformer, true);
        RetryAgent.mark("hooks");
        int retransformed = transformer.retransformLoaded(inst);
        RetryAgent.mark("retransform");
        Metrics.start();
        if (watcher != null) {
            Housekeeping.every("policy-reload", PolicyWatcher.PERIOD_MILLIS, watcher);
        }
        RetryAgent.mark("housekeeping");

        // Attached: the line the target's operator reads to know the attach took effect (at start-up, debug only).
        Level startedLevel = attached ? Level.INFO : Level.FINE;
        if (RetryLog.isLoggable(startedLevel)) {
            RetryLog.agent(startedLevel, "started policy=" + policy.source()
                    + " mode=" + policy.mode().configName()
                    + " builtInRetries=" + policy.builtInRetries().configName()
                    + " clients=" + names
                    + " layers=" + layers
                    + uncovered()
                    + (attached ? " attached=true retransformed=" + retransformed : ""));
        }
    }

    /** The clients the agent does not instrument that were loaded before it started (an attach), if any. */
    private static String uncovered() {
        String names = UncoveredClients.jvm().names();
        return names.isEmpty() ? "" : " uncovered=" + names;
    }

    /** The built-in policy, when no file is given; logged as a load, so that every service says what it runs. */
    static Policy builtInPolicy(Mode modeOverride) {
        Policy policy = Policy.builtIn();
        if (modeOverride != null) {
            policy = policy.withModeOverride(modeOverride);
        }
        publishPolicy("(built-in)", "(built-in)");
        RetryLog.agent(Level.INFO, "policy-loaded file=(built-in) rules=0 mode=" + policy.mode().configName()
                + " builtInRetries=" + policy.builtInRetries().configName());
        return policy;
    }

    /**
     * Puts the running policy's file and hash where an operator can read them from a live JVM without its logs
     * ({@code jcmd PID VM.system_properties}): logs rotate, and a service may log to nowhere. Here, not in
     * {@link PolicyWatcher}, so that a start on the built-in policy loads none of the watcher's classes.
     */
    public static void publishPolicy(String file, String hash) {
        try {
            System.setProperty(PolicyWatcher.POLICY_FILE_PROPERTY, file);
            System.setProperty(PolicyWatcher.POLICY_HASH_PROPERTY, hash);
        } catch (RuntimeException e) {
            RetryLog.internalError("policy-publish", e, "the system properties do not name the running policy;"
                    + " its policy-loaded line does");
        }
    }
}
