package dev.retryagent.policy;

import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/** The YAML kind of a composed node, after the core schema resolved plain scalars. */
enum YamlKind {
    NULL, BOOL, INT, FLOAT, STR, MAP, LIST;

    static YamlKind of(Node node) {
        if (node instanceof MappingNode) {
            return MAP;
        }
        if (node instanceof SequenceNode) {
            return LIST;
        }
        Tag tag = node.getTag();
        if (Tag.NULL.equals(tag)) {
            return NULL;
        }
        if (Tag.BOOL.equals(tag)) {
            return BOOL;
        }
        if (Tag.INT.equals(tag)) {
            return INT;
        }
        if (Tag.FLOAT.equals(tag)) {
            return FLOAT;
        }
        return STR;
    }
}
