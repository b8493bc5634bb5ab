package dev.retryagent.policy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.events.CollectionStartEvent;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.events.ImplicitTuple;
import org.snakeyaml.engine.v2.events.MappingStartEvent;
import org.snakeyaml.engine.v2.events.NodeEvent;
import org.snakeyaml.engine.v2.events.ScalarEvent;
import org.snakeyaml.engine.v2.events.SequenceStartEvent;
import org.snakeyaml.engine.v2.parser.Parser;

/**
 * Sits between the YAML parser and the composer. Records an error for every type tag, anchor and alias
 * (with the key path it is at), strips them so the composer neither resolves aliases nor trusts tags,
 * turns the merge key {@code <<} into an ordinary (unknown) key, and stops nesting beyond
 * {@link #MAX_NESTING} before the composer's recursion could exhaust the stack. An alias becomes a scalar
 * event that {@link #pendingAliasName()} names, so that the composer can put a {@link RefusedAliasNode} there.
 */
final class GuardedYamlParser implements Parser {
    /** The deepest nesting of lists and mappings accepted; a valid policy needs 5. */
    static final int MAX_NESTING = 32;

    private final Parser delegate;
    private final PolicyErrors errors;
    private final List<Frame> frames = new ArrayList<Frame>();
    /** Each alias name is reported once, so an alias bomb gives a short list. */
    private final Set<String> reportedAliases = new HashSet<String>();
    private Event pending;
    /** The alias's name when {@link #pending} stands for one, else null. */
    private String pendingAlias;

    GuardedYamlParser(Parser delegate, PolicyErrors errors) {
        this.delegate = delegate;
        this.errors = errors;
    }

    /** Raised when collections nest too deep, before the composer recurses. */
    static final class NestingTooDeep extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int line;

        NestingTooDeep(int line) {
            super("nesting too deep at line " + line, null, false, false);
            this.line = line;
        }
    }

    /** Where the guard is within the document: one frame per open mapping or list. */
    private static final class Frame {
        final boolean mapping;
        final String path;
        int index;
        boolean expectKey = true;
        String key = "?";

        Frame(boolean mapping, String path) {
            this.mapping = mapping;
            this.path = path;
        }
    }

    /** The name of the alias the next event stands for, or null when the next event is no alias. */
    String pendingAliasName() {
        peekEvent();
        return pendingAlias;
    }

    @Override
    public boolean checkEvent(Event.ID id) {
        return peekEvent().getEventId() == id;
    }

    @Override
    public Event peekEvent() {
        if (pending == null) {
            pending = inspect(delegate.next());
        }
        return pending;
    }

    @Override
    public Event next() {
        Event event = peekEvent();
        pending = null;
        pendingAlias = null;
        return event;
    }

    @Override
    public boolean hasNext() {
        return pending != null || delegate.hasNext();
    }

    private Event inspect(Event event) {
        switch (event.getEventId()) {
            case Scalar:
                return scalar((ScalarEvent) event);
            case Alias:
                return alias((NodeEvent) event);
            case SequenceStart:
            case MappingStart:
                return collectionStart((CollectionStartEvent) event);
            case SequenceEnd:
            case MappingEnd:
                if (!frames.isEmpty()) {
                    frames.remove(frames.size() - 1);
                }
                childDone(null);
                return event;
            default:
                return event;
        }
    }

    private Event scalar(ScalarEvent event) {
        String path = childPath(event.getValue());
        boolean refused = refuseProperties(event, event.getTag(), path);
        childDone(event.getValue());
        if (event.isPlain() && "<<".equals(event.getValue())) {
            // A merge key would splice mappings together; make it a plain (and unknown) key instead.
            return new ScalarEvent(Optional.empty(), Optional.empty(), new ImplicitTuple(false, true),
                    event.getValue(), ScalarStyle.DOUBLE_QUOTED, event.getStartMark(), event.getEndMark());
        }
        if (!refused) {
            return event;
        }
        return new ScalarEvent(Optional.empty(), Optional.empty(),
                new ImplicitTuple(event.isPlain(), !event.isPlain()), event.getValue(), event.getScalarStyle(),
                event.getStartMark(), event.getEndMark());
    }

    private Event alias(NodeEvent event) {
        String name = event.getAnchor().isPresent() ? event.getAnchor().get().getValue() : "";
        String path = childPath(null);
        if (reportedAliases.add(name)) {
            error(event, path, "YAML aliases are not allowed in a policy file: found `*" + name
                    + "`; write the value out in full");
        }
        childDone(null);
        pendingAlias = name;
        return new ScalarEvent(Optional.empty(), Optional.empty(), new ImplicitTuple(false, true),
                name, ScalarStyle.DOUBLE_QUOTED, event.getStartMark(), event.getEndMark());
    }

    private Event collectionStart(CollectionStartEvent event) {
        String path = childPath(null);
        boolean refused = refuseProperties(event, event.getTag(), path);
        boolean mapping = event.getEventId() == Event.ID.MappingStart;
        frames.add(new Frame(mapping, path));
        if (frames.size() > MAX_NESTING) {
            throw new NestingTooDeep(line(event));
        }
        if (!refused) {
            return event;
        }
        if (mapping) {
            return new MappingStartEvent(Optional.empty(), Optional.empty(), true, event.getFlowStyle(),
                    event.getStartMark(), event.getEndMark());
        }
        return new SequenceStartEvent(Optional.empty(), Optional.empty(), true, event.getFlowStyle(),
                event.getStartMark(), event.getEndMark());
    }

    /** Records errors for a tag or an anchor on {@code event}; true when it had either. */
    private boolean refuseProperties(NodeEvent event, Optional<String> tag, String path) {
        boolean refused = false;
        if (tag.isPresent()) {
            error(event, path, "type tags are not allowed in a policy file: found `" + shortTag(tag.get())
                    + "`; write the plain value without a tag");
            refused = true;
        }
        if (event.getAnchor().isPresent()) {
            error(event, path, "YAML anchors are not allowed in a policy file: found `&"
                    + event.getAnchor().get().getValue() + "`; write the values out in full");
            refused = true;
        }
        return refused;
    }

    private static String shortTag(String tag) {
        String standard = "tag:yaml.org,2002:";
        return tag.startsWith(standard) ? "!!" + tag.substring(standard.length()) : tag;
    }

    /** The key path of the node that starts now ({@code keyText}: its value when it is a scalar). */
    private String childPath(String keyText) {
        if (frames.isEmpty()) {
            return PolicyErrors.FILE_KEY;
        }
        Frame top = frames.get(frames.size() - 1);
        String prefix = top.path.equals(PolicyErrors.FILE_KEY) ? "" : top.path;
        if (!top.mapping) {
            return prefix + "[" + top.index + "]";
        }
        String key = PolicyMessages.show(top.expectKey ? (keyText == null ? "?" : keyText) : top.key);
        return prefix.isEmpty() ? key : prefix + "." + key;
    }

    /** A node that was a child of the innermost open collection has ended. */
    private void childDone(String scalarValue) {
        if (frames.isEmpty()) {
            return;
        }
        Frame top = frames.get(frames.size() - 1);
        if (!top.mapping) {
            top.index++;
        } else if (top.expectKey) {
            top.key = scalarValue == null ? "?" : scalarValue;
            top.expectKey = false;
        } else {
            top.expectKey = true;
        }
    }

    private void error(Event event, String path, String message) {
        errors.add(line(event), path, message);
    }

    static int line(Event event) {
        return event.getStartMark().isPresent() ? event.getStartMark().get().getLine() + 1 : 1;
    }
}
