package dev.retryagent.agent;

import dev.retryagent.policy.Policy;
import dev.retryagent.policy.PolicyError;
import dev.retryagent.policy.PolicyException;
import dev.retryagent.policy.PolicyLoader;
import java.io.PrintStream;
import java.nio.file.Paths;

/**
 * {@code java -jar retry-agent.jar COMMAND}: the operator tools of SPEC 6.
 * <pre>
 * check POLICY       exit 0: valid, prints the effective settings; exit 2: file:line: key: message per error
 * attach PID [ARGS]  loads the agent into a running JVM; exit codes in {@link AttachCommand}
 * </pre>
 */
public final class RetryAgentMain {
    static final int OK = 0;
    static final int INVALID = 2;
    static final int USAGE = 64;

    private RetryAgentMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            usage(err);
            return USAGE;
        }
        String command = args[0];
        if ("check".equals(command)) {
            if (args.length != 2) {
                err.println("retry-agent: check takes one argument, the policy file");
                usage(err);
                return USAGE;
            }
            return check(args[1], out, err);
        }
        if ("attach".equals(command)) {
            String[] rest = new String[args.length - 1];
            System.arraycopy(args, 1, rest, 0, rest.length);
            return AttachCommand.run(rest, out, err);
        }
        if ("help".equals(command) || "-h".equals(command) || "--help".equals(command)) {
            usage(out);
            return OK;
        }
        err.println("retry-agent: unknown command " + command);
        usage(err);
        return USAGE;
    }

    static int check(String file, PrintStream out, PrintStream err) {
        Policy policy;
        try {
            policy = PolicyLoader.load(Paths.get(file));
        } catch (PolicyException e) {
            for (PolicyError error : e.errors()) {
                err.println(error);
            }
            err.println("retry-agent: " + file + " is not valid (" + e.errors().size() + " error"
                    + (e.errors().size() == 1 ? "" : "s") + ")");
            return INVALID;
        }
        out.println("retry-agent: " + file + " is valid");
        PolicyReport.print(policy, out);
        return OK;
    }

    private static void usage(PrintStream out) {
        out.println("usage: java -jar retry-agent.jar check POLICY");
        out.println("       java -jar retry-agent.jar attach PID [policy=FILE,mode=...,log=...]");
        out.println("as an agent: java -javaagent:retry-agent.jar[=policy=FILE,mode=enforce|observe|off,log=info|debug|warn|off] ...");
    }
}
