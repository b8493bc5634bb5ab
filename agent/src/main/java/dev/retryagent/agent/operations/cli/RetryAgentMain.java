package dev.retryagent.agent.operations.cli;

import java.io.PrintStream;
import java.util.Arrays;

/**
 * {@code java -jar retry-agent.jar COMMAND}: the operator tools of docs/operations.md.
 * <pre>
 * check [--attempt-time D] [--outage D] [--json] [--strict] POLICY   see {@link CheckCommand}
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
            return CheckCommand.run(Arrays.copyOfRange(args, 1, args.length), out, err);
        }
        if ("attach".equals(command)) {
            return AttachCommand.run(Arrays.copyOfRange(args, 1, args.length), out, err);
        }
        if ("help".equals(command) || "-h".equals(command) || "--help".equals(command)) {
            usage(out);
            return OK;
        }
        err.println("retry-agent: unknown command " + command);
        usage(err);
        return USAGE;
    }

    private static void usage(PrintStream out) {
        out.println("usage: java -jar retry-agent.jar " + CheckCommand.SYNOPSIS);
        out.println("       java -jar retry-agent.jar attach PID [policy=FILE,mode=...,log=...]");
        out.println("as an agent: java -javaagent:retry-agent.jar[=policy=FILE,mode=enforce|observe|off,log=info|debug|warn|off] ...");
    }
}
