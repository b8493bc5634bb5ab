package dev.retryagent.agent.operations.cli;

import dev.retryagent.agent.RetryAgent;
import dev.retryagent.agent.startup.AgentConfig;
import dev.retryagent.policy.PolicyError;
import dev.retryagent.policy.PolicyException;
import dev.retryagent.policy.PolicyLoader;
import java.io.File;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import net.bytebuddy.agent.ByteBuddyAgent;

/**
 * {@code java -jar retry-agent.jar attach PID [ARGS]} (docs/operations.md): loads this jar as an agent into the running
 * JVM {@code PID}, which then runs {@link RetryAgent#agentmain}. Byte Buddy's agent library only finds the JDK's
 * attach API (module {@code jdk.attach}, {@code tools.jar} on Java 8, OpenJ9's); the API itself is called by
 * reflection, in this process, over one connection: read the target's system properties, load, read them again.
 *
 * <p>Whatever happens, the operator sees one line (stdout on success, stderr otherwise) and an exit code:
 * <pre>
 *  0  attached: the agent runs in that JVM now
 *  1  not attached: no such process, not a JVM this user may attach to, the JVM refuses attach, no attach API
 *     in the Java running this command, or the agent did not start there
 *  2  not attached: the policy file given is not valid (file:line: key: message per error, then the line)
 *  3  the JVM runs the agent already (by -javaagent or an earlier attach); nothing changed, ARGS not applied
 * 64  usage: no PID, a PID that is not a number, ARGS that are not key=value pairs of known keys
 * </pre>
 * A relative {@code policy=} path is made absolute here: the target resolves it against its own working
 * directory otherwise.
 */
final class AttachCommand {
    static final int ATTACHED = 0;
    static final int FAILED = 1;
    static final int INVALID_POLICY = 2;
    static final int ALREADY_RUNNING = 3;
    static final int USAGE = 64;

    private static final String POLICY_PREFIX = AgentConfig.POLICY + "=";

    private AttachCommand() {
    }

    /** {@code args}: everything after {@code attach}. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            err.println("retry-agent: attach needs the process id of a running JVM: attach PID [policy=FILE,mode=...,log=...]");
            return USAGE;
        }
        String pid = args[0].trim();
        if (!isProcessId(pid)) {
            err.println("retry-agent: attach: '" + args[0] + "' is not a process id (a positive number)");
            return USAGE;
        }
        String agentArgs = join(args, 1);
        AgentConfig config = AgentConfig.resolve(agentArgs, new Properties(), Collections.<String, String>emptyMap());
        if (!config.warnings().isEmpty()) {
            err.println("retry-agent: attach: nothing attached, bad agent argument: " + config.warnings().get(0));
            return USAGE;
        }
        if (config.policy() != null) {
            File policy = new File(config.policy()).getAbsoluteFile();
            if (policy.getPath().indexOf(',') >= 0) {
                err.println("retry-agent: attach: nothing attached, the policy path contains ',' (the agent argument separator): " + policy);
                return USAGE;
            }
            int invalid = validate(policy, err);
            if (invalid != ATTACHED) {
                return invalid;
            }
            agentArgs = withPolicy(agentArgs, policy.getPath());
        }
        File agentJar = agentJar();
        if (agentJar == null) {
            err.println("retry-agent: attach: run it as java -jar retry-agent.jar (the jar to load is this one)");
            return FAILED;
        }
        return attach(pid, agentJar, agentArgs, out, err);
    }

    static boolean isProcessId(String text) {
        if (text.isEmpty() || text.length() > 18) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return Long.parseLong(text) > 0;
    }

    /** The ARGS words joined by {@code ,}: {@code attach 42 policy=a.yaml mode=observe} works as well. */
    static String join(String[] args, int from) {
        StringBuilder joined = new StringBuilder();
        for (int i = from; i < args.length; i++) {
            String part = args[i].trim();
            if (!part.isEmpty()) {
                joined.append(joined.length() == 0 ? "" : ",").append(part);
            }
        }
        return joined.toString();
    }

    /** {@code agentArgs} with the value of every {@code policy=} pair replaced by {@code absolutePath}. */
    static String withPolicy(String agentArgs, String absolutePath) {
        StringBuilder result = new StringBuilder();
        for (String pair : agentArgs.split(",")) {
            String trimmed = pair.trim();
            if (trimmed.isEmpty()) {
                continue;
            }
            int eq = trimmed.indexOf('=');
            boolean isPolicy = eq > 0 && AgentConfig.POLICY.equals(trimmed.substring(0, eq).trim());
            result.append(result.length() == 0 ? "" : ",").append(isPolicy ? POLICY_PREFIX + absolutePath : trimmed);
        }
        return result.toString();
    }

    /** A policy that would put the target in mode off is refused here, where the operator reads the errors. */
    private static int validate(File policy, PrintStream err) {
        try {
            PolicyLoader.load(policy.toPath());
            return ATTACHED;
        } catch (PolicyException e) {
            for (PolicyError error : e.errors()) {
                err.println(error);
            }
            err.println("retry-agent: attach: nothing attached, " + policy + " is not valid (" + e.errors().size()
                    + " error" + (e.errors().size() == 1 ? "" : "s") + ")");
            return INVALID_POLICY;
        } catch (RuntimeException e) {
            err.println("retry-agent: attach: nothing attached, cannot read " + policy + " ("
                    + e.getClass().getSimpleName() + ")");
            return INVALID_POLICY;
        }
    }

    /** This jar, or null when the class is not loaded from a jar file. */
    private static File agentJar() {
        try {
            File file = new File(AttachCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return file.isFile() ? file : null;
        } catch (Exception e) {
            return null;
        }
    }

    private static int attach(String pid, File agentJar, String agentArgs, PrintStream out, PrintStream err) {
        Class<?> vmType;
        try {
            ByteBuddyAgent.AttachmentProvider.Accessor accessor = ByteBuddyAgent.AttachmentProvider.DEFAULT.attempt();
            vmType = accessor.isAvailable() ? accessor.getVirtualMachineType() : null;
        } catch (RuntimeException e) {
            vmType = null;
        } catch (LinkageError e) {
            vmType = null;
        }
        if (vmType == null) {
            err.println("retry-agent: attach: this Java runtime (" + System.getProperty("java.home")
                    + ") has no attach API; run the command with a JDK's java (module jdk.attach, or tools.jar on Java 8)");
            return FAILED;
        }
        String notFound = TargetProcess.problem(pid, vmType);
        if (notFound != null) {
            err.println("retry-agent: attach: " + notFound + "; nothing attached");
            return FAILED;
        }
        Object vm;
        try {
            vm = invoke(vmType.getMethod("attach", String.class), null, pid);
        } catch (Throwable t) {
            err.println("retry-agent: attach: cannot attach to JVM " + pid + ": " + describe(t) + hint(t) + "; nothing attached");
            return FAILED;
        }
        try {
            Method systemProperties = vmType.getMethod("getSystemProperties");
            Properties before = (Properties) invoke(systemProperties, vm);
            String running = before.getProperty(RetryAgent.STARTED_PROPERTY);
            if (running != null) {
                err.println("retry-agent: JVM " + pid + " runs the agent already (" + RetryAgent.STARTED_PROPERTY + "="
                        + running + "); nothing changed" + (agentArgs.isEmpty() ? "" : ", the arguments given were not applied"));
                return ALREADY_RUNNING;
            }
            invoke(vmType.getMethod("loadAgent", String.class, String.class), vm, agentJar.getAbsolutePath(),
                    agentArgs.isEmpty() ? null : agentArgs);
            Properties after = (Properties) invoke(systemProperties, vm);
            if (after.getProperty(RetryAgent.STARTED_PROPERTY) == null) {
                err.println("retry-agent: attach: the agent was loaded into JVM " + pid
                        + " but did not start; its stderr has a 'retry-agent' line saying why");
                return FAILED;
            }
            out.println("retry-agent: attached to JVM " + pid + " (" + (agentArgs.isEmpty() ? "built-in policy" : agentArgs)
                    + "); calls it makes from now on are retried");
            return ATTACHED;
        } catch (Throwable t) {
            err.println("retry-agent: attach: loading the agent into JVM " + pid + " failed: " + describe(t));
            return FAILED;
        } finally {
            try {
                invoke(vmType.getMethod("detach"), vm);
            } catch (Throwable ignored) {
                // the connection is one socket, closed with this process anyway
            }
        }
    }

    private static Object invoke(Method method, Object target, Object... args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** What went wrong, on one line: the JDK's message, or the failure's kind when it has none. */
    static String describe(Throwable t) {
        String message = t.getMessage();
        String text = message == null || message.trim().isEmpty()
                ? t.getClass().getSimpleName().replaceAll("(Exception|Error)$", "").replaceAll("([a-z])([A-Z])", "$1 $2").toLowerCase()
                : message.trim();
        return text.replace('\n', ' ').replace('\r', ' ');
    }

    private static String hint(Throwable t) {
        String name = t.getClass().getSimpleName();
        String message = String.valueOf(t.getMessage());
        if ("AttachNotSupportedException".equals(name) && message.contains("does not support the attach mechanism")) {
            return " (started with -XX:+DisableAttachMechanism?)";
        }
        if (message.contains("Permission denied") || message.contains("Operation not permitted")
                || message.contains("well-known file")) {
            return " (attach as the user that runs the JVM)";
        }
        return "";
    }

    /**
     * Checks made before attaching. The attach API, when it finds no attach socket of the target, starts the
     * target's attach listener by sending it SIGQUIT, which ends any process that is not a JVM: so the pid must
     * be a process that the attach API lists, or a JVM known from its performance data file or attach socket.
     */
    static final class TargetProcess {
        private TargetProcess() {
        }

        /** Null when attaching may go ahead, else why not. */
        static String problem(String pid, Class<?> vmType) {
            Boolean alive = isAlive(pid);
            if (Boolean.FALSE.equals(alive)) {
                return "no process with id " + pid;
            }
            if (listed(pid, vmType) || hasPerfData(pid) || hasAttachSocket(pid)) {
                return null;
            }
            return "process " + pid + " is not a Java VM this user can attach to";
        }

        /** True or false where the platform says (Java 9+: ProcessHandle; Linux: /proc), else null. */
        private static Boolean isAlive(String pid) {
            try {
                Class<?> handle = Class.forName("java.lang.ProcessHandle");
                Object optional = handle.getMethod("of", long.class).invoke(null, Long.parseLong(pid));
                return (Boolean) optional.getClass().getMethod("isPresent").invoke(optional);
            } catch (Exception e) {
                File proc = new File("/proc");
                return proc.isDirectory() ? Boolean.valueOf(new File(proc, pid).isDirectory()) : null;
            }
        }

        private static boolean listed(String pid, Class<?> vmType) {
            try {
                // Through the API's own types: the implementations are in packages the JDK does not export.
                Method id = Class.forName("com.sun.tools.attach.VirtualMachineDescriptor", false,
                        vmType.getClassLoader()).getMethod("id");
                List<?> descriptors = (List<?>) vmType.getMethod("list").invoke(null);
                for (Object descriptor : descriptors) {
                    if (pid.equals(id.invoke(descriptor))) {
                        return true;
                    }
                }
            } catch (Exception e) {
                // not listed: the files below decide
            } catch (LinkageError e) {
                // likewise
            }
            return false;
        }

        /** {@code hsperfdata_USER/PID} in the temporary directory: a HotSpot JVM (of any user). */
        private static boolean hasPerfData(String pid) {
            for (File dir : tmpDirs(pid)) {
                File[] users = dir.listFiles();
                if (users == null) {
                    continue;
                }
                for (File user : users) {
                    if (user.getName().startsWith("hsperfdata_") && new File(user, pid).isFile()) {
                        return true;
                    }
                }
            }
            return false;
        }

        /** {@code .java_pidPID}: the attach listener runs already (no SIGQUIT will be sent). */
        private static boolean hasAttachSocket(String pid) {
            for (File dir : tmpDirs(pid)) {
                if (new File(dir, ".java_pid" + pid).exists()) {
                    return true;
                }
            }
            return false;
        }

        private static File[] tmpDirs(String pid) {
            return new File[] {
                    new File(System.getProperty("java.io.tmpdir")),
                    new File("/tmp"),
                    new File("/proc/" + pid + "/root/tmp")};
        }
    }
}
