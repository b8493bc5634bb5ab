package dev.retryagent.policy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.composer.Composer;
import org.snakeyaml.engine.v2.events.CollectionStartEvent;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.events.ImplicitTuple;
import org.snakeyaml.engine.v2.events.MappingStartEvent;
import org.snakeyaml.engine.v2.events.NodeEvent;
import org.snakeyaml.engine.v2.events.ScalarEvent;
import org.snakeyaml.engine.v2.events.SequenceStartEvent;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.ReaderException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.parser.Parser;
import org.snakeyaml.engine.v2.parser.ParserImpl;
import org.snakeyaml.engine.v2.scanner.StreamReader;
import org.snakeyaml.engine.v2.schema.CoreSchema;

/**
 * Reads and validates a policy file (SPEC section 3). The YAML is only composed to a node tree (never
 * constructed into objects); type tags, anchors and aliases are refused; every problem of a file is
 * reported at once, each with its file, line and key. Whatever goes wrong, the only exception that
 * leaves this class is {@link PolicyException}.
 */
public final class PolicyLoader {
    /** The largest policy file accepted, in bytes (64 KiB). */
    public static final int MAX_FILE_BYTES = 64 * 1024;
    /** The deepest nesting of lists and mappings accepted; a valid policy needs 5. */
    static final int MAX_NESTING = 32;
    /** The key of errors about the file as a whole. */
    static final String FILE_KEY = "(file)";
    /** The key of YAML syntax errors. */
    static final String YAML_KEY = "(yaml)";
    /** Prefix of the scalar an alias is replaced with; such values are already reported, and skipped. */
    static final String REFUSED_ALIAS = "\u0000alias:";

    private PolicyLoader() {
    }

    /** Reads, parses and validates the policy file {@code file}. */
    public static Policy load(Path file) throws PolicyException {
        byte[] content = read(file);
        return parseContent(content, file.toString());
    }

    /**
     * The bytes of the policy file {@code file}, read with a bound: at most {@link #MAX_FILE_BYTES}, and only from
     * a regular file (a directory, a FIFO or a device in its place is an error, never a read that could block).
     * Whoever reads a policy file again and again (a reload) reads it here, so that it is read the same way.
     */
    public static byte[] read(Path file) throws PolicyException {
        if (file == null) {
            throw new PolicyException(new PolicyError("(none)", 1, FILE_KEY, "no policy file was given"));
        }
        String source = file.toString();
        try {
            return readBounded(file, source);
        } catch (PolicyException e) {
            throw e;
        } catch (NoSuchFileException e) {
            throw new PolicyException(new PolicyError(source, 1, FILE_KEY, "policy file not found"), e);
        } catch (AccessDeniedException e) {
            throw new PolicyException(new PolicyError(source, 1, FILE_KEY,
                    "cannot read the policy file: permission denied"), e);
        } catch (IOException | RuntimeException e) {
            throw new PolicyException(new PolicyError(source, 1, FILE_KEY,
                    "cannot read the policy file: " + describe(e)), e);
        }
    }

    /**
     * Parses and validates the content of a policy file as {@link #read} returns it (UTF-8).
     *
     * @param sourceName how errors and {@link Policy#source()} name it, usually the file's path
     */
    public static Policy parseContent(byte[] content, String sourceName) throws PolicyException {
        String source = sourceName == null ? "(inline)" : sourceName;
        if (content == null) {
            throw new PolicyException(new PolicyError(source, 1, FILE_KEY, "no policy text was given"));
        }
        if (content.length > MAX_FILE_BYTES) {
            throw tooLarge(source, content.length);
        }
        return parseChecked(decodeUtf8(content, source), source);
    }

    /**
     * Parses and validates policy text.
     *
     * @param yamlText   the content of a policy file
     * @param sourceName how errors and {@link Policy#source()} name it, usually the file's path
     */
    public static Policy parse(String yamlText, String sourceName) throws PolicyException {
        String source = sourceName == null ? "(inline)" : sourceName;
        if (yamlText == null) {
            throw new PolicyException(new PolicyError(source, 1, FILE_KEY, "no policy text was given"));
        }
        long size = utf8Length(yamlText);
        if (size > MAX_FILE_BYTES) {
            throw tooLarge(source, size);
        }
        return parseChecked(yamlText, source);
    }

    private static byte[] readBounded(Path file, String source) throws IOException, PolicyException {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        if (attributes.isDirectory()) {
            throw new PolicyException(new PolicyError(source, 1, FILE_KEY,
                    "the policy path is a directory, not a file"));
        }
        if (!attributes.isRegularFile()) {
            // Opening a FIFO blocks until someone writes to it: refused before it is opened.
            throw new PolicyException(new PolicyError(source, 1, FILE_KEY,
                    "the policy path is not a regular file"));
        }
        byte[] buffer = new byte[MAX_FILE_BYTES + 1];
        int length = 0;
        try (InputStream in = Files.newInputStream(file)) {
            int n;
            while (length < buffer.length && (n = in.read(buffer, length, buffer.length - length)) > 0) {
                length += n;
            }
        }
        if (length > MAX_FILE_BYTES) {
            long size = -1;
            try {
                size = Files.size(file);
            } catch (IOException | RuntimeException ignored) {
                // the size only makes the message more precise
            }
            throw tooLarge(source, size);
        }
        byte[] bytes = new byte[length];
        System.arraycopy(buffer, 0, bytes, 0, length);
        return bytes;
    }

    private static PolicyException tooLarge(String source, long size) {
        String found = size > MAX_FILE_BYTES ? size + " bytes" : "more than " + MAX_FILE_BYTES + " bytes";
        return new PolicyException(new PolicyError(source, 1, FILE_KEY, "the policy file is too large: " + found
                + "; the limit is " + MAX_FILE_BYTES + " bytes (64 KiB)"));
    }

    private static String decodeUtf8(byte[] bytes, String source) throws PolicyException {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length + 1);
        CoderResult result = decoder.decode(in, out, true);
        if (!result.isError()) {
            result = decoder.flush(out);
        }
        if (result.isError()) {
            int at = in.position();
            int line = 1;
            for (int i = 0; i < at && i < bytes.length; i++) {
                if (bytes[i] == '\n') {
                    line++;
                }
            }
            throw new PolicyException(new PolicyError(source, line, FILE_KEY,
                    "the policy file is not valid UTF-8 (bad byte at offset " + at + ")"));
        }
        out.flip();
        return out.toString();
    }

    private static long utf8Length(String text) {
        long bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    private static Policy parseChecked(String text, String source) throws PolicyException {
        try {
            return compose(text, source);
        } catch (PolicyException e) {
            throw e;
        } catch (RuntimeException | StackOverflowError | LinkageError e) {
            throw new PolicyException(new PolicyError(source, 1, FILE_KEY,
                    "the policy could not be read (" + describe(e) + ")"), e);
        }
    }

    private static Policy compose(String yaml, String source) throws PolicyException {
        String text = yaml.startsWith("\uFEFF") ? yaml.substring(1) : yaml;
        LoadSettings settings = LoadSettings.builder()
                .setLabel(source)
                .setSchema(new CoreSchema())
                .setParseComments(false)
                .setUseMarks(true)
                .setAllowDuplicateKeys(true) // duplicates are reported by the validator, with both lines
                .build();
        GuardedParser parser = new GuardedParser(new ParserImpl(settings, new StreamReader(settings, text)), source);
        Composer composer = new Composer(settings, parser);
        List<PolicyError> errors = parser.errors;
        Node root = null;
        Throwable cause = null;
        try {
            Optional<Node> document = composer.getSingleNode();
            root = document.isPresent() ? document.get() : null;
        } catch (NestingTooDeep e) {
            errors.add(new PolicyError(source, e.line, YAML_KEY, "lists and mappings are nested more than "
                    + MAX_NESTING + " levels deep; a policy needs at most 5"));
            cause = e;
        } catch (MarkedYamlEngineException e) {
            errors.add(syntaxError(e, source));
            cause = e;
        } catch (ReaderException e) {
            errors.add(new PolicyError(source, lineAt(text, e.getPosition()), YAML_KEY,
                    "the file contains a character YAML does not allow (code point U+"
                            + String.format("%04X", e.getCodePoint()) + ")"));
            cause = e;
        } catch (YamlEngineException e) {
            errors.add(new PolicyError(source, 1, YAML_KEY, "invalid YAML: " + describe(e)));
            cause = e;
        }
        Policy policy = null;
        if (cause == null) {
            policy = new PolicyValidator(source, errors).validate(root);
        }
        if (!errors.isEmpty() || policy == null) {
            if (errors.isEmpty()) {
                errors.add(new PolicyError(source, 1, FILE_KEY, "the policy could not be read"));
            }
            List<PolicyError> sorted = new ArrayList<PolicyError>(errors);
            Collections.sort(sorted, BY_LINE);
            throw new PolicyException(sorted, cause);
        }
        return policy;
    }

    private static final Comparator<PolicyError> BY_LINE = new Comparator<PolicyError>() {
        @Override
        public int compare(PolicyError a, PolicyError b) {
            return Integer.compare(a.line(), b.line());
        }
    };

    private static PolicyError syntaxError(MarkedYamlEngineException e, String source) {
        String problem = e.getProblem();
        String context = e.getContext();
        Optional<Mark> mark = e.getProblemMark().isPresent() ? e.getProblemMark() : e.getContextMark();
        int line = mark.isPresent() ? mark.get().getLine() + 1 : 1;
        if (context != null && context.contains("expected a single document")) {
            return new PolicyError(source, line, YAML_KEY,
                    "a policy file holds one YAML document, but a second one starts here (`---`)");
        }
        Optional<Mark> contextMark = e.getContextMark();
        int contextLine = contextMark.isPresent() ? contextMark.get().getLine() + 1 : line;
        String p = problem == null ? "" : problem.trim();
        String c = context == null ? "" : context.trim();
        String hint;
        if (p.contains("(TAB)")) {
            hint = "a tab character cannot indent YAML; indent with spaces";
        } else if (p.startsWith("expected ',' or ']'")) {
            hint = "the list `[` opened on line " + contextLine + " is not closed with `]`";
        } else if (p.startsWith("expected ',' or '}'")) {
            hint = "the mapping `{` opened on line " + contextLine + " is not closed with `}`";
        } else if (p.contains("end of stream") && c.contains("quoted scalar")) {
            hint = "the quote opened on line " + contextLine + " is never closed";
        } else if (p.startsWith("expected <block end>")) {
            hint = "bad indentation: this line does not line up with the keys or items before it";
        } else if (p.startsWith("mapping values are not allowed")) {
            hint = "unexpected `:` here: check this line's indentation, or quote a value that contains `: `";
        } else {
            hint = null;
        }
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
        return new PolicyError(source, line, YAML_KEY, sb.toString());
    }

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

    private static String describe(Throwable e) {
        String message = e.getMessage();
        if (message == null || message.trim().isEmpty()) {
            return e.getClass().getSimpleName();
        }
        message = message.trim();
        int newline = message.indexOf('\n');
        if (newline >= 0) {
            message = message.substring(0, newline).trim();
        }
        return message;
    }

    /** Raised by {@link GuardedParser} when collections nest too deep, before the composer recurses. */
    private static final class NestingTooDeep extends RuntimeException {
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

    /**
     * Sits between the YAML parser and the composer. Records an error for every type tag, anchor and alias
     * (with the key path it is at), strips them so the composer neither resolves aliases nor trusts tags,
     * turns the merge key {@code <<} into an ordinary (unknown) key, and stops nesting beyond
     * {@link #MAX_NESTING} before the composer's recursion could exhaust the stack.
     */
    private static final class GuardedParser implements Parser {
        private final Parser delegate;
        private final String source;
        final List<PolicyError> errors = new ArrayList<PolicyError>();
        private final List<Frame> frames = new ArrayList<Frame>();
        /** Each alias name is reported once, so an alias bomb gives a short list. */
        private final Set<String> reportedAliases = new HashSet<String>();
        private Event pending;

        GuardedParser(Parser delegate, String source) {
            this.delegate = delegate;
            this.source = source;
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
            return new ScalarEvent(Optional.empty(), Optional.empty(), new ImplicitTuple(false, true),
                    REFUSED_ALIAS + name, ScalarStyle.DOUBLE_QUOTED, event.getStartMark(), event.getEndMark());
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
                return FILE_KEY;
            }
            Frame top = frames.get(frames.size() - 1);
            String prefix = top.path.equals(FILE_KEY) ? "" : top.path;
            if (!top.mapping) {
                return prefix + "[" + top.index + "]";
            }
            String key = PolicyValidator.show(top.expectKey ? (keyText == null ? "?" : keyText) : top.key);
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
            errors.add(new PolicyError(source, line(event), path, message));
        }

        private static int line(Event event) {
            return event.getStartMark().isPresent() ? event.getStartMark().get().getLine() + 1 : 1;
        }
    }
}
