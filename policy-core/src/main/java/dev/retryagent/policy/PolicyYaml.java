package dev.retryagent.policy;

import java.util.List;
import java.util.Optional;

import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.comments.CommentLine;
import org.snakeyaml.engine.v2.common.Anchor;
import org.snakeyaml.engine.v2.composer.Composer;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.ReaderException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.parser.ParserImpl;
import org.snakeyaml.engine.v2.scanner.StreamReader;
import org.snakeyaml.engine.v2.schema.CoreSchema;

/**
 * Policy text composed to a YAML node tree (never constructed into objects) through the
 * {@link GuardedYamlParser}; a YAML engine exception becomes a policy error, and no tree.
 */
final class PolicyYaml {
    private final Node root;
    private final Throwable failure;

    private PolicyYaml(Node root, Throwable failure) {
        this.root = root;
        this.failure = failure;
    }

    /** The root node of the document, or null when the text holds none (or could not be composed). */
    Node root() {
        return root;
    }

    /** Why the text could not be composed, already reported; null when it was. */
    Throwable failure() {
        return failure;
    }

    static PolicyYaml compose(String yaml, PolicyErrors errors) {
        String text = yaml.startsWith("\uFEFF") ? yaml.substring(1) : yaml;
        LoadSettings settings = LoadSettings.builder()
                .setLabel(errors.source())
                .setSchema(new CoreSchema())
                .setParseComments(false)
                .setUseMarks(true)
                .setAllowDuplicateKeys(true) // duplicates are reported by the validator, with both lines
                .build();
        GuardedYamlParser parser = new GuardedYamlParser(
                new ParserImpl(settings, new StreamReader(settings, text)), errors);
        Composer composer = new GuardedComposer(settings, parser);
        try {
            Optional<Node> document = composer.getSingleNode();
            return new PolicyYaml(document.isPresent() ? document.get() : null, null);
        } catch (GuardedYamlParser.NestingTooDeep e) {
            errors.add(e.line, PolicyErrors.YAML_KEY, "lists and mappings are nested more than "
                    + GuardedYamlParser.MAX_NESTING + " levels deep; a policy needs at most 5");
            return new PolicyYaml(null, e);
        } catch (MarkedYamlEngineException e) {
            YamlSyntaxHints.report(e, errors);
            return new PolicyYaml(null, e);
        } catch (ReaderException e) {
            errors.add(lineAt(text, e.getPosition()), PolicyErrors.YAML_KEY,
                    "the file contains a character YAML does not allow (code point U+"
                            + String.format("%04X", e.getCodePoint()) + ")");
            return new PolicyYaml(null, e);
        } catch (YamlEngineException e) {
            errors.add(1, PolicyErrors.YAML_KEY, "invalid YAML: " + PolicyMessages.describe(e));
            return new PolicyYaml(null, e);
        }
    }

    /** The line of the code point at {@code position}. */
    private static int lineAt(String text, int position) {
        int line = 1;
        int cps = 0;
        for (int i = 0; i < text.length() && cps < position; i++, cps++) {
            char c = text.charAt(i);
            if (c == '\n') {
                line++;
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length()) {
                i++;
            }
        }
        return line;
    }

    /** Composes a {@link RefusedAliasNode} where the guard replaced an alias, and everything else as usual. */
    private static final class GuardedComposer extends Composer {
        private final GuardedYamlParser guard;

        GuardedComposer(LoadSettings settings, GuardedYamlParser guard) {
            super(settings, guard);
            this.guard = guard;
        }

        @Override
        protected Node composeScalarNode(Optional<Anchor> anchor, List<CommentLine> blockComments) {
            String alias = guard.pendingAliasName();
            if (alias == null) {
                return super.composeScalarNode(anchor, blockComments);
            }
            Event event = guard.next();
            return new RefusedAliasNode(alias, event.getStartMark(), event.getEndMark());
        }
    }
}
