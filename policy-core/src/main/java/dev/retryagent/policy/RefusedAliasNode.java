package dev.retryagent.policy;

import java.util.Optional;

import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * Stands where the policy file had a YAML alias. The alias is reported when it is parsed and never resolved;
 * the validator skips this node, as a key or as a value, because there is nothing more to say about it.
 */
final class RefusedAliasNode extends ScalarNode {
    private final String aliasName;

    RefusedAliasNode(String aliasName, Optional<Mark> start, Optional<Mark> end) {
        // The scalar text shows only when a whole document is an alias, in the error that it is no mapping.
        super(Tag.STR, true, "\u0000alias:" + aliasName, ScalarStyle.DOUBLE_QUOTED, start, end);
        this.aliasName = aliasName;
    }

    /** The alias's name, without the {@code *}. */
    String aliasName() {
        return aliasName;
    }
}
