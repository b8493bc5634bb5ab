package dev.retryagent.policy;

import java.util.Optional;

import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;

/** The message for a YAML syntax error: the parser's words, led by a plain hint for the common mistakes. */
final class YamlSyntaxHints {
    private YamlSyntaxHints() {
    }

    static void report(MarkedYamlEngineException e, PolicyErrors errors) {
        String problem = e.getProblem();
        String context = e.getContext();
        Optional<Mark> mark = e.getProblemMark().isPresent() ? e.getProblemMark() : e.getContextMark();
        int line = mark.isPresent() ? mark.get().getLine() + 1 : 1;
        if (context != null && context.contains("expected a single document")) {
            errors.add(line, PolicyErrors.YAML_KEY,
                    "a policy file holds one YAML document, but a second one starts here (`---`)");
            return;
        }
        Optional<Mark> contextMark = e.getContextMark();
        int contextLine = contextMark.isPresent() ? contextMark.get().getLine() + 1 : line;
        String p = problem == null ? "" : problem.trim();
        String c = context == null ? "" : context.trim();
        String hint = hint(p, c, contextLine);
        StringBuilder sb = new StringBuilder("invalid YAML: ");
        if (hint != null) {
            sb.append(hint).append(" (parser: ");
        }
        sb.append(p.isEmpty() ? "syntax error" : p);
        if (!c.isEmpty()) {
            sb.append(hint == null ? " (" : ", ").append(c);
            if (contextLine != line) {
                sb.append(" that starts on line ").append(contextLine);
            }
            sb.append(hint == null ? ")" : "");
        }
        if (hint != null) {
            sb.append(')');
        }
        errors.add(line, PolicyErrors.YAML_KEY, sb.toString());
    }

    /** What the parser's {@code problem} and {@code context} most likely mean, or null when nothing is known. */
    private static String hint(String problem, String context, int contextLine) {
        if (problem.contains("(TAB)")) {
            return "a tab character cannot indent YAML; indent with spaces";
        } else if (problem.startsWith("expected ',' or ']'")) {
            return "the list `[` opened on line " + contextLine + " is not closed with `]`";
        } else if (problem.startsWith("expected ',' or '}'")) {
            return "the mapping `{` opened on line " + contextLine + " is not closed with `}`";
        } else if (problem.contains("end of stream") && context.contains("quoted scalar")) {
            return "the quote opened on line " + contextLine + " is never closed";
        } else if (problem.startsWith("expected <block end>")) {
            return "bad indentation: this line does not line up with the keys or items before it";
        } else if (problem.startsWith("mapping values are not allowed")) {
            return "unexpected `:` here: check this line's indentation, or quote a value that contains `: `";
        }
        return null;
    }
}
