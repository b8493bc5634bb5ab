package dev.retryagent.policy;

import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

/** A value of the policy tree to check: its key path, its YAML node and the line errors about it name. */
final class YamlValue {
    final String path;
    final Node node;
    final int line;

    YamlValue(String path, Node node, int line) {
        this.path = path;
        this.node = node;
        this.line = line;
    }

    YamlKind kind() {
        return YamlKind.of(node);
    }

    /** The text of a scalar node. */
    String scalar() {
        return ((ScalarNode) node).getValue();
    }

    /** True where an alias was: already reported, nothing more to say about it. */
    boolean isRefusedAlias() {
        return node instanceof RefusedAliasNode;
    }

    /** The line {@code node} starts on, from 1. */
    static int lineOf(Node node) {
        if (node == null || !node.getStartMark().isPresent()) {
            return 1;
        }
        return node.getStartMark().get().getLine() + 1;
    }

    /** True for a key written with no value at all ({@code key:}). */
    static boolean isEmptyScalar(Node node) {
        return node instanceof ScalarNode && YamlKind.of(node) == YamlKind.NULL
                && ((ScalarNode) node).getValue().isEmpty();
    }

    /** The key path of {@code key} inside the mapping at {@code path}. */
    static String childPath(String path, String key) {
        String name = key.isEmpty() ? "\"\"" : PolicyMessages.show(key);
        return path.isEmpty() ? name : path + "." + name;
    }
}
