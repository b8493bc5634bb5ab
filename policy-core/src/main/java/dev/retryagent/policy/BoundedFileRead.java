package dev.retryagent.policy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Reads the bytes of a policy file with a bound: at most {@link #MAX_BYTES}, and only from a regular file
 * (a directory, a FIFO or a device in its place is an error, never a read that could block).
 */
final class BoundedFileRead {
    /** The largest policy file accepted, in bytes (64 KiB). */
    static final int MAX_BYTES = 64 * 1024;

    private BoundedFileRead() {
    }

    /** The bytes of {@code file}; every failure is a {@link PolicyException} about the file as a whole. */
    static byte[] read(Path file) throws PolicyException {
        if (file == null) {
            throw fileError("(none)", "no policy file was given", null);
        }
        String source = file.toString();
        try {
            return readBounded(file, source);
        } catch (PolicyException e) {
            throw e;
        } catch (NoSuchFileException e) {
            throw fileError(source, "policy file not found", e);
        } catch (AccessDeniedException e) {
            throw fileError(source, "cannot read the policy file: permission denied", e);
        } catch (IOException | RuntimeException e) {
            throw fileError(source, "cannot read the policy file: " + PolicyMessages.describe(e), e);
        }
    }

    /** The error for a policy of {@code size} bytes, or of more than the limit when the size is unknown (-1). */
    static PolicyException tooLarge(String source, long size) {
        String found = size > MAX_BYTES ? size + " bytes" : "more than " + MAX_BYTES + " bytes";
        return fileError(source, "the policy file is too large: " + found
                + "; the limit is " + MAX_BYTES + " bytes (64 KiB)", null);
    }

    private static byte[] readBounded(Path file, String source) throws IOException, PolicyException {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        if (attributes.isDirectory()) {
            throw fileError(source, "the policy path is a directory, not a file", null);
        }
        if (!attributes.isRegularFile()) {
            // Opening a FIFO blocks until someone writes to it: refused before it is opened. A FIFO renamed into
            // place between this look and the open below would still block the open: Java has no non-blocking
            // open, and whoever can rename files into the policy's directory decides the policy anyway.
            throw fileError(source, "the policy path is not a regular file", null);
        }
        byte[] buffer = new byte[MAX_BYTES + 1];
        int length = 0;
        try (InputStream in = Files.newInputStream(file)) {
            int n;
            while (length < buffer.length && (n = in.read(buffer, length, buffer.length - length)) > 0) {
                length += n;
            }
        }
        if (length > MAX_BYTES) {
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

    private static PolicyException fileError(String source, String message, Throwable cause) {
        return new PolicyException(new PolicyError(source, 1, PolicyErrors.FILE_KEY, message), cause);
    }
}
