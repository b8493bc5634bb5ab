package dev.retryagent.policy;

import java.nio.file.Path;

/**
 * Reads and validates a policy file (docs/reference.md#the-policy-file). The YAML is only composed to a node
 * tree (never constructed into objects); type tags, anchors and aliases are refused; every problem of a file is
 * reported at once, each with its file, line and key. Whatever goes wrong, the only exception that
 * leaves this class is {@link PolicyException}.
 *
 * <p>The steps are pieces of their own: {@link BoundedFileRead} reads the file, {@link StrictUtf8} decodes
 * it, {@link PolicyYaml} composes it through the {@link GuardedYamlParser}, and {@link PolicyValidator}
 * walks the tree against the {@link PolicySchema}.
 */
public final class PolicyLoader {
    /** The largest policy file accepted, in bytes (64 KiB). */
    public static final int MAX_FILE_BYTES = BoundedFileRead.MAX_BYTES;

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
        return BoundedFileRead.read(file);
    }

    /**
     * Parses and validates the content of a policy file as {@link #read} returns it (UTF-8).
     *
     * @param sourceName how errors and {@link Policy#source()} name it, usually the file's path
     */
    public static Policy parseContent(byte[] content, String sourceName) throws PolicyException {
        String source = sourceName == null ? "(inline)" : sourceName;
        if (content == null) {
            throw noText(source);
        }
        if (content.length > MAX_FILE_BYTES) {
            throw BoundedFileRead.tooLarge(source, content.length);
        }
        return parseChecked(StrictUtf8.decode(content, source), source);
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
            throw noText(source);
        }
        long size = StrictUtf8.length(yamlText);
        if (size > MAX_FILE_BYTES) {
            throw BoundedFileRead.tooLarge(source, size);
        }
        return parseChecked(yamlText, source);
    }

    private static PolicyException noText(String source) {
        return new PolicyException(new PolicyError(source, 1, PolicyErrors.FILE_KEY, "no policy text was given"));
    }

    private static Policy parseChecked(String text, String source) throws PolicyException {
        try {
            return composeAndValidate(text, source);
        } catch (PolicyException e) {
            throw e;
        } catch (RuntimeException | StackOverflowError | LinkageError e) {
            throw new PolicyException(new PolicyError(source, 1, PolicyErrors.FILE_KEY,
                    "the policy could not be read (" + PolicyMessages.describe(e) + ")"), e);
        }
    }

    private static Policy composeAndValidate(String text, String source) throws PolicyException {
        PolicyErrors errors = new PolicyErrors(source);
        PolicyYaml yaml = PolicyYaml.compose(text, errors);
        Policy policy = null;
        if (yaml.failure() == null) {
            policy = new PolicyValidator(errors).validate(yaml.root());
        }
        if (!errors.isEmpty() || policy == null) {
            if (errors.isEmpty()) {
                errors.add(1, PolicyErrors.FILE_KEY, "the policy could not be read");
            }
            throw new PolicyException(errors.byLine(), yaml.failure());
        }
        return policy;
    }
}
